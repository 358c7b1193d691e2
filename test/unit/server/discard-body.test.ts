// discardUnread: drains the rest of a body up to its bound and keeps none of it; past the bound
// (declared or counted) it gives up, so the caller closes the connection.
import { createServer, request, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { discardUnread } from '../../../host/server/discard-body.ts';

let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await close?.();
  close = undefined;
});

/** Sends `chunks` (chunked unless `length` is declared) and gives what discardUnread(req, bound) resolved. */
async function drained(
  chunks: Buffer[],
  bound: number,
  length?: number,
): Promise<{ ended: boolean; listeners: number }> {
  let settle!: (value: { ended: boolean; listeners: number }) => void;
  const outcome = new Promise<{ ended: boolean; listeners: number }>((resolve) => (settle = resolve));
  const server = createServer((req: IncomingMessage, res) => {
    // A reader that gave up, as formidable does: it must not see another byte.
    req.on('data', () => settle({ ended: false, listeners: -1 }));
    void discardUnread(req, bound).then((ended) => {
      settle({ ended, listeners: req.listenerCount('data') });
      res.setHeader('connection', 'close');
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  const client = request({
    port: (server.address() as AddressInfo).port,
    host: '127.0.0.1',
    method: 'POST',
    headers: length === undefined ? {} : { 'content-length': String(length) },
  });
  client.on('error', () => {});
  client.on('response', (res) => res.resume());
  client.flushHeaders();
  for (const chunk of chunks) client.write(chunk);
  if (length === undefined) client.end();
  return outcome;
}

describe('discardUnread', () => {
  it('drains a body within its bound and detaches earlier readers', async () => {
    expect(await drained([Buffer.alloc(1000), Buffer.alloc(1000)], 4096)).toEqual({ ended: true, listeners: 0 });
  });

  it('gives up on a chunked body once more than its bound has arrived', async () => {
    expect((await drained([Buffer.alloc(3000), Buffer.alloc(3000), Buffer.alloc(3000)], 4096)).ended).toBe(false);
  });

  it('gives up at once on a body declared past its bound, before a byte arrives', async () => {
    expect((await drained([], 4096, 4097)).ended).toBe(false);
  });
});
