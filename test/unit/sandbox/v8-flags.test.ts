// The sandbox workers' V8 flags (v8-flags.ts) are passed to every worker process: each must be one
// the project's Node accepts (an unknown one makes node exit before the worker starts), and none
// may change what guest code can see or do.
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { WORKER_V8_FLAGS } from '../../../host/sandbox/v8-flags.ts';

describe('sandbox worker V8 flags', () => {
  it('are all accepted by the Node that runs the workers', () => {
    const run = spawnSync(process.execPath, ['--no-node-snapshot', ...WORKER_V8_FLAGS, '-e', 'process.exit(0)'], {
      encoding: 'utf8',
    });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
  });

  it('expose nothing to guest code', () => {
    for (const flag of WORKER_V8_FLAGS) expect(flag).not.toMatch(/expose|natives-syntax|allow-|harmony|experimental/);
  });
});
