// A guest poisoning its realm so that the next dispatch or another installation runs with changed
// built-ins: every attempt on a built-in or runtime prototype, JSON, Math, Reflect or crypto is
// refused or has no effect (they are frozen before integration code runs), in the dispatch that
// tried, in the next one, and for a second installation sharing the isolate. The global object is
// the integration's own (shared by its installations, like module variables); another
// integration, in another isolate, sees none of it.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { startTestHost, endpointOf, type TestHost } from '../helpers/host.ts';
import { expectHostHealthy } from '../helpers/host-health.ts';
import { install } from '../helpers/platform-api.ts';

let host: TestHost;
let polluted: { installation: string; attempts: Record<string, string>; realm: Record<string, unknown> };
let secondEndpoint: string;

const CLEAN_REALM = {
  isAdmin: null,
  polluted: null,
  inherited: null,
  toJSON: '{"a":1}',
  includes: false,
  map: 'function',
  jsonParse: 1,
  mathRandomNative: true,
  trim: 'a',
  errorToString: 'Error: x',
  responseJson: true,
  promiseThen: true,
  headersGet: true,
  uuidLooksRandom: true,
};

beforeAll(async () => {
  host = await startTestHost({ dirs: ['fixtures/integrations', 'fixtures/hostile', 'test/fixtures/witness'] });
  secondEndpoint = (
    await install(host, 'prototype-pollution', { organization: 'acme', target: 'space', space: 'space_acme_docs' })
  ).urls.publicEndpoint;
  const response = await fetch(`${endpointOf(host, 'prototype-pollution')}?step=pollute`);
  expect(response.status).toBe(200);
  polluted = await response.json();
});
afterAll(() => host?.close());

describe('prototype pollution', () => {
  it('changes no built-in: every attempt is refused or ignored', () => {
    const { globalVariable, ...builtIns } = polluted.attempts;
    expect(Object.keys(builtIns).length).toBeGreaterThanOrEqual(18);
    for (const [name, outcome] of Object.entries(builtIns))
      expect(`${name}: ${outcome}`).toMatch(/: (refused: TypeError|ignored)$/);
    expect(globalVariable).toBe('applied');
  });

  it('leaves the realm clean within the same dispatch', () => {
    expect(polluted.realm).toEqual({ ...CLEAN_REALM, globalVariable: 'present' });
  });

  it('leaves the realm clean for the next dispatch of the same installation', async () => {
    const next = await (await fetch(endpointOf(host, 'prototype-pollution'))).json();
    expect(next.realm).toMatchObject(CLEAN_REALM);
  });

  it(
    'leaves the built-ins clean for another installation ' + 'sharing the isolate; only the global object is shared',
    async () => {
      const other = await (await fetch(secondEndpoint)).json();
      expect(other.installation).not.toBe(polluted.installation);
      expect(other.realm).toEqual({ ...CLEAN_REALM, globalVariable: 'present' });
    },
  );

  it('shows nothing to another integration, which runs in another isolate', async () => {
    const witness = await (await fetch(endpointOf(host, 'realm-witness'))).json();
    expect(witness).toEqual({
      isAdmin: null,
      polluted: null,
      includes: false,
      jsonParse: 1,
      trim: 'a',
      globalVariable: 'absent',
    });
  });

  it('leaves the host and its neighbour answering', async () => {
    await expectHostHealthy(host);
  });
});
