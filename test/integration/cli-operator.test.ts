// What an operator sees when starting the host: a port already in use is one line with the fix
// (never a stack trace), an unusable store file likewise, and after a restart the startup table
// lists every installation of every integration, not only the first.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.ts';

const TOKEN = 'operator-test-token-0123456789';
const dir = mkdtempSync(join(tmpdir(), 'ih-operator-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('operator errors', () => {
  it('names a taken port and the fix in one line, without a stack trace', async () => {
    const blocker = net.createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as AddressInfo).port;
    try {
      const run = runCli(['host', '--port', String(port), '--data', ':memory:', '--workers', '1']);
      expect(await run.exited).toBe(1);
      expect(run.stderr).toBe(`error: port ${port} is in use: pass --port 0 or stop the other host\n`);
      expect(run.out).not.toMatch(/\bat .*\.ts:\d+/);
    } finally {
      await new Promise<void>((resolve) => blocker.close(() => resolve()));
    }
  }, 40_000);

  it('names a store file that is not a database and the --data fix in one line', async () => {
    const file = join(dir, 'not-a-database.db');
    writeFileSync(file, 'this is not a database '.repeat(40));
    const run = runCli(['host', '--port', '0', '--data', file, '--workers', '1']);
    expect(await run.exited).toBe(1);
    expect(run.stderr).toBe(
      `error: cannot open the store "${file}" (file is not a database): pass --data with a writable file path, or ` +
        `--data :memory: for a throwaway store\n`,
    );
  }, 40_000);

  it('names an integrations folder that does not exist and the --dir fix', async () => {
    const run = runCli(['host', '--port', '0', '--data', ':memory:', '--workers', '1', '--dir', join(dir, 'missing')]);
    expect(await run.exited).toBe(1);
    expect(run.stderr).toMatch(
      new RegExp(
        /^error: integrations folder ".*missing" cannot be read \(ENOENT\): /.source +
          /pass --dir with a folder that holds integrations\n$/.source,
      ),
    );
  }, 40_000);
});

describe('the startup table after a restart', () => {
  it('lists every installation, space and webhook ones included', async () => {
    const data = join(dir, 'host.db');
    const env = { ...process.env, HOST_ADMIN_TOKEN: TOKEN };
    const args = ['host', '--port', '0', '--data', data, '--workers', '1', '--dir', 'fixtures/integrations'];
    const first = runCli(args, { env });
    const url = (await first.waitFor(/listening on (http:\/\/\S+)/))[1];
    const create = async (integration: string, body: Record<string, unknown>) => {
      const answer = await fetch(`${url}/v1/integrations/${integration}/installations`, {
        method: 'POST',
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      expect(answer.status).toBe(201);
      return (await answer.json()).id as string;
    };
    const space = await create('hello', { organization: 'acme', target: 'space', space: 'space_acme_docs' });
    const webhook = await create('host:webhook', { organization: 'acme', target: 'site', site: 'site_acme' });
    expect(await first.stop()).toBe(0);

    const second = runCli(args, { env });
    try {
      await second.waitFor(/listening on/);
      const lines = second.stdout.split('\n');
      const hello = lines.findIndex((line) => /^hello\s+ready\s+http/.test(line));
      expect(lines[hello]).toMatch(/installations\/inst_\w+  \(organization acme, active\)$/);
      expect(lines[hello + 1]).toMatch(
        new RegExp(
          `^\\s+http://127\\.0\\.0\\.1:\\d+/v1/integrations/hello/installations/${space}  \\(space ` +
            `space_acme_docs, active\\)$`,
        ),
      );
      expect(second.stdout).toMatch(
        new RegExp(`^host:webhook\\s+ready\\s+${webhook}  \\(site site_acme, pending; built in\\)$`, 'm'),
      );
    } finally {
      await second.stop();
    }
  }, 60_000);
});
