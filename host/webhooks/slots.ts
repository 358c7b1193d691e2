// Concurrency slots of the dispatcher: a global bound and a bound per receiver origin, so one slow
// receiver can hold at most its own share, and the room deliveries queued here since the last claim
// already count on. Pure bookkeeping; never touches the outbox or the network.

export interface Slots {
  take(endpoint: string): void;
  release(endpoint: string): void;
  /** Endpoints at their own bound: the outbox must skip their deliveries. */
  busyEndpoints(): string[];
  isFull(): boolean;
  size(): number;
  /** Free slots overall. */
  free(): number;
  /** Free slots of each endpoint that has some in use; any other endpoint has `perEndpoint`. */
  room(): Map<string, number>;
  /**
   * Counts deliveries just queued (one endpoint each) against the free room, beside those counted
   * since the last claim: true when all of them fit. Those that do not fit are not counted.
   */
  reserve(endpoints: readonly string[]): boolean;
  /** A claim took what it could: the counted deliveries are forgotten. */
  clearReserved(): void;
  readonly perEndpoint: number;
}

export function createSlots(concurrency: number, perEndpoint: number): Slots {
  const total = Math.max(1, concurrency);
  const each = Math.max(1, perEndpoint);
  const counts = new Map<string, number>();
  let used = 0;
  const reserved = new Map<string, number>();
  let reservedTotal = 0;
  return {
    take(endpoint) {
      counts.set(endpoint, (counts.get(endpoint) ?? 0) + 1);
      used++;
    },
    release(endpoint) {
      const left = (counts.get(endpoint) ?? 1) - 1;
      if (left > 0) counts.set(endpoint, left);
      else counts.delete(endpoint);
      used = Math.max(0, used - 1);
    },
    busyEndpoints: () => [...counts].filter(([, count]) => count >= each).map(([endpoint]) => endpoint),
    isFull: () => used >= total,
    size: () => used,
    free: () => Math.max(0, total - used),
    room: () => new Map([...counts].map(([endpoint, count]) => [endpoint, Math.max(0, each - count)])),
    reserve(endpoints) {
      let fits = true;
      for (const endpoint of endpoints) {
        const taken = (counts.get(endpoint) ?? 0) + (reserved.get(endpoint) ?? 0);
        if (used + reservedTotal >= total || taken >= each) {
          fits = false;
          continue;
        }
        reserved.set(endpoint, (reserved.get(endpoint) ?? 0) + 1);
        reservedTotal++;
      }
      return fits;
    },
    clearReserved() {
      reserved.clear();
      reservedTotal = 0;
    },
    perEndpoint: each,
  };
}
