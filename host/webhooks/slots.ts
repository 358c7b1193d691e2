// Concurrency slots of the dispatcher: a global bound and a bound per receiver origin, so one slow
// receiver can hold at most its own share. Pure bookkeeping; never touches the outbox or the network.

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
  readonly perEndpoint: number;
}

export function createSlots(concurrency: number, perEndpoint: number): Slots {
  const total = Math.max(1, concurrency);
  const each = Math.max(1, perEndpoint);
  const counts = new Map<string, number>();
  let used = 0;
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
    perEndpoint: each,
  };
}
