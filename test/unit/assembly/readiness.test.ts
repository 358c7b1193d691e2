// The readiness verdict: ready only while the store answers in time, every sandbox worker is up
// and the host is not shutting down; each failing check is named, without internal messages.
import { describe, expect, it, vi } from 'vitest';
import { createReadiness, type ReadinessSources } from '../../../host/assembly/readiness.ts';

const sources = (overrides: Partial<ReadinessSources> = {}): ReadinessSources => ({
  ping: async () => {},
  workersUp: () => ({ up: 3, total: 3 }),
  shuttingDown: () => false,
  ...overrides,
});

describe('readiness', () => {
  it('is ready when the store answers, every worker is up and the host serves', async () => {
    expect(await createReadiness(sources())()).toEqual({
      ready: true,
      checks: { store: 'ok', workers: '3 of 3 sandbox workers up', host: 'serving' },
    });
  });

  it('is not ready while the store is unreachable, and does not pass on its error', async () => {
    const verdict = await createReadiness(
      sources({ ping: async () => Promise.reject(new Error('connect ECONNREFUSED 10.0.0.5:5432')) }),
    )();
    expect(verdict).toEqual({
      ready: false,
      checks: { store: 'unreachable', workers: '3 of 3 sandbox workers up', host: 'serving' },
    });
  });

  it('is not ready when the store does not answer within 2 s', async () => {
    vi.useFakeTimers();
    try {
      const pending = createReadiness(sources({ ping: () => new Promise(() => {}) }))();
      await vi.advanceTimersByTimeAsync(2_000);
      expect(await pending).toMatchObject({ ready: false, checks: { store: 'no answer within 2000 ms' } });
    } finally {
      vi.useRealTimers();
    }
  });

  it('is not ready while a worker is down or the host is shutting down', async () => {
    expect(await createReadiness(sources({ workersUp: () => ({ up: 2, total: 3 }) }))()).toMatchObject({
      ready: false,
      checks: { workers: '2 of 3 sandbox workers up' },
    });
    expect(await createReadiness(sources({ shuttingDown: () => true }))()).toMatchObject({
      ready: false,
      checks: { host: 'shutting down' },
    });
  });
});
