// RuntimeApi.dispatchWire, the compact form the worker uses: JSON text in, [meta JSON, body] out.
// It must answer exactly as dispatch does, give every dispatch its own copy of the environment
// (also when the worker sends null for "the same as last time"), use the parsed URLs it is handed
// without a hop, and never reject.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { Harness, envelope, urlRecord } from './harness.ts';

let harness: Harness;

beforeAll(async () => {
  harness = await Harness.create();
  await harness.loadSource(`
    import { createIntegration } from 'sandbox-api';
    export default createIntegration({
      async fetch(request, context) {
        const env = context.environment as { installation: { id: string; hits?: number } };
        env.installation.hits = (env.installation.hits ?? 0) + 1;
        const body = new Uint8Array(await request.arrayBuffer());
        return new Response(body, {
          status: 201,
          statusText: 'Made',
          headers: { 'x-url': request.url, 'x-probe': request.headers.get('x-probe') ?? '',
            'x-hits': String(env.installation.hits), 'x-installation': env.installation.id },
        });
      },
    });
  `);
});
afterAll(() => harness.isolate.dispose());

const fetchEvent = (url: string) =>
  envelope({
    type: 'fetch',
    installationId: 'inst_1',
    request: {
      method: 'POST',
      url,
      headers: [
        ['x-probe', 'p'],
        ['content-type', 'application/octet-stream'],
      ],
    },
  });

describe('dispatchWire', () => {
  it('answers exactly as dispatch does', async () => {
    const body = new Uint8Array([0, 1, 254, 255]);
    const value = fetchEvent('https://h.example/a?b=1');
    const environment = { installation: { id: 'inst_1' } };
    const direct = await harness.dispatch({ ...value, fetchBody: body, environment });
    const [meta, bytes] = await harness.dispatchWire(
      JSON.stringify(value.event),
      JSON.stringify(environment),
      body,
      null,
    );
    expect({ ...JSON.parse(meta), body: bytes }).toEqual({ ...direct, waitUntilPending: false });
    expect(JSON.parse(meta)).toMatchObject({ status: 201, statusText: 'Made', waitUntilPending: false });
    expect(bytes).toEqual(body);
  });

  it('gives every dispatch sent the same text its own environment', async () => {
    const environmentJson = JSON.stringify({ installation: { id: 'inst_1' } });
    for (let i = 0; i < 3; i++) {
      const [meta] = await harness.dispatchWire(
        JSON.stringify(fetchEvent('https://h.example/').event),
        environmentJson,
      );
      expect(new Map(JSON.parse(meta).headers as [string, string][]).get('x-hits')).toBe('1');
    }
  });

  it('gives every dispatch a fresh copy of the environment it holds when the worker sends null', async () => {
    await harness.dispatchWire(
      JSON.stringify(fetchEvent('https://h.example/').event),
      JSON.stringify({ installation: { id: 'inst_held' } }),
    );
    for (let i = 0; i < 3; i++) {
      const [meta] = await harness.dispatchWire(JSON.stringify(fetchEvent('https://h.example/').event), null);
      const headers = new Map(JSON.parse(meta).headers as [string, string][]);
      expect(headers.get('x-installation')).toBe('inst_held');
      expect(headers.get('x-hits')).toBe('1');
    }
    // New text replaces what it holds.
    await harness.dispatchWire(
      JSON.stringify(fetchEvent('https://h.example/').event),
      JSON.stringify({ installation: { id: 'inst_next' } }),
    );
    const [meta] = await harness.dispatchWire(JSON.stringify(fetchEvent('https://h.example/').event), null);
    expect(new Map(JSON.parse(meta).headers as [string, string][]).get('x-installation')).toBe('inst_next');
  });

  it('uses the parsed URLs it is handed, without asking the host again', async () => {
    const url = 'https://seeded.example/only-seeded';
    const seeded = { ...urlRecord(url)!, href: 'https://seeded.example/as-the-host-parsed-it' };
    const [meta] = await harness.dispatchWire(
      JSON.stringify(fetchEvent(url).event),
      '{"installation":{"id":"inst_1"}}',
      null,
      JSON.stringify([[url, seeded]]),
    );
    expect(new Map(JSON.parse(meta).headers as [string, string][]).get('x-url')).toBe(
      'https://seeded.example/as-the-host-parsed-it',
    );
  });

  it('answers text that is not JSON with a 500 instead of rejecting', async () => {
    const [meta, bytes] = await harness.dispatchWire('{not json', '{}');
    expect(JSON.parse(meta)).toMatchObject({ status: 500, verdict: 'guest-error' });
    expect(new TextDecoder().decode(bytes)).toBe('{"error":"Internal server error"}');
  });
});

