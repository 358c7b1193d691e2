// A guest's error in the author's terms: an uncaught error, console.error(err) and a throwing top
// level show `src/index.ts:<line>:<column>` (and `src/lib/…` for imported files) in the event log and
// the host log, with no host path anywhere.
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { endpointOf, startTestHost, type TestHost } from '../helpers/host.ts';
import { TempDirs } from '../unit/manifest/temp-integration.ts';

const SCRIPT = [
  "import { createIntegration } from 'sandbox-api';",
  "import { validate } from './lib/validate.ts';",
  '',
  'export default createIntegration({',
  '  async fetch(request) {',
  "    const error = new Error('greeter broke');",
  "    if (new URL(request.url).searchParams.has('log')) {",
  '      console.error(error);',
  '      return Response.json({ logged: true });',
  '    }',
  "    if (new URL(request.url).searchParams.has('deep')) validate('');",
  '    throw error;',
  '  },',
  '});',
  '',
].join('\n');
const LIB =
  "export function validate(name: string): void {\n  if (name === '') throw new TypeError('name is empty');\n}\n";
const BOOT =
  "import { createIntegration } from 'sandbox-api';\nconst ready: boolean = false;\nif (!ready) throw new " +
  "RangeError('not configured');\nexport default createIntegration({ fetch: () => new Response('never') });\n";
const MANIFEST = (name: string) =>
  `name: ${name}\ntitle: T\ndescription: D.\norganization: acme\nvisibility: public\nscopes: []\nscript: ` +
  `src/index.ts\n`;

const temp = new TempDirs();
const REPO = path.resolve(import.meta.dirname, '../..');
let root: string;
let host: TestHost;

/** 1-based column of `needle` on 1-based `line` of `text`. */
function columnOf(text: string, line: number, needle: string): number {
  return text.split('\n')[line - 1].indexOf(needle) + 1;
}

/** The newest event-log entry matching `predicate`, polling until it is there. */
async function entryFor(integration: string, predicate: (entry: any) => boolean): Promise<any> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const found = (await (await host.admin(`/v1/integrations/${integration}/events`)).json()).items.find(predicate);
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error(`no matching entry of ${integration}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

beforeAll(async () => {
  root = temp.make({
    'greeter/platform-manifest.yaml': MANIFEST('greeter'),
    'greeter/src/index.ts': SCRIPT,
    'greeter/src/lib/validate.ts': LIB,
    'boot/platform-manifest.yaml': MANIFEST('boot'),
    'boot/src/index.ts': BOOT,
  });
  host = await startTestHost({ dirs: [root], cacheDir: path.join(root, '.cache') });
}, 60_000);

afterAll(async () => {
  await host?.close();
  temp.cleanup();
});

function expectNoHostPath(text: string): void {
  expect(text).not.toContain(root);
  expect(text).not.toContain(REPO);
  expect(text).not.toContain('file:');
  expect(text).not.toMatch(/integration:greeter:\d/);
}

describe('guest stack traces', () => {
  const at = `src/index.ts:6:${columnOf(SCRIPT, 6, 'new Error')}`;

  it('show an uncaught error at its line in src/index.ts, in the event log and the host log', async () => {
    const answer = await fetch(endpointOf(host, 'greeter'));
    expect(answer.status).toBe(500);
    const entry = await entryFor('greeter', (item) => item.type === 'fetch' && item.status === 500);
    const text = entry.logs.map((log: { text: string }) => log.text).join('\n');
    expect(text).toContain(`Error: greeter broke\n    at Object.fetch (${at})`);
    expectNoHostPath(JSON.stringify(entry));
    const hostLine = host.logs.find((line) => line.includes(entry.eventId))!;
    expect(hostLine).toContain(`at Object.fetch (${at})`);
    expectNoHostPath(hostLine);
  });

  it('show console.error(err) the same way, and frames in imported files by their own path', async () => {
    await fetch(`${endpointOf(host, 'greeter')}?log=1`);
    const logged = await entryFor('greeter', (item) => item.status === 200);
    expect(logged.logs[0].text).toMatch(
      new RegExp(`^Error: greeter broke\\n    at Object\\.fetch \\(${at.replaceAll('.', '\\.')}\\)`),
    );
    await fetch(`${endpointOf(host, 'greeter')}?deep=1`);
    const deep = await entryFor('greeter', (item) =>
      item.logs.some((log: { text: string }) => log.text.includes('name is empty')),
    );
    const text = deep.logs.map((log: { text: string }) => log.text).join('\n');
    expect(text).toContain(
      `TypeError: name is empty\n    at validate ` +
        `(src/lib/validate.ts:2:${columnOf(LIB, 2, 'new TypeError')})\n    at Object.fetch (src/index.ts:11:`,
    );
    expect(text).toMatch(/at handleFetch \(sandbox-api\/index\.ts:\d+:\d+\)/);
    expectNoHostPath(text);
  });

  it('show a throwing top level at its line, without the worker’s frames', async () => {
    const answer = await fetch(endpointOf(host, 'boot'));
    expect(answer.status).toBe(502);
    const entry = await entryFor('boot', (item) => item.type === 'fetch');
    expect(entry.logs[0].text).toBe(
      `integration failed to start: RangeError: not configured\n    at ` +
        `src/index.ts:3:${columnOf(BOOT, 3, 'new RangeError')}`,
    );
    expectNoHostPath(JSON.stringify(entry));
    expect(JSON.stringify(entry)).not.toMatch(/isolate\.ts|isolated-vm/);
  });
});
