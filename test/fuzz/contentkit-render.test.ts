// Fuzzes the render route end to end: the fuzz-echo fixture (test/fixtures/fuzz-render) renders
// whatever tree it is sent, so the host must judge it: 200, 422 ERR_CONTENTKIT_INVALID or 502
// ERR_SANDBOX_BAD_RESPONSE, never 500. Seed and replay: see fuzz-assert.ts.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { ADMIN_TOKEN, installationOf, startTestHost, type TestHost } from '../helpers/host.ts';
import { invalidTree, validTree } from './arbitraries/contentkit.ts';
import { jsonish } from './arbitraries/json.ts';
import { send, type Answer } from './assertions.ts';
import { fuzz } from './fuzz-assert.ts';

let host: TestHost;
let installationId: string;

beforeAll(async () => {
  host = await startTestHost({ dirs: ['test/fixtures/fuzz-render'], workers: 1 });
  installationId = installationOf(host, 'fuzz-echo');
});
afterAll(() => host?.close());

function render(body: unknown): Promise<Answer> {
  return send(`${host.url}/v1/installations/${installationId}/render`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

function expectJudged(answer: Answer): void {
  const where = `status ${answer.status}: ${answer.text.slice(0, 300)}`;
  if (answer.status === 200) return void expect(answer.json.type, where).toBe('element');
  const expected: Record<number, string> = { 422: 'ERR_CONTENTKIT_INVALID', 502: 'ERR_SANDBOX_BAD_RESPONSE' };
  expect(expected[answer.status], where).toBeDefined();
  expect(answer.json?.error?.code, where).toBe(expected[answer.status]);
}

describe('POST /v1/installations/:id/render with fuzzed component output', () => {
  it('returns a valid tree as rendered', async () => {
    await fuzz(
      fc.asyncProperty(validTree, async (tree) => {
        const answer = await render({ componentId: 'echo', state: { tree } });
        expect(answer.status, answer.text.slice(0, 300)).toBe(200);
        expect(answer.json.element).toEqual(tree);
      }),
      { numRuns: 100 },
    );
  });

  it('judges invalid trees and random values: 422 ERR_CONTENTKIT_INVALID or 502, never 500', async () => {
    await fuzz(
      fc.asyncProperty(fc.oneof(invalidTree, jsonish(3)), async (tree) => {
        expectJudged(await render({ componentId: 'echo', state: { tree } }));
      }),
      { numRuns: 200 },
    );
  });

  it('answers fuzzed render request bodies with 2xx or a 4xx ERR_ code', async () => {
    const body = fc.oneof(
      jsonish(3),
      fc.record(
        { componentId: fc.oneof(fc.constant('echo'), fc.string({ maxLength: 8 }), jsonish(1)), props: jsonish(2), state: jsonish(2), action: jsonish(2), context: jsonish(2) },
        { requiredKeys: [] },
      ),
    );
    await fuzz(
      fc.asyncProperty(body, async (value) => {
        const answer = await render(value);
        if (answer.status === 422 || answer.status === 502) return expectJudged(answer);
        expect(answer.status, answer.text.slice(0, 300)).toBeLessThan(500);
        if (answer.status >= 400) expect(answer.json?.error?.code).toMatch(/^ERR_/);
      }),
      { numRuns: 150 },
    );
  });
});
