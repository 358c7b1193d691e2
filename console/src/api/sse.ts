// Reads a `text/event-stream` answer through fetch() (not EventSource, which cannot send the CSRF
// header): one callback per message, comments (`: keep-alive`) ignored, reconnects with backoff
// until stopped. The parser follows the WHATWG event-stream rules for `event:` and `data:`.

import { ApiError, requestHeaders } from './client.ts';

export interface StreamMessage {
  event: string;
  data: string;
}

export interface StreamHandlers {
  onMessage(message: StreamMessage): void;
  /** Connected (again): a caller may reload what it missed while disconnected. */
  onOpen(): void;
  /** Disconnected with the reason; it retries unless the error is final (401, 403, 404). */
  onError(error: ApiError, retrying: boolean): void;
}

/** Splits a stream's text into messages; feed it chunks, it keeps the unfinished tail. */
export function createEventStreamParser(onMessage: (message: StreamMessage) => void): (chunk: string) => void {
  let buffer = '';
  let event = '';
  let data: string[] = [];
  return (chunk) => {
    buffer += chunk;
    const lines = buffer.split(/\r\n|\r|\n/);
    buffer = lines.pop() ?? '';
    for (const line of lines) {
      if (line === '') {
        if (data.length > 0) onMessage({ event: event || 'message', data: data.join('\n') });
        event = '';
        data = [];
        continue;
      }
      if (line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const field = colon === -1 ? line : line.slice(0, colon);
      let value = colon === -1 ? '' : line.slice(colon + 1);
      if (value.startsWith(' ')) value = value.slice(1);
      if (field === 'event') event = value;
      else if (field === 'data') data.push(value);
    }
  };
}

const FINAL_STATUSES = new Set([401, 403, 404, 405]);

export function openEventStream(path: string, handlers: StreamHandlers): () => void {
  const controller = new AbortController();
  let delay = 1000;
  let stopped = false;

  const connect = async (): Promise<void> => {
    while (!stopped) {
      let failure: ApiError;
      try {
        const response = await fetch(path, {
          headers: requestHeaders({ accept: 'text/event-stream' }),
          credentials: 'same-origin',
          cache: 'no-store',
          signal: controller.signal,
        });
        if (!response.ok || response.body === null) {
          let message = `The event stream answered ${response.status}`;
          let code = `HTTP_${response.status}`;
          try {
            const body = (await response.json()) as { error?: { code?: string; message?: string } };
            if (body.error?.message) message = body.error.message;
            if (body.error?.code) code = body.error.code;
          } catch {
            // Not JSON: the status says enough.
          }
          failure = new ApiError(response.status, code, message, [], response.headers.get('x-request-id'));
          if (FINAL_STATUSES.has(response.status)) {
            handlers.onError(failure, false);
            return;
          }
        } else {
          handlers.onOpen();
          delay = 1000;
          const feed = createEventStreamParser(handlers.onMessage);
          const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
          for (;;) {
            const { value, done } = await reader.read();
            if (done) break;
            feed(value);
          }
          failure = new ApiError(0, 'ERR_STREAM_CLOSED', 'The host closed the event stream');
        }
      } catch (error) {
        if (stopped || (error as Error).name === 'AbortError') return;
        failure = new ApiError(0, 'ERR_NETWORK', 'Lost the connection to the host');
      }
      if (stopped) return;
      handlers.onError(failure, true);
      await new Promise((resolve) => setTimeout(resolve, delay));
      delay = Math.min(delay * 2, 15_000);
    }
  };
  void connect();
  return () => {
    stopped = true;
    controller.abort();
  };
}
