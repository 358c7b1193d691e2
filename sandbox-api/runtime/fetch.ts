// Guest-facing fetch(): builds a Request, hands the worker a copied BridgeRequest and turns the
// BridgeResult into a Response whose body, when the host has more of it, is read from the host as
// it is asked for; the request's signal aborts it (the host closes the connection). Failures are
// fresh isolate TypeErrors (or the signal's reason), never host errors.
import { bodyStateOf, consumeBody, isNullBody } from './body.ts';
import type { BridgeRequest, BridgeResponse, BridgeResult } from './contract.ts';
import { crossingHeaderPairs } from './headers.ts';
import type { HostBodySource } from './modules/streams.ts';
import { requestSignals, type RequestClass, type RequestInit } from './request.ts';
import { watchAbort } from './signals.ts';
import type { ResponseClass } from './response.ts';

/** Servers refuse request lines far shorter than this; a longer URL never leaves the isolate. */
const MAX_CROSSING_URL_LENGTH = 64 * 1024;

export interface FetchBridge {
  fetch(request: BridgeRequest): Promise<BridgeResult<BridgeResponse>>;
  read(id: number): Promise<BridgeResult<Uint8Array | null>>;
  cancel(id: number): void;
}

/** A fetch's abort, as fetch() watches it (signals.ts watchAbort). */
interface AbortWatch {
  aborted(): boolean;
  reason(): unknown;
  done(): void;
}

/**
 * The rest of a fetched body, read from the host chunk by chunk (fetchRead), cancelled at most once;
 * once the fetch's signal aborts, a read fails with its reason (and the host closes the body).
 */
function hostBody(bridge: FetchBridge, id: number, abort: AbortWatch, aborted: Promise<never>): HostBodySource {
  let done = false;
  const finish = () => {
    done = true;
    abort.done();
  };
  return {
    id,
    async read() {
      if (abort.aborted()) throw abort.reason();
      if (done) return null;
      const result = await Promise.race([bridge.read(id), aborted]);
      if (!result.ok) {
        finish();
        throw new TypeError(`fetch failed while reading the response body: ${result.message}`);
      }
      if (result.value === null) finish();
      return result.value;
    },
    cancel() {
      if (done) return;
      finish();
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
  return {
    // `init` defaults, so fetch.length is 1, as the standard's WebIDL has it.
    async fetch(input: unknown, init: RequestInit | undefined = undefined): Promise<InstanceType<ResponseClass>> {
      const request = new Request(input, init);
      const state = bodyStateOf(request);
      if (request.url.length > MAX_CROSSING_URL_LENGTH)
        throw new TypeError(`fetch: the URL is longer than ${MAX_CROSSING_URL_LENGTH} characters`);
      const headers = crossingHeaderPairs(request.headers, 'fetch: the request');
      const id = ++lastId;
      // Aborted: the host stops the request (or its body) and closes its connection; the guest's
      // promise (or its body's next read) rejects with the signal's reason at once.
      let abortNow: (reason: unknown) => void = () => undefined;
      const aborted = new Promise<never>((_resolve, reject) => (abortNow = reject));
      aborted.catch(() => undefined);
      const abort = watchAbort(requestSignals(request), (reason) => {
        bridge.cancel(id);
        abortNow(reason);
      });
      try {
        // Uploads are not streamed: a stream body is read whole here, then sent.
        const body = isNullBody(state) ? null : (await Promise.race([consumeBody(state), aborted])).slice();
        const result = await Promise.race([
          bridge.fetch({ url: request.url, method: request.method, headers, body, redirect: request.redirect, id }),
          aborted,
        ]);
        if (!result.ok) throw new TypeError(`fetch failed: ${result.message}`);
        if (result.value.more !== true) abort.done();
        return responseFromBridge(
          result.value,
          result.value.more === true ? hostBody(bridge, id, abort, aborted) : null,
        );
      } catch (error) {
        abort.done();
        throw error;
      }
    },
  }.fetch;
}
