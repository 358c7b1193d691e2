// A startup failure (here: the port is taken) leaves nothing behind: no worker processes and no
// open store, and the error names the cause.
import { describe, it, expect } from 'vitest';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { execFileSync } from 'node:child_process';
import { startTestHost } from '../helpers/host.ts';

function workerProcessCount(): number {
  const out = execFileSync('ps', ['-eo', 'ppid,args'], { encoding: 'utf8' });
  return out
    .split('\n')
    .filter((line) => line.trim().startsWith(`${process.pid} `) && line.includes('host/sandbox/worker.ts')).length;
}

describe('startup failure', () => {
  it('stops the workers it started when the port is already taken', async () => {
    const blocker = net.createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as AddressInfo).port;
    try {
      await expect(startTestHost({ port })).rejects.toThrow(/port \d+ is in use: pass --port 0 or stop the other host/);
      const deadline = Date.now() + 30_000; // a bound, not an expectation: a busy machine is slow
      while (workerProcessCount() > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
      expect(workerProcessCount()).toBe(0);
    } finally {
      await new Promise<void>((resolve) => blocker.close(() => resolve()));
    }
  });
});
