// Fuzzes the public endpoint `/v1/integrations/hello/installations/<id>/...` with random methods,
// paths, headers and bodies: never a host 5xx, never a hang; hello's own answers pass through.
// Seed and replay: see fuzz-assert.ts.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { installationOf, startTestHost, type TestHost } from '../helpers/host.ts';
import { body, headers, method, pathSuffix, rawRequest } from './arbitraries/http.ts';
import { expectHostVerdict, isHostError, send, sendRaw } from './assertions.ts';
import { fuzz } from './fuzz-assert.ts';

let host: TestHost;
let ids: string[];

beforeAll(async () => {
  host = await startTestHost({ workers: 1 });
  ids = [installationOf(host, 'hello'), installationOf(host, 'counter'), 'inst_nope', ''];
});
afterAll(() => host?.close());

describe('public endpoints under fuzzing', () => {
  it("answers with hello's own response or a host 4xx ERR_ code, never a host 5xx", async () => {
    await fuzz(
      fc.asyncProperty(method, fc.nat(), pathSuffix, headers, body, async (verb, which, suffix, extra, payload) => {
        const url = `${host.url}/v1/integrations/hello/installations/${ids[which % ids.length]}${suffix}`;
        const answer = await send(url, {
          method: verb,
          headers: extra,
          body: verb === 'HEAD' || verb === 'GET' ? undefined : payload,
        });
        const where = `${verb} ${url} → ${answer.status}: ${answer.text.slice(0, 200)}`;
        expect(answer.status, where).toBeLessThan(500);
        if (answer.status >= 400 && verb !== 'HEAD' && isHostError(answer)) expectHostVerdict(answer);
        // hello answers 200 {"received":true} to POST and a plain-text 405 to anything else.
        if (answer.status >= 400 && verb !== 'HEAD' && !isHostError(answer))
          expect(answer.text, where).toBe('Method not allowed');
      }),
      // Found by this property: TRACE reached the integration and came back as its 500; an unknown
      // method and an odd Expect got Node's bare 400 / 417 without an ERR_ code.
      {
        numRuns: 200,
        examples: [
          ['TRACE', 0, '', {}, '{}'],
          ['A', 0, '', {}, undefined],
          ['PROPFIND', 0, '', { expect: 'application/json' }, undefined],
        ],
      },
    );
  });

  it(
    'answers malformed and oversized raw HTTP with a 4xx ERR_ ' + 'code (or a normal answer), never a bare status line',
    async () => {
      await fuzz(
        fc.asyncProperty(rawRequest, async (text) => {
          const answer = await sendRaw(host.port, text.replace('/ID', `/${ids[0]}`));
          const where = `${JSON.stringify(text.slice(0, 120))} → ${answer.status}: ${answer.text.slice(0, 200)}`;
          expect(answer.status, where).toBeGreaterThanOrEqual(200);
          expect(answer.status, where).toBeLessThan(500);
          const head = text.startsWith('HEAD ');
          if (answer.status >= 400 && !head && answer.text !== 'Method not allowed') expectHostVerdict(answer);
        }),
        { numRuns: 150 },
      );
    },
  );
});
