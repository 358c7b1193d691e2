// Guest-facing fetch(): builds a Request, hands the worker a copied BridgeRequest and turns the
// BridgeResult into a Response. Failures are always fresh isolate TypeErrors, never host errors.
import { bodyStateOf } from './body.ts';
import type { BridgeRequest, BridgeResponse, BridgeResult } from './contract.ts';
import { crossingHeaderPairs } from './headers.ts';
import type { RequestClass, RequestInit } from './request.ts';
import type { ResponseClass } from './response.ts';

/** Servers refuse request lines far shorter than this; a longer URL never leaves the isolate. */
const MAX_CROSSING_URL_LENGTH = 64 * 1024;

export function createFetch(
  Request: RequestClass,
  responseFromBridge: (value: BridgeResponse) => InstanceType<ResponseClass>,
  bridgeFetch: (request: BridgeRequest) => Promise<BridgeResult<BridgeResponse>>,
) {
  return async function fetch(input: unknown, init?: RequestInit): Promise<InstanceType<ResponseClass>> {
    const request = new Request(input, init);
    const state = bodyStateOf(request);
    if (state.used) throw new TypeError('fetch: the request body has already been read');
    if (state.bytes !== null) state.used = true;
    if (request.url.length > MAX_CROSSING_URL_LENGTH) throw new TypeError(`fetch: the URL is longer than ${MAX_CROSSING_URL_LENGTH} characters`);
    const headers = crossingHeaderPairs(request.headers, 'fetch: the request');
    const result = await bridgeFetch({
      url: request.url,
      method: request.method,
      headers,
      body: state.bytes === null ? null : state.bytes.slice(),
      redirect: request.redirect,
    });
    if (!result.ok) throw new TypeError(`fetch failed: ${result.message}`);
    return responseFromBridge(result.value);
  };
}
