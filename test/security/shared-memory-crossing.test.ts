// SharedArrayBuffer is in the guest's realm, and isolated-vm hands a view on one to the host as the
// same memory even when asked to copy: a guest could change bytes while the host checks or sends
// them. A guest hands shared views to every API whose bytes reach the host (fetch bodies, legacy
// decoding, SubtleCrypto, compression, Blob parts, random values, response bodies and stream
// chunks) and overwrites them right after. Recorded at every primitive, the host only ever receives
// copies; through the real host every result is what the bytes were when handed over; and the
// host's own functions refuse shared bytes from a caller that bypasses the runtime.
import { createHash, createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { isSharedArrayBuffer } from 'node:util/types';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTextDecoding } from '../../host/bridge/text-decoding.ts';
import { createCompressionTable } from '../../host/bridge/compression.ts';
import { createSubtle } from '../../host/bridge/webcrypto.ts';
import { createRealmResources, realmImplementations } from '../../host/sandbox/realm-primitives.ts';
import type { RealmOwner } from '../../host/sandbox/realm.ts';
import { validateSandboxResponse } from '../../host/sandbox/validate-response.ts';
import type { BridgeRequest, BridgeResult } from '../../sandbox-api/runtime/contract.ts';
import { runtimeModules } from '../helpers/runtime-modules.ts';
import { startTestHost, endpointOf, type TestHost } from '../helpers/host.ts';
import { expectHostHealthy } from '../helpers/host-health.ts';
import { Harness, envelope, json } from '../unit/sandbox-api/harness.ts';

const FIXTURE = 'fixtures/hostile/shared-memory-crossing';
const CHUNK_BYTES = 256 * 1024;
const CHUNKS = 4;
const KEY = Buffer.from(Array.from({ length: 16 }, (_, index) => index + 1));

/** What the fixture's stream should have sent: each chunk's pattern as it was when enqueued. */
function expectedStream(): Uint8Array {
  const all = new Uint8Array(CHUNK_BYTES * CHUNKS);
  for (let index = 0; index < CHUNKS; index++)
    for (let offset = 0; offset < CHUNK_BYTES; offset++)
      all[index * CHUNK_BYTES + offset] = (index * 31 + offset) & 0xff;
  return all;
}

/** The probe's answers when every API used the bytes as they were handed over. */
const PROBE = {
  fetch: 200,
  decode: 'あAB',
  digest: createHash('sha256').update('abc').digest('hex'),
  sign: createHmac('sha256', KEY).update('message').digest('hex'),
  compress: 'compressed from shared memory',
  blob: 'blob part',
  random: true,
  clone: 'DataCloneError: #<SharedArrayBuffer> could not be cloned.',
};

const sharedView = (bytes: number[]): Uint8Array => {
  const view = new Uint8Array(new SharedArrayBuffer(bytes.length));
  view.set(bytes);
  return view;
};

