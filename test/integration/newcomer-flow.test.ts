// The "done when", as a newcomer runs it from a fresh folder: npm run new -- greeter,
// npm run dev, edit the script and see the change on the next request without a restart, see a
// thrown error as src/index.ts:<line>, follow npm run logs -- greeter, and list installations.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli, type CliProcess } from '../helpers/cli.ts';
import { TempDirs } from '../unit/manifest/temp-integration.ts';

const REPO = path.resolve(import.meta.dirname, '../..');
const temp = new TempDirs();
const cwd = temp.make();
const env = { ...process.env, HOST_ADMIN_TOKEN: '' };
const running: CliProcess[] = [];

afterAll(async () => {
  for (const process of running) await process.stop();
  temp.cleanup();
});

async function eventually<T>(read: () => Promise<T>, accept: (value: T) => boolean, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (accept(value)) return value;
    if (Date.now() > deadline) throw new Error(`not reached within ${timeoutMs} ms: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('a newcomer’s first integration', () => {
  it('goes from npm run new to a live edit, a mapped stack trace, live logs and the installation list', async () => {
    const made = runCli(['new', 'greeter'], { cwd, env });
    expect(await made.exited).toBe(0);
    const script = path.join(cwd, 'integrations/greeter/src/index.ts');

    const dev = runCli(
      [
        'dev',
        '--port',
        '0',
        '--data',
        ':memory:',
        '--workers',
        '1',
        '--platform',
        path.join(REPO, 'fixtures/platform.yaml'),
      ],
      { cwd, env },
    );
    running.push(dev);
    const endpoint = (await dev.waitFor(/^greeter\s+ready\s+(http:\/\/\S+)/m, 60_000))[1];
    const token = (await dev.waitFor(/^admin token: (\S+)/m))[1];
    const url = (await dev.waitFor(/listening on (http:\/\/\S+)/))[1];
    await dev.waitFor(/watching integrations for changes/);
    expect(await (await fetch(`${endpoint}?name=you`)).json()).toEqual({ message: 'Hello, you!' });

    const logs = runCli(['logs', 'greeter'], { cwd, env });
    running.push(logs);
    await logs.waitFor(/following greeter on http/);

    // Edit: the next request gets the new code, no restart.
    writeFileSync(
      script,
      readFileSync(script, 'utf8').replace('return `Hello, ${name}!`;', 'return `Howdy, ${name}!`;'),
    );
    const edited = await eventually(
      async () => (await fetch(`${endpoint}?name=you`)).json(),
      (body) => body.message !== 'Hello, you!',
    );
    expect(edited).toEqual({ message: 'Howdy, you!' });

    // A thrown error, shown at its line in src/index.ts.
    const source = readFileSync(script, 'utf8').replace(
      "const name = new URL(request.url).searchParams.get('name') ?? 'world';",
      "const name = new URL(request.url).searchParams.get('name') ?? 'world';\n      if (name === 'boom') throw " +
        "new Error('greeter exploded');",
    );
    writeFileSync(script, source);
    const line = source.split('\n').findIndex((text) => text.includes("throw new Error('greeter exploded')")) + 1;
    const column = source.split('\n')[line - 1].indexOf('new Error') + 1;
    await eventually(
      async () => (await fetch(`${endpoint}?name=boom`)).status,
      (status) => status === 500,
    );
    await logs.waitFor(
      new RegExp(`Error: greeter exploded\\n\\s+at Object\\.fetch \\(src/index\\.ts:${line}:${column}\\)`),
    );
    await logs.waitFor(
      /greeter inst_\w+ fetch 200 \d+ ms evt_\w+ req=\S+\n {2}log {3}greeting you for installation inst_\w+/,
    );

    // What exists: the installation list.
    const listed = await (
      await fetch(`${url}/v1/installations?integration=greeter`, { headers: { authorization: `Bearer ${token}` } })
    ).json();
    expect(listed.items.map((item: { urls: { publicEndpoint: string } }) => item.urls.publicEndpoint)).toEqual([
      endpoint,
    ]);
    expect(listed.nextCursor).toBeNull();
  }, 120_000);
});
