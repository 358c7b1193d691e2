// What an integration's isolate executed in its current busy period: the hog report the worker's
// sampler takes, and the evidence a failed dispatch carries that it burned CPU. It only reads
// isolated-vm's cpuTime; it never disposes an isolate nor decides what a reading costs.

import type ivm from 'isolated-vm';
import type { InFlight, Live } from './contract.ts';

export class CpuEvidence {
  /** Where CPU counting of the current busy period started, and whether it was reported as a hog. */
  private busySince: { isolate: ivm.Isolate; ns: bigint } | null = null;
  private hogReported = false;
  /** The latest reading of what the isolate executed in this busy period (ms): kept for when it is gone. */
  private executedReadingMs = 0;
  /** Where that reading counts from: the busy period's start, or where an isolate born within it was installed. */
  private evidenceBase: { isolate: ivm.Isolate; ns: bigint } | null = null;
  private readonly inFlight: ReadonlySet<InFlight>;
  private readonly draining: ReadonlySet<string>;
  /** The isolate's live state now (null while none is live). */
  private readonly current: () => Live | null;

  /** `inFlight` and `draining` are the isolate's own sets (read only here). */
  constructor(inFlight: ReadonlySet<InFlight>, draining: ReadonlySet<string>, current: () => Live | null) {
    this.inFlight = inFlight;
    this.draining = draining;
    this.current = current;
  }

  /**
   * Milliseconds this integration's isolate has spent executing since it last became busy, if it
   * passed `thresholdMs` and was not reported yet in this busy period; null otherwise. Read from
   * the worker's thread while the isolate runs (isolated-vm's cpuTime: time spent executing in
   * the isolate, not waiting on host calls).
   */
  takeHogReport(thresholdMs: number): number | null {
    const live = this.current();
    if (
      live === null ||
      live.isolate.isDisposed ||
      this.hogReported ||
      (this.inFlight.size === 0 && this.draining.size === 0)
    )
      return null;
    let executedNs: bigint;
    try {
      executedNs = live.isolate.cpuTime;
    } catch {
      return null;
    }
    this.noteExecuted(live.isolate, executedNs);
    // The first sample of a busy period whose isolate was still starting sets its baseline.
    if (this.busySince === null || this.busySince.isolate !== live.isolate) {
      this.busySince = { isolate: live.isolate, ns: executedNs };
      return null;
    }
    const ms = Number(executedNs - this.busySince.ns) / 1e6;
    if (ms < thresholdMs) return null;
    this.hogReported = true;
    return Math.round(ms);
  }

  /**
   * Milliseconds the isolate executed in the current busy period, read now while it is live; once
   * it is gone (the deadline or the memory limit disposed it) the last reading (the hog sampler's,
   * at most 100 ms old, or the deadline's own). An isolate born in this busy period counts from
   * when it was installed, its bundle's top level run: building the realm is the host's work, and
   * on a starved worker it would look like the guest's. The supervisor's evidence that a failure
   * burned CPU rather than waited.
   */
  executedMs(): number {
    const live = this.current();
    if (live === null || live.isolate.isDisposed) return Math.round(this.executedReadingMs);
    try {
      this.noteExecuted(live.isolate, live.isolate.cpuTime);
    } catch {
      // Disposed meanwhile: the last reading stands.
    }
    return Math.round(this.executedReadingMs);
  }

  private noteExecuted(isolate: ivm.Isolate, ns: bigint): void {
    // An isolate seen for the first time counts from here: no evidence without a baseline.
    if (this.evidenceBase === null || this.evidenceBase.isolate !== isolate) this.evidenceBase = { isolate, ns };
    this.executedReadingMs = Number(ns - this.evidenceBase.ns) / 1e6;
  }

  /** A new busy period: CPU is counted from here for takeHogReport. */
  startBusyPeriod(): void {
    this.hogReported = false;
    this.executedReadingMs = 0;
    const live = this.current();
    try {
      this.busySince =
        live !== null && !live.isolate.isDisposed ? { isolate: live.isolate, ns: live.isolate.cpuTime } : null;
    } catch {
      this.busySince = null;
    }
    this.evidenceBase = this.busySince;
  }

  /** A new isolate was installed: what it executes counts from here (its realm was the host's work). */
  installed(live: Live): void {
    try {
      this.evidenceBase = { isolate: live.isolate, ns: live.isolate.cpuTime };
    } catch {
      this.evidenceBase = null;
    }
  }
}
