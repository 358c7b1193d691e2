// Fuzzes the render route end to end: the fuzz-echo fixture (test/fixtures/fuzz-render) renders
// whatever tree it is sent, so the host must judge it exactly as validateRenderOutput judges the
// answer (the validator is itself fuzzed against targeted defects in contentkit-validate.test.ts):
// a valid tree 200 as rendered, anything else 422 ERR_CONTENTKIT_INVALID with the validator's
// errors; never 500, never an invalid tree passed on. Seed and replay: see fuzz-assert.ts.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { ADMIN_TOKEN, installationOf, startTestHost, type TestHost } from '../helpers/host.ts';
import { brokenTree, invalidTree, validTree } from './arbitraries/contentkit.ts';
import { validateRenderOutput } from '../../host/contentkit/validate.ts';
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

/**
 * The answer the render route owes when the echo renders `tree` from state `{ tree }` with no props:
 * what validateRenderOutput says about the answer the echo gives (sandbox-api's own shape).
 */
function expectJudged(tree: unknown, answer: Answer): void {
  const where = `status ${answer.status}: ${answer.text.slice(0, 300)}`;
  const verdict = validateRenderOutput({ type: 'element', element: tree, state: { tree }, props: {} });
  if (verdict.valid) {
    expect(answer.status, where).toBe(200);
    expect(answer.json.type, where).toBe('element');
    expect(answer.json.element, where).toEqual(tree);
    return;
  }
  expect(answer.status, where).toBe(422);
  expect(answer.json?.error?.code, where).toBe('ERR_CONTENTKIT_INVALID');
  expect(answer.json.error.details, where).toEqual(verdict.errors);
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

  it('refuses every tree with a targeted defect: 422 ERR_CONTENTKIT_INVALID naming the defect', async () => {
    await fuzz(
      fc.asyncProperty(brokenTree, async ({ tree, defect, pointer }) => {
        const answer = await render({ componentId: 'echo', state: { tree } });
        expect(answer.status, `${defect}: ${answer.text.slice(0, 300)}`).toBe(422);
        expect(answer.json.error.code).toBe('ERR_CONTENTKIT_INVALID');
        expect(
          answer.json.error.details.map((detail: { pointer: string }) => detail.pointer),
          defect,
        ).toContain(`/element${pointer}`);
      }),
      { numRuns: 100 },
    );
  });

  it('judges mutated trees and random values as the validator does: 200 as rendered or 422, never 500', async () => {
    await fuzz(
      fc.asyncProperty(fc.oneof(invalidTree, jsonish(3)), async (tree) => {
        expectJudged(tree, await render({ componentId: 'echo', state: { tree } }));
      }),
      { numRuns: 200 },
    );
  });

  it('answers fuzzed render request bodies with 2xx or a 4xx ERR_ code', async () => {
    const body = fc.oneof(
      jsonish(3),
      fc.record(
        {
          componentId: fc.oneof(fc.constant('echo'), fc.string({ maxLength: 8 }), jsonish(1)),
          props: jsonish(2),
          state: jsonish(2),
          action: jsonish(2),
          context: jsonish(2),
        },
        { requiredKeys: [] },
      ),
    );
    await fuzz(
      fc.asyncProperty(body, async (value) => {
        const answer = await render(value);
        const where = `status ${answer.status}: ${answer.text.slice(0, 300)}`;
        const request = value as { props?: unknown; state?: { tree?: unknown } } | null;
        const tree = request?.state?.tree;
        // The echo renders state.tree: an answer is judged like any tree (with no props sent, its
        // answer is the one expectJudged rebuilds); no tree at all is an element answer without
        // an element, a bad response.
        if ((answer.status === 200 || answer.status === 422) && request?.props === undefined)
          return expectJudged(tree, answer);
        if (answer.status === 422) expect(answer.json?.error?.code, where).toBe('ERR_CONTENTKIT_INVALID');
        if (answer.status === 502) {
          expect(answer.json?.error?.code, where).toBe('ERR_SANDBOX_BAD_RESPONSE');
          expect(tree, where).toBeUndefined();
          return;
        }
        expect(answer.status, where).toBeLessThan(500);
        if (answer.status >= 400) expect(answer.json?.error?.code).toMatch(/^ERR_/);
      }),
      { numRuns: 150 },
    );
  });
});
