// Guest-facing fetch(): builds a Request, hands the worker a copied BridgeRequest and turns the
// BridgeResult into a Response whose body, when the host has more of it, is read from the host as
// it is asked for. Failures are always fresh isolate TypeErrors, never host errors.
import { bodyStateOf, consumeBody, isNullBody } from './body.ts';
import type { BridgeRequest, BridgeResponse, BridgeResult } from './contract.ts';
import { crossingHeaderPairs } from './headers.ts';
import type { HostBodySource } from './modules/streams.ts';
import type { RequestClass, RequestInit } from './request.ts';
import type { ResponseClass } from './response.ts';

/** Servers refuse request lines far shorter than this; a longer URL never leaves the isolate. */
const MAX_CROSSING_URL_LENGTH = 64 * 1024;

export interface FetchBridge {
  fetch(request: BridgeRequest): Promise<BridgeResult<BridgeResponse>>;
  read(id: number): Promise<BridgeResult<Uint8Array | null>>;
  cancel(id: number): void;
}

/** The rest of a fetched body, read from the host chunk by chunk (fetchRead), cancelled at most once. */
function hostBody(bridge: FetchBridge, id: number): HostBodySource {
  let done = false;
  return {
    id,
    async read() {
      if (done) return null;
      const result = await bridge.read(id);
      if (!result.ok) {
        done = true;
        throw new TypeError(`fetch failed while reading the response body: ${result.message}`);
      }
      if (result.value === null) done = true;
      return result.value;
    },
    cancel() {
      if (done) return;
      done = true;
      bridge.cancel(id);
    },
  };
}

export function createFetch(
  Request: RequestClass,
  responseFromBridge: (value: BridgeResponse, more: HostBodySource | null) => InstanceType<ResponseClass>,
  bridge: FetchBridge,
) {
  let lastId = 0;
  return async function fetch(input: unknown, init?: RequestInit): Promise<InstanceType<ResponseClass>> {
    const request = new Request(input, init);
    const state = bodyStateOf(request);
    if (request.url.length > MAX_CROSSING_URL_LENGTH) throw new TypeError(`fetch: the URL is longer than ${MAX_CROSSING_URL_LENGTH} characters`);
    const headers = crossingHeaderPairs(request.headers, 'fetch: the request');
    // Uploads are not streamed: a stream body is read whole here, then sent.
    const body = isNullBody(state) ? null : (await consumeBody(state)).slice();
    const id = ++lastId;
    const result = await bridge.fetch({ url: request.url, method: request.method, headers, body, redirect: request.redirect, id });
    if (!result.ok) throw new TypeError(`fetch failed: ${result.message}`);
    return responseFromBridge(result.value, result.value.more === true ? hostBody(bridge, id) : null);
  };
}
