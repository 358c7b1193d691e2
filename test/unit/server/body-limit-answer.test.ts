// A request refused before its body is read (over its limit, or unauthorized) gets its answer
// whole, over a real socket, however the machine is loaded: the client writes all of a 3 MB body
// before it reads a byte, so a server that closed the socket with the body unread would reset it
// and the client would never see the status line.
import { connect, type Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { ADMIN, sandboxResponse, useFakeApp } from './fake-services.ts';
import { BOUNDARY, multipartBody, multipartHeaders } from './multipart.ts';

const t = useFakeApp();

// Over the default 1 MiB limits and more than loopback socket buffers absorb while the server
// reads nothing (measured on Linux with default settings: a server that answered at once and
// closed reset 10 of 10 uploads of 6 MiB, 0 of 10 of 3 MiB), under what the host drains (16 MiB).
const OVERSIZED = 12 * 1024 * 1024;

interface Sent {
  /** Everything the server sent until it closed the connection or answered `next`. */
  text: string;
  socket: Socket;
}

/** Writes `head` and `body` (declared by length, or chunked) and only then starts to read. */
function sendThenRead(head: string, body: Buffer, chunked: boolean, until: (text: string) => boolean): Promise<Sent> {
  const { port } = new URL(t.app.url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1');
    socket.pause();
    let text = '';
    socket.on('error', reject);
    socket.on('data', (chunk: Buffer) => {
      text += chunk.toString('latin1');
      if (until(text)) resolve({ text, socket });
    });
    socket.on('end', () => resolve({ text, socket }));
    socket.on('connect', () => {
      const framing = chunked ? 'transfer-encoding: chunked\r\n' : `content-length: ${body.length}\r\n`;
      socket.write(`${head}${framing}\r\n`);
      const pieces = 48;
      const size = Math.ceil(body.length / pieces);
      for (let at = 0; at < body.length; at += size) {
        const piece = body.subarray(at, at + size);
        socket.write(
          chunked
            ? Buffer.concat([Buffer.from(`${piece.length.toString(16)}\r\n`), piece, Buffer.from('\r\n')])
            : piece,
        );
      }
      // Reading begins once the whole body is handed to the socket (the callback of its last write).
      socket.write(chunked ? '0\r\n\r\n' : '', () => socket.resume());
    });
  });
}

const statusOf = (text: string): number => Number(/^HTTP\/1\.1 (\d{3}) /.exec(text)?.[1] ?? 0);
/** A whole response: its headers and the JSON body its content-length announces. */
const answered = (text: string): boolean => {
  const end = text.indexOf('\r\n\r\n');
  const length = /\r\ncontent-length: (\d+)/i.exec(text);
  return end !== -1 && length !== null && text.length >= end + 4 + Number(length[1]);
};
const bodyOf = (text: string): { error: { code: string } } => JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4));

const admin = `authorization: ${ADMIN.authorization}\r\n`;
const routes: { name: string; head: string; body: Buffer; status: number; code: string }[] = [
  {
    name: 'POST /v1 (the envelope)',
    head: `POST /v1 HTTP/1.1\r\nhost: x\r\n${admin}content-type: ${multipartHeaders()['content-type']}\r\n`,
    body: multipartBody(
      [
        { name: 'event', body: '{}' },
        { name: 'fetch-body', body: Buffer.alloc(OVERSIZED, 0x61) },
      ],
      BOUNDARY,
    ),
    status: 413,
    code: 'ERR_PAYLOAD_TOO_LARGE',
  },
  {
    name: 'a public endpoint',
    head: 'POST /v1/integrations/hello/installations/inst-1 HTTP/1.1\r\nhost: x\r\n',
    body: Buffer.alloc(OVERSIZED, 0x62),
    status: 413,
    code: 'ERR_PAYLOAD_TOO_LARGE',
  },
  {
    name: 'an admin JSON route (POST /v1/events)',
    head: `POST /v1/events HTTP/1.1\r\nhost: x\r\n${admin}content-type: application/json\r\n`,
    body: Buffer.from(`{"eventId":"e","padding":"${'p'.repeat(OVERSIZED)}"}`),
    status: 413,
    code: 'ERR_PAYLOAD_TOO_LARGE',
  },
  {
    name: 'an admin route refused before reading (no token)',
    head: 'POST /v1/events HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n',
    body: Buffer.alloc(OVERSIZED, 0x20),
    status: 401,
    code: 'ERR_UNAUTHORIZED',
  },
  {
    name: 'a path no route serves',
    head: 'POST /v1/nothing-here HTTP/1.1\r\nhost: x\r\n',
    body: Buffer.alloc(OVERSIZED, 0x63),
    status: 404,
    code: 'ERR_NOT_FOUND',
  },
];

describe('an answer given before the body is read', () => {
  for (const route of routes) {
    for (const [chunked, connection] of [
      [false, 'close'],
      [true, 'close'],
      [false, 'keep-alive'],
      [true, 'keep-alive'],
    ] as const) {
      it(
        `reaches the client whole on ${route.name}, body ${chunked ? 'chunked' : 'by content-length'}, ` +
          `connection ${connection}`,
        async () => {
          // `close`: read until the server ends the connection; kept alive: until the answer is whole.
          const until = connection === 'close' ? () => false : answered;
          const { text, socket } = await sendThenRead(
            `${route.head}connection: ${connection}\r\n`,
            route.body,
            chunked,
            until,
          );
          socket.destroy();
          expect(statusOf(text), text.slice(0, 200)).toBe(route.status);
          expect(bodyOf(text).error.code).toBe(route.code);
          expect(t.services.dispatchCalls).toHaveLength(0);
        },
      );
    }
  }

  it('leaves a kept-alive connection usable for the next request', async () => {
    const route = routes[1];
    const { text, socket } = await sendThenRead(route.head, route.body, false, answered);
    expect(statusOf(text)).toBe(413);
    t.services.respond = () => sandboxResponse(200, [['content-type', 'text/plain']], 'next');
    const next = await new Promise<string>((resolve, reject) => {
      let received = '';
      socket.removeAllListeners('data');
      socket.removeAllListeners('end');
      socket.on('error', reject);
      socket.on('data', (chunk: Buffer) => {
        received += chunk.toString('latin1');
        if (answered(received) || received.endsWith('next')) resolve(received);
      });
      socket.on('end', () => resolve(received));
      socket.write('GET /v1/integrations/hello/installations/inst-1 HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n');
    });
    socket.destroy();
    expect(statusOf(next), next.slice(0, 200)).toBe(200);
    expect(next.endsWith('next')).toBe(true);
  });

  it('closes the connection after a 413 when the body declared is past what the host discards', async () => {
    const { port } = new URL(t.app.url);
    const text = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(port), '127.0.0.1');
      let received = '';
      socket.on('error', reject);
      socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
      socket.on('end', () => resolve(received));
      socket.on('connect', () =>
        socket.write(
          `POST /v1/integrations/hello/installations/inst-1 HTTP/1.1\r\nhost: ` +
            `x\r\ncontent-length: ${64 * 1024 * 1024}\r\n\r\n`,
        ),
      );
    });
    expect(statusOf(text)).toBe(413);
    expect(text).toMatch(/\r\nconnection: close\r\n/i);
  });
});
