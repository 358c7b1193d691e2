// Reads a request body into memory under a byte limit. Owns the 413 rule for raw bodies: it must
// never buffer past the limit (it stops keeping bytes at the first chunk that crosses it) nor parse anything.

import type { IncomingMessage } from 'node:http';
import { HostError } from '../common/errors.ts';

export function payloadTooLarge(limitBytes: number): HostError {
  return new HostError('ERR_PAYLOAD_TOO_LARGE', `request body exceeds the limit of ${limitBytes} bytes`);
}

/** Rejects before reading a byte when the declared content-length already exceeds the limit. */
export function checkDeclaredLength(req: IncomingMessage, limitBytes: number): void {
  const declared = req.headers['content-length'];
  if (declared !== undefined && Number(declared) > limitBytes) throw payloadTooLarge(limitBytes);
}

/**
 * An HTTP/1.1 request has a body only if it sends Transfer-Encoding or a non-zero Content-Length;
 * without either there is nothing to read, so no listeners are attached (most GETs).
 */
function declaresNoBody(req: IncomingMessage): boolean {
  const declared = req.headers['content-length'];
  return req.headers['transfer-encoding'] === undefined && (declared === undefined || Number(declared) === 0);
}

export function readBody(req: IncomingMessage, limitBytes: number): Promise<Buffer> {
  checkDeclaredLength(req, limitBytes);
  if (req.readableEnded || declaresNoBody(req)) return Promise.resolve(Buffer.alloc(0));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let total = 0;
    const cleanup = (): void => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('close', onClose);
    };
    const onData = (chunk: Buffer): void => {
      total += chunk.length;
      if (total > limitBytes) {
        // Stop here: nothing more is kept. The error middleware drains the rest up to a bound
        // (discard-body.ts) before answering, or closes the connection past it.
        cleanup();
        req.pause();
        reject(payloadTooLarge(limitBytes));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = (): void => {
      cleanup();
      resolve(Buffer.concat(chunks, total));
    };
    const onError = (): void => {
      cleanup();
      reject(new HostError('ERR_BAD_REQUEST', 'request body could not be read'));
    };
    const onClose = (): void => {
      if (req.complete) return;
      cleanup();
      reject(new HostError('ERR_BAD_REQUEST', 'request was aborted before its body was complete'));
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('close', onClose);
  });
}
