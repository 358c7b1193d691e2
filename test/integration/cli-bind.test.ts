// `--bind`: a host started on another loopback address listens there (API and console), prints
// that address, and does not answer on 127.0.0.1; a bad address stops it with one line naming the flag.
import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.ts';

const ARGS = [
  '--port',
  '0',
  '--data',
  ':memory:',
  '--workers',
  '1',
  '--no-auto-install',
  '--dir',
  'fixtures/integrations',
];

/** Whether a TCP connection to host:port is refused (nothing listens there). */
function refused(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    socket.once('connect', () => (socket.destroy(), resolve(false)));
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code === 'ECONNREFUSED'));
  });
}

/** Whether this machine can listen on `address` at all (IPv6 may be off in a container). */
function canListen(address: string): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = connect({ host: address, port: 9 });
    probe.once('connect', () => (probe.destroy(), resolve(true)));
    probe.once('error', (error: NodeJS.ErrnoException) => resolve(error.code === 'ECONNREFUSED'));
  });
}

describe.each([
  { address: '127.0.0.2', urlHost: '127.0.0.2', other: '127.0.0.1' },
  { address: '::1', urlHost: '[::1]', other: '127.0.0.1' },
])('--bind $address', ({ address, urlHost, other }) => {
  it('listens there, API and console, and not on another loopback address', async (context) => {
    if (!(await canListen(address))) context.skip(`${address} is not usable on this machine`);
    const run = runCli(['host', ...ARGS, '--bind', address]);
    try {
      const url = (await run.waitFor(/listening on (http:\/\/\S+)/, 40_000))[1];
      const consoleUrl = (await run.waitFor(/console on (http:\/\/\S+)\/console/))[1];
      const pattern = new RegExp(`^http://${urlHost.replace(/[[\].]/g, '\\$&')}:\\d+$`);
      expect(url).toMatch(pattern);
      expect(consoleUrl).toMatch(pattern);
      const ready = await fetch(`${url}/ready`);
      expect(ready.status).toBe(200);
      expect((await fetch(`${consoleUrl}/console`)).status).toBe(200);
      expect(await refused(other, Number(new URL(url).port))).toBe(true);
    } finally {
      expect(await run.stop()).toBe(0);
    }
  }, 60_000);
});

describe('--bind with an address that is not an IP literal', () => {
  it('stops with one line naming --bind, before opening anything', async () => {
    const run = runCli(['host', ...ARGS, '--bind', 'example.com']);
    expect(await run.exited).toBe(1);
    expect(run.stderr).toBe(
      'error: invalid host options: --bind (host) expects an IP address or "localhost", got "example.com"\n',
    );
  }, 40_000);
});
