// One isolate's outbound fetches as the worker holds them, by the runtime's id (BridgeRequest.id):
// the abort switch of each fetch in flight and the body of each answered one that goes on at the
// host (fetch-body.ts). Bodies are closed when the integration's work is over (a body it abandoned
// never outlives its work) and everything when its isolate goes.

import type { FetchBody } from '../bridge/fetch-body.ts';

/** Most fetches of one isolate open at once (in flight or with an unread body); past it a fetch is refused. */
export const MAX_OPEN_FETCHES = 256;

export type FetchRead = { ok: true; value: Uint8Array | null } | { ok: false; code: string; message: string };

const isId = (value: unknown): value is number => typeof value === 'number' && Number.isSafeInteger(value) && value > 0;

export class FetchTable {
  private readonly inFlight = new Map<number, AbortController>();
  private readonly bodies = new Map<number, FetchBody>();

  get size(): number {
    return this.inFlight.size + this.bodies.size;
  }

  /**
   * A fetch starts: its abort signal, or null when the id is not usable (absent, taken) or the table
   * is full. An id-less fetch (an older runtime, a platform API call) gets a signal nobody can abort.
   */
  begin(id: unknown): AbortSignal | null {
    if (id === undefined) return new AbortController().signal;
    if (!isId(id) || this.inFlight.has(id) || this.bodies.has(id) || this.size >= MAX_OPEN_FETCHES) return null;
    const controller = new AbortController();
    this.inFlight.set(id, controller);
    return controller.signal;
  }

  /** The fetch answered: its body (if it goes on) is kept for reads. */
  answered(id: unknown, body: FetchBody | undefined): void {
    if (!isId(id)) {
      body?.cancel();
      return;
    }
    this.inFlight.delete(id);
    if (body !== undefined) this.bodies.set(id, body);
  }

  /** The next bytes of a body (null at its end, after which it is forgotten). */
  async read(id: unknown): Promise<FetchRead> {
    const body = isId(id) ? this.bodies.get(id) : undefined;
    if (body === undefined) return { ok: false, code: 'TypeError', message: 'no such response body' };
    const read = await body.read();
    if (!read.ok) {
      this.bodies.delete(id as number);
      return { ok: false, code: 'TypeError', message: read.message };
    }
    if (read.value === null) this.bodies.delete(id as number);
    return read;
  }

  /** Takes a body out of the table for the worker to send on itself (a response passing it through). */
  take(id: unknown): FetchBody | undefined {
    if (!isId(id)) return undefined;
    const body = this.bodies.get(id);
    this.bodies.delete(id);
    return body;
  }

  /** Aborts a fetch in flight, or cancels its body. */
  cancel(id: unknown): void {
    if (!isId(id)) return;
    this.inFlight.get(id)?.abort();
    this.inFlight.delete(id);
    this.bodies.get(id)?.cancel();
    this.bodies.delete(id);
  }

  /** Closes every body still unread: the integration's work is over. */
  closeBodies(): void {
    for (const body of this.bodies.values()) body.cancel();
    this.bodies.clear();
  }

  /** Aborts every fetch and closes every body: the isolate is gone. */
  close(): void {
    for (const controller of this.inFlight.values()) controller.abort();
    for (const body of this.bodies.values()) body.cancel();
    this.inFlight.clear();
    this.bodies.clear();
  }
}
