// Keeps live isolates spread over the workers: the supervisor's view of which integrations are
// live in which worker, and where a cold integration should start. An integration moves only when
// it has no live isolate (moving it costs nothing) and its worker has recently had to evict for
// lack of memory while another has room, so placement never churns on a host within its budget.
// Pure apart from the injectable clock.

/** How long a worker counts as full after it evicted an isolate to stay within its budget. */
const PRESSURE_MS = 30_000;

export class Placement {
  private readonly live: Set<string>[];
  private readonly pressureUntil: number[];
  private readonly regular: number;
  private readonly now: () => number;

  /** `regular` workers take part; others (the offenders' worker) are tracked but never chosen. */
  constructor(workers: number, regular: number, now: () => number = () => performance.now()) {
    this.live = Array.from({ length: workers }, () => new Set<string>());
    this.pressureUntil = Array.from({ length: workers }, () => 0);
    this.regular = regular;
    this.now = now;
  }

  /** A dispatch of `integration` succeeded in `worker`: its isolate is live there. */
  started(worker: number, integration: string): void {
    this.live[worker]?.add(integration);
  }

  /** The worker disposed the integration's isolate; `evicted` marks the worker as full for a while. */
  disposed(worker: number, integration: string, evicted: boolean): void {
    this.live[worker]?.delete(integration);
    if (evicted && worker < this.pressureUntil.length) this.pressureUntil[worker] = this.now() + PRESSURE_MS;
  }

  /** A worker process died: its replacement starts with no isolate. */
  restarted(worker: number): void {
    this.live[worker]?.clear();
    if (worker < this.pressureUntil.length) this.pressureUntil[worker] = 0;
  }

  liveCounts(): number[] {
    return this.live.map((set) => set.size);
  }

  private full(worker: number): boolean {
    return this.pressureUntil[worker] > this.now();
  }

  /**
   * Where an integration pinned to `from` should start its isolate: when it is cold and `from` is
   * full, the regular worker that is not full and holds the fewest live isolates; else undefined.
   * Isolates differ in size, so "not full" (no recent eviction) is the sign of room, not a count.
   */
  target(from: number, integration: string): number | undefined {
    if (from >= this.regular || this.live[from].has(integration) || !this.full(from)) return undefined;
    let best: number | undefined;
    for (let worker = 0; worker < this.regular; worker++) {
      if (worker === from || this.full(worker)) continue;
      if (best === undefined || this.live[worker].size < this.live[best].size) best = worker;
    }
    return best;
  }
}
