// Fuzzes `PATCH /v1/installations/:id/configuration` through the real host for installations with
// every property type (settings-demo) and the built-in webhook: 200, or a 4xx ERR_ code with the
// stored configuration unchanged (GET before and after). Seed and replay: see fuzz-assert.ts.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { ADMIN_TOKEN, startTestHost, type TestHost } from '../helpers/host.ts';
import { install } from '../helpers/lifecycle.ts';
import { configurationPatch, notAnObject } from './arbitraries/configuration.ts';
import { expectHostVerdict, JSON_POINTER, send, type Answer } from './assertions.ts';
import { fuzz } from './fuzz-assert.ts';

let host: TestHost;
const installations: string[] = [];
const headers = { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' };

beforeAll(async () => {
  host = await startTestHost({
    dirs: ['test/fixtures/lifecycle'],
    autoInstall: false,
    workers: 1,
    env: { ...process.env, SETTINGS_DEMO_API_KEY: 'fuzz' },
  });
  const targets: [string, Record<string, unknown>][] = [
    ['settings-demo', { organization: 'acme', target: 'space', space: 'space_acme_docs' }],
    ['settings-demo', { organization: 'acme', target: 'organization' }],
    ['host:webhook', { organization: 'acme', target: 'space', space: 'space_acme_docs' }],
  ];
  for (const [integration, body] of targets) {
    const created = await install(host, integration, body);
    expect(created.status, JSON.stringify(created.json)).toBe(201);
    installations.push(created.json.id);
  }
});
afterAll(() => host?.close());

/** Button URLs carry a connect ticket minted per view (it holds its expiry): compare without it. */
function withoutTickets(answer: Answer): Answer {
  const buttons = answer.json?.urls?.buttons;
  if (buttons === undefined) return answer;
  const bare = Object.fromEntries(
    Object.entries(buttons as Record<string, string>).map(([name, url]) => [name, url.split('?ticket=')[0]]),
  );
  return { ...answer, json: { ...answer.json, urls: { ...answer.json.urls, buttons: bare } } };
}

const read = async (id: string): Promise<Answer> =>
  withoutTickets(await send(`${host.url}/v1/installations/${id}`, { headers }));
const patch = async (id: string, body: unknown): Promise<Answer> =>
  withoutTickets(
    await send(`${host.url}/v1/installations/${id}/configuration`, {
      method: 'PATCH',
      headers,
      body: JSON.stringify(body),
    }),
  );

describe('PATCH /v1/installations/:id/configuration with fuzzed bodies', () => {
  it('answers 200 with the patch applied, or 400/422 with an ERR_ code and nothing stored', async () => {
    await fuzz(
      fc.asyncProperty(configurationPatch, async (body) => {
        for (const id of installations) {
          const before = await read(id);
          const answer = await patch(id, body);
          expectHostVerdict(answer);
          const after = await read(id);
          if (answer.status === 200) {
            expect(after.json).toEqual(answer.json);
            for (const [name, value] of Object.entries(body)) {
              if (value !== null)
                expect(Object.hasOwn(after.json.configuration, name) && after.json.configuration[name], name).toEqual(
                  value,
                );
            }
          } else {
            expect([400, 422], answer.text).toContain(answer.status);
            for (const detail of answer.json.error.details ?? [])
              expect(detail.pointer, answer.text).toMatch(JSON_POINTER);
            expect(after.json).toEqual(before.json);
          }
        }
      }),
      // Found by this property: "__proto__" became the merged configuration's prototype (webhook
      // installation active with an empty configuration); "~" came back as the pointer "/~".
      {
        numRuns: 150,
        examples: [
          [JSON.parse('{"__proto__":{"url":"https://hooks.example.com/in","events":["space_content_updated"]}}')],
          [{ '~': 'general' }],
        ],
      },
    );
  });

  it('refuses bodies that are not JSON objects with 400 ERR_VALIDATION', async () => {
    await fuzz(
      fc.asyncProperty(notAnObject, async (body) => {
        const answer = await patch(installations[0], body);
        expect(answer.status, answer.text).toBe(400);
        expect(answer.json.error.code).toBe('ERR_VALIDATION');
      }),
      { numRuns: 50 },
    );
  });
});