/** A loopback server that keeps every request body it receives. */
async function startBodyReceiver(): Promise<{ url: string; port: number; bodies: string[]; close(): Promise<void> }> {
  const bodies: string[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      bodies.push(Buffer.concat(chunks).toString('utf8'));
      res.end('received');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/collect`,
    port,
    bodies,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe('through the real host', () => {
  let host: TestHost;
  let receiver: Awaited<ReturnType<typeof startBodyReceiver>>;

  beforeAll(async () => {
    receiver = await startBodyReceiver();
    host = await startTestHost({
      dirs: ['fixtures/integrations', FIXTURE],
      allowEgress: [`127.0.0.1:${receiver.port}`],
    });
  });
  afterAll(async () => {
    await host?.close();
    await receiver?.close();
  });

  it('uses every shared view as it was when handed over: request bodies, decoding, digests, signatures, compression, ' +
    'Blob parts', async () => {
    const response = await fetch(
      `${endpointOf(host, 'shared-memory-crossing')}?${new URLSearchParams({ target: receiver.url })}`,
    );
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual(PROBE);
    expect(receiver.bodies).toEqual(['shared request body']);
  }, 60_000);

  it('answers a Response made from shared memory with the bytes it held when made', async () => {
    const response = await fetch(`${endpointOf(host, 'shared-memory-crossing')}?mode=bytes`);
    expect(response.status).toBe(200);
    expect(await response.text()).toBe('response from shared memory');
  });

  it('streams shared chunks as they were when the host pulled ' +
    'them, though each is overwritten right after', async () => {
    const response = await fetch(`${endpointOf(host, 'shared-memory-crossing')}?mode=stream`);
    expect(response.status).toBe(200);
    const body = new Uint8Array(await response.arrayBuffer());
    expect(body.length).toBe(CHUNK_BYTES * CHUNKS);
    expect(Buffer.compare(body, expectedStream())).toBe(0);
  }, 60_000);

  it('leaves the host and its neighbour answering', async () => {
    await expectHostHealthy(host);
  });
});

describe('what the host receives from the runtime, at every primitive', () => {
  let harness: Harness;
  const stubbed: string[] = [];

  beforeAll(async () => {
    harness = await Harness.create({
      recordCrossings: true,
      fetch: (request) => {
        stubbed.push(new TextDecoder().decode(request.body ?? new Uint8Array(0)));
        return {
          ok: true,
          value: {
            status: 200,
            statusText: 'OK',
            headers: [],
            body: new Uint8Array(0),
            url: request.url,
            redirected: false,
          },
        };
      },
    });
    await harness.loadSource(readFileSync(`${FIXTURE}/index.ts`, 'utf8'));
  });
  afterAll(() => harness?.dispose());

  const ask = (mode: string) =>
    harness.dispatch(
      envelope({
        type: 'fetch',
        request: {
          method: 'GET',
          url: `https://public.test/?mode=${mode}&target=https://api.example/collect`,
          headers: [],
        },
      }),
    );

  it('is never shared memory: every view arrives as a plain copy, on every primitive the probe reaches', async () => {
    const response = await ask('probe');
    expect(json(response)).toEqual(PROBE);
    expect(stubbed).toEqual(['shared request body']);
    const reached = new Set(harness.crossings.map((crossing) => crossing.primitive));
    for (const primitive of ['fetch', 'decodeText', 'subtle', 'compressionWrite', 'randomBytes'])
      expect(reached, primitive).toContain(primitive);
    expect(harness.crossings.filter((crossing) => crossing.views > 0).length).toBeGreaterThan(5);
    expect(harness.crossings.filter((crossing) => crossing.shared)).toEqual([]);
  });

  it('reads a response body and every stream chunk out of the isolate as bytes of their own', async () => {
    const bytes = await ask('bytes');
    expect(isSharedArrayBuffer(bytes.body.buffer)).toBe(false);
    expect(new TextDecoder().decode(bytes.body)).toBe('response from shared memory');

    const streamed = await ask('stream');
    expect(streamed.streamed?.kind).toBe('runtime');
    const expected = expectedStream();
    for (let index = 0; index < CHUNKS; index++) {
      const chunk = await harness.pullBody(streamed.streamed!.id);
      expect(chunk).not.toBeNull();
      expect(isSharedArrayBuffer(chunk!.buffer)).toBe(false);
      expect(Buffer.compare(chunk!, expected.subarray(index * CHUNK_BYTES, (index + 1) * CHUNK_BYTES))).toBe(0);
    }
    expect(await harness.pullBody(streamed.streamed!.id)).toBeNull();
  });
});

describe('the host, called with shared bytes by a caller that bypasses the runtime', () => {
  it('refuses them in every function that takes bytes, and takes the same bytes unshared', async () => {
    const attempt = async (bytes: Uint8Array) => {
      const decode = createTextDecoding()(bytes, 'shift_jis', false, false, 0, true);
      const compression = createCompressionTable();
      const opened = compression.open('gzip', false) as { ok: true; value: number };
      const compressed = await compression.write(opened.value, bytes, true);
      compression.closeAll();
      const digest = await createSubtle({ alive: () => true }).call('digest', ['SHA-256', bytes], []);
      const answer = validateSandboxResponse({ status: 200, headers: [], body: bytes }, 1024);
      const sent: BridgeRequest[] = [];
      const owner = {
        fetch: async (request: BridgeRequest): Promise<BridgeResult<never>> => {
          sent.push(request);
          return { ok: false, code: 'TypeError', message: 'stub' };
        },
      } as unknown as RealmOwner;
      const fetch = realmImplementations(() => owner, owner, await runtimeModules(), createRealmResources()).fetch as (
        request: BridgeRequest,
      ) => Promise<BridgeResult<unknown>>;
      const fetched = await fetch({
        url: 'https://api.example/',
        method: 'POST',
        headers: [],
        body: bytes,
        redirect: 'follow',
      });
      return {
        decode: decode.ok,
        compressed: compressed.ok,
        digest: digest.ok,
        answer: typeof answer === 'object',
        fetchReachedOwner: sent.length === 1,
        fetched,
      };
    };
    const shared = await attempt(sharedView([0x41, 0x42]));
    expect(shared).toEqual({
      decode: false,
      compressed: false,
      digest: false,
      answer: false,
      fetchReachedOwner: false,
      fetched: { ok: false, code: 'TypeError', message: expect.any(String) },
    });
    // The control: the same bytes on memory of their own go through.
    expect(await attempt(new Uint8Array([0x41, 0x42]))).toMatchObject({
      decode: true,
      compressed: true,
      digest: true,
      answer: true,
      fetchReachedOwner: true,
    });
  });
});
