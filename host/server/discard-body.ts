// Disposes of the rest of a request body that will not be used (refused over its limit, or before
// it was read) so that the answer reaches the client. Never keeps a byte of it.

import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * The most of an unused body read to be thrown away. A socket closed with bytes still unread is
 * reset (RST), and a client still sending loses the answer with it: a 413 becomes ECONNRESET.
 * Past this bound (declared, or counted for a chunked body) the answer is sent at once and the
 * connection closed, as a client sending that much must expect.
 */
export const MAX_DISCARDED_BODY_BYTES = 16 * 1024 * 1024;

/**
 * Drains what is left of `req`'s body without keeping it. Resolves true once the body has ended
 * (the connection is then clean); false at once when the body declares more than `maxBytes`, when
 * more than that arrives, or when the request fails. Whoever read the body before has given up
 * on it: its readers are detached here.
 */
export function discardUnread(req: IncomingMessage, maxBytes = MAX_DISCARDED_BODY_BYTES): Promise<boolean> {
  if (req.complete || req.readableEnded) return Promise.resolve(true);
  if (req.destroyed) return Promise.resolve(false);
  const declared = req.headers['content-length'];
  if (declared !== undefined && !(Number(declared) <= maxBytes)) return Promise.resolve(false);
  // A parser left attached (formidable's) would go on parsing what is only to be dropped.
  req.removeAllListeners('data');
  return new Promise((resolve) => {
    let discarded = 0;
    const finish = (ended: boolean): void => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('close', onClose);
      resolve(ended);
    };
    const onData = (chunk: Buffer): void => {
      discarded += chunk.length;
      if (discarded > maxBytes) {
        req.pause();
        finish(false);
      }
    };
    const onEnd = (): void => finish(true);
    const onError = (): void => finish(false);
    const onClose = (): void => finish(req.complete);
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('close', onClose);
    req.resume();
  });
}

/**
 * Readies the connection for an answer that refuses `req` (an error), whose body may be partly
 * unread; resolves when the answer may be written, true when it must close the connection.
 * - A complete body: at once, the connection as Node keeps it.
 * - A body declared past the bound: at once, closing (what is still sent may be reset).
 * - A connection kept alive: at once, and the rest is drained meanwhile (the client may read the
 *   answer while it sends); past the bound the connection is cut.
 * - A connection Node closes after this answer (`Connection: close`, HTTP/1.0): once the rest is
 *   drained, since closing with bytes unread would reset it and could lose the answer.
 */
export async function readyForRefusal(req: IncomingMessage, res: ServerResponse): Promise<boolean> {
  if (req.complete || req.readableEnded) return false;
  const draining = discardUnread(req);
  if (!res.shouldKeepAlive) return !(await draining);
  const declared = req.headers['content-length'];
  if (declared !== undefined && !(Number(declared) <= MAX_DISCARDED_BODY_BYTES)) return true;
  void draining.then((ended) => {
    if (!ended) req.socket.destroy();
  });
  return false;
}
