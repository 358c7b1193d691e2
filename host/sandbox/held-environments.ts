// The supervisor's record of which environment text each worker holds, per integration and
// installation. Bounded, so installations that come and go never grow a worker's store without
// limit; it must never claim a text is held that the worker was told to drop.

/** Past this many keys a worker's store is emptied (every environment is then sent again once). */
export const MAX_HELD_ENVIRONMENTS = 4_096;

/** Per integration and installation: one integration's dispatch never reuses another's text. */
export function environmentKey(integration: string, installationId: string): string {
  return `${integration}\u0000${installationId}`;
}

/** Whether `key` belongs to `integration` (what a worker drops when the integration moves away). */
export function isKeyOf(key: string, integration: string): boolean {
  return key.startsWith(`${integration}\u0000`);
}

export class HeldEnvironments {
  /**
   * Per key, the environment object whose text the worker holds now (it keeps one text per key).
   * An older object sent after a newer one replaces it there, so the newer one is sent again.
   */
  readonly #sent = new Map<string, object>();

  /** Whether the worker holds this very environment's text under `key`. */
  holds(key: string, environment: object): boolean {
    return this.#sent.get(key) === environment;
  }

  /** Whether adding `key` would pass the bound (the caller then empties both stores first). */
  isFullFor(key: string): boolean {
    return !this.#sent.has(key) && this.#sent.size >= MAX_HELD_ENVIRONMENTS;
  }

  record(key: string, environment: object): void {
    this.#sent.set(key, environment);
  }

  clear(): void {
    this.#sent.clear();
  }

  /** The integration moved away from this worker, which drops its texts (worker.ts 'unregister'). */
  forgetIntegration(integration: string): void {
    for (const key of [...this.#sent.keys()]) if (isKeyOf(key, integration)) this.#sent.delete(key);
  }

  get size(): number {
    return this.#sent.size;
  }
}
