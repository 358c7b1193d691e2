// The V8 flags of a sandbox worker process (its own isolate and every guest isolate it creates):
// chosen for memory per live isolate (docs/performance.md#where-a-live-isolates-memory-goes).
// Never a flag that changes what guest code can see or do (no --expose-*, no --allow-natives-syntax).

/**
 * Optimizing compiles (Maglev, TurboFan) run on the isolate's own thread instead of a background
 * one. A concurrent compile that finishes after an isolate went idle is only installed, and its
 * compiler memory (~0.3 MB) freed, the next time that isolate runs a hot loop, which an idle one
 * never does: every isolate whose start tiered up its hardening walk kept one.
 */
export const WORKER_V8_FLAGS: readonly string[] = ['--no-concurrent-recompilation'];
