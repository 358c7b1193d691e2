// Answers requests Node's HTTP parser refuses before Koa sees them (unknown method, malformed
// syntax, oversized headers, header timeout) with the host's JSON error body instead of a bare
// status line. Like Node's default, it never writes into a started response; it destroys the socket.

import type { Duplex } from 'node:stream';
import { STATUS_CODES } from 'node:http';
import { HostError } from '../common/errors.ts';

function parserFailure(code: string | undefined): HostError {
  if (code === 'HPE_HEADER_OVERFLOW') return new HostError('ERR_HEADERS_TOO_LARGE', 'request headers are too large');
  if (code === 'HPE_CHUNK_EXTENSIONS_OVERFLOW')
    return new HostError('ERR_PAYLOAD_TOO_LARGE', 'chunk extensions are too large');
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT')
    return new HostError('ERR_REQUEST_TIMEOUT', 'the request was not received in time');
  return new HostError('ERR_BAD_REQUEST', 'the request is not valid HTTP/1.1');
}

export function answerClientError(error: Error & { code?: string; rawPacket?: Buffer }, socket: Duplex): void {
  // Node's own rule (socketOnError): answer unless a response of this socket already started.
  const inFlight = (socket as Duplex & { _httpMessage?: { _headerSent?: boolean } | null })._httpMessage;
  if (socket.writable && !inFlight?._headerSent) {
    const failure = parserFailure(error.code);
    const body = JSON.stringify(failure.toBody());
    // The answer to a HEAD carries no body: a client would read one as a broken next response.
    const head = error.rawPacket?.subarray(0, 5).toString('latin1') === 'HEAD ';
    socket.write(
      `HTTP/1.1 ${failure.status} ${STATUS_CODES[failure.status]}\r\nContent-Type: ` +
        `application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${head ? '' : body}`,
    );
  }
  socket.destroy(error);
}
