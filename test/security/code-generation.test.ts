// A guest generating code from strings at scale: eval and new Function still work inside the
// isolate for large sources, a source longer than the isolate accepts (memory limit / 8 characters)
// is refused with an EvalError, endless compilation is stopped by the deadline (504) and code that
// allocates without end by the memory limit (502); the worker process survives all of it, and the
// integration, the host and a neighbour keep answering.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { startTestHost, endpointOf, type TestHost } from '../helpers/host.ts';
import { expectHostHealthy } from '../helpers/host-health.ts';

const MEMORY_LIMIT_MB = 32;
let host: TestHost;
let workers: number[];

const attack = (query: string) => fetch(`${endpointOf(host, 'code-generation')}?${query}`);

beforeAll(async () => {
  // The deadline stops the endless compilation; the memory limit must stop the allocating code
  // first, so the deadline leaves it room on a busy machine. The integration stays on its worker:
  // on the lowest-priority one a busy machine would starve what follows (demotion has its own test).
  host = await startTestHost({
    dirs: ['fixtures/integrations', 'fixtures/hostile'],
    demoteOffenders: false,
    limits: { memoryLimitMb: MEMORY_LIMIT_MB, dispatchTimeoutMs: 3_000 },
  });
  workers = host.supervisor.workerPids();
});
afterAll(() => host?.close());

describe('code generation from strings', () => {
  it('still evaluates a large generated source (1 M characters)', async () => {
    const response = await attack('mode=large&chars=1000000');
    expect(await response.json()).toEqual({ eval: 'value: 42', functionCtor: 'value: 42' });
  });

  it('refuses a source longer than memory limit / 8 characters with an EvalError', async () => {
    const chars = (MEMORY_LIMIT_MB * 1024 * 1024) / 8 + 1024;
    const response = await attack(`mode=over-cap&chars=${chars}`);
    const refused = 'EvalError: Code generation from strings disallowed for this context';
    expect(await response.json()).toEqual({ eval: refused, functionCtor: refused });
  });

  it('stops generated code that allocates without end at the memory limit: 502 ERR_SANDBOX_CRASHED', async () => {
    const response = await attack('mode=bloat');
    expect(response.status).toBe(502);
    expect((await response.json()).error).toEqual({
      code: 'ERR_SANDBOX_CRASHED',
      message: `the integration exceeded its memory limit of ${MEMORY_LIMIT_MB} MB`,
    });
  });

  it('stops endless compilation at the deadline: 504 ERR_SANDBOX_TIMEOUT', async () => {
    const response = await attack('mode=endless');
    expect(response.status).toBe(504);
    expect((await response.json()).error.code).toBe('ERR_SANDBOX_TIMEOUT');
  });

  it('kept every worker process alive and the integration answering', async () => {
    expect(host.supervisor.workerPids()).toEqual(workers);
    expect(await (await attack('mode=ok')).text()).toBe('fine');
  });

  it('leaves the host and its neighbour answering', async () => {
    await expectHostHealthy(host);
  });
});
