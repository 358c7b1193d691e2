// The helpers run through npm scripts with the project's Node (plain `node` may be too old for
// .ts files): `npm run receiver -- --secret …` listens, explains a missing secret in one line, and
// `npm run provider` serves the loopback OAuth provider (or says in one line that its port is taken).
import { spawn, spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

function npmRun(args: string[]) {
  // Its own process group, so stopping it stops npm's child too (by the group's id).
  const child = spawn('npm', ['run', '--silent', ...args], { detached: true, env: { ...process.env } });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    output: () => out,
    until(pattern: RegExp, timeoutMs = 30_000) {
      return new Promise<RegExpMatchArray>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`${pattern} not seen:\n${out}`)), timeoutMs);
        const check = () => {
          const match = out.match(pattern);
          if (match) {
            clearTimeout(timer);
            resolve(match);
          }
        };
        child.stdout.on('data', check);
        child.stderr.on('data', check);
        void exited.then(check);
        check();
      });
    },
    async stop() {
      try {
        process.kill(-child.pid!, 'SIGTERM');
      } catch {
        // already gone
      }
      await exited;
    },
  };
}

describe('npm scripts for the helpers', () => {
  it('npm run receiver -- --secret S serves the sample receiver', async () => {
    const run = npmRun(['receiver', '--', '--secret', 'test-secret', '--port', '0']);
    try {
      const url = (await run.until(/webhook receiver listening on (http:\/\/127\.0\.0\.1:\d+)/))[1];
      const answer = await fetch(`${url}/hooks`, { method: 'POST', body: '{}' });
      expect(answer.status).toBe(401);
      expect(await answer.json()).toEqual({ error: 'invalid signature: missing_header' });
    } finally {
      await run.stop();
    }
  }, 40_000);

  it('npm run receiver without --secret says what is missing, in one line plus usage', () => {
    const run = spawnSync('npm', ['run', '--silent', 'receiver'], {
      encoding: 'utf8',
      env: { ...process.env, WEBHOOK_SECRET: '' },
    });
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(
      new RegExp(
        /^error: --secret is required: the signingSecret the host returned when the webhook was installed\n/.source +
          /usage: npm run receiver -- --secret/.source,
      ),
    );
  }, 40_000);

  it('npm run provider serves the loopback OAuth provider on its dev port', async () => {
    const run = npmRun(['provider']);
    try {
      const seen = await run.until(/OAuth test provider: authorize ([^\s,]+)|error: port 8788 is in use/);
      // Another provider may already hold the port on a shared machine; then the one-line error is the behaviour under
      // test.
      if (seen[1] !== undefined) expect(seen[1]).toBe('http://127.0.0.1:8788/authorize');
      expect(run.output()).not.toMatch(/ERR_UNKNOWN_FILE_EXTENSION|\n\s+at /);
    } finally {
      await run.stop();
    }
  }, 40_000);
});
