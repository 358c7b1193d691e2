// The sandbox limits the isolate-level tests start from: small and strict, with no warm pool;
// each test overrides what it is about (a deadline, a pool, a memory limit).
import type { SandboxLimits } from '../../../host/sandbox/messages.ts';

export function sandboxTestLimits(overrides: Partial<SandboxLimits> = {}): SandboxLimits {
  return {
    memoryLimitMb: 64,
    dispatchTimeoutMs: 10_000,
    waitUntilTimeoutMs: 1_000,
    streamTimeoutMs: 1_000,
    maxFetchesPerDispatch: 5,
    maxResponseBytes: 1024 * 1024,
    maxFetchResponseBytes: 1024 * 1024,
    maxLogLineBytes: 1024,
    maxLogLinesPerDispatch: 10,
    maxLogBytesPerDispatch: 64 * 1024,
    hogCpuMs: 60_000,
    maxLiveIsolatesPerWorker: 10,
    warmIsolatesPerWorker: 0,
    ...overrides,
  };
}