describe('dispatchWire: the copy of a held environment', () => {
  let probe: Harness;
  beforeAll(async () => {
    probe = await Harness.create();
    await probe.loadSource(`
      import { createIntegration } from 'sandbox-api';
      export default createIntegration({
        async fetch(request, context) {
          const env = context.environment;
          const shape = (value) => Array.isArray(value) ? ['array', value.map(shape)]
            : typeof value === 'object' && value !== null
              ? [Object.getPrototypeOf(value) === Object.prototype ? 'object' : 'other prototype',
                Object.getOwnPropertyNames(value).map((key) => [key, Object.getOwnPropertyDescriptor(value,
                key).writable, shape(value[key])])]
              : value;
          return new Response(JSON.stringify(shape(env)));
        },
      });
    `);
  });
  afterAll(() => probe.isolate.dispose());

  it('has the shape JSON.parse gives, keys named like Object.prototype members included', async () => {
    const text =
      '{"constructor":{"prototype":1},"__proto__":{"polluted":true},"toString":"x",' +
      '"hasOwnProperty":[1,{"valueOf":null}],"2":"two","1":"one","nested":{"a":[[],{}],"b":false}}';
    const event = JSON.stringify(fetchEvent('https://h.example/').event);
    const [, parsed] = await probe.dispatchWire(event, text);
    const [, copied] = await probe.dispatchWire(event, null);
    expect(new TextDecoder().decode(copied)).toBe(new TextDecoder().decode(parsed));
    const shape = JSON.parse(new TextDecoder().decode(copied));
    // What JSON.parse itself gives, described the same way outside the isolate.
    const describe = (value: unknown): unknown =>
      Array.isArray(value)
        ? ['array', value.map(describe)]
        : typeof value === 'object' && value !== null
          ? [
              Object.getPrototypeOf(value) === Object.prototype ? 'object' : 'other prototype',
              Object.getOwnPropertyNames(value).map((key) => [
                key,
                Object.getOwnPropertyDescriptor(value, key)!.writable,
                describe((value as Record<string, unknown>)[key]),
              ]),
            ]
          : value;
    expect(shape).toEqual(describe(JSON.parse(text)));
    expect(shape[0]).toBe('object');
    expect(shape[1].map((entry: unknown[]) => entry[0])).toEqual([
      '1',
      '2',
      'constructor',
      '__proto__',
      'toString',
      'hasOwnProperty',
      'nested',
    ]);
    expect(shape[1][3]).toEqual(['__proto__', true, ['object', [['polluted', true, true]]]]);
  });

  it('never runs the guest with an empty environment when the text that should have set it did not parse', async () => {
    const event = JSON.stringify(fetchEvent('https://h.example/').event);
    const [broken] = await probe.dispatchWire(event, '{not json');
    expect(JSON.parse(broken)).toMatchObject({ status: 500, verdict: 'guest-error' });
    // "The same as last time" now refers to nothing held: answered as malformed, not run with {}.
    const [held] = await probe.dispatchWire(event, null);
    expect(JSON.parse(held)).toMatchObject({ status: 500, verdict: 'guest-error' });
    const [sent] = await probe.dispatchWire(event, '{"installation":{"id":"inst_1"}}');
    expect(JSON.parse(sent)).toMatchObject({ status: 200 });
  });
});
