// Keeps a running host on the newest stored secrets without a restart: reads the store's snapshot
// again when its revision moves (polled; on PostgreSQL also announced by the host that wrote),
// and reloads exactly the integrations whose stored secrets changed, each in a fresh isolate.
// Refreshes run one at a time; never logs a value, only integration and problem lines.

import type { Logger } from '../common/logger.ts';
import type { SecretService, SecretSnapshot } from '../secrets/service.ts';

export interface SecretRefreshDeps {
  service: SecretService;
  /** The store's revision now (cheap: one row). */
  revision(): Promise<number>;
  /** Announcements of another host's change, where the store has them. */
  subscribe?(listener: (integration: string) => void): () => void;
  /** The snapshot the host resolves from; replaced by each refresh. */
  snapshot: { current: SecretSnapshot };
  /** Loads these integrations again from their folders with the current snapshot and swaps them in. */
  reload(names: ReadonlySet<string>): Promise<void>;
  /** How often to look at the revision (ms); 0 = never (changes then come by announcement or refresh()). */
  pollMs: number;
  log: Logger;
}

export interface SecretRefresher {
  /**
   * Reads the store again and reloads every integration whose stored secrets changed since the
   * last read, plus `also` (names). Resolves once they serve with what the store holds now.
   */
  refresh(also?: readonly string[]): Promise<void>;
  stop(): void;
}

/** The integrations whose rows differ between two snapshots (by row identity, never by value). */
export function changedIntegrations(before: SecretSnapshot, after: SecretSnapshot): Set<string> {
  const names = new Set([...before.fingerprints.keys(), ...after.fingerprints.keys()]);
  return new Set([...names].filter((name) => before.fingerprints.get(name) !== after.fingerprints.get(name)));
}

export function createSecretRefresher(deps: SecretRefreshDeps): SecretRefresher {
  let stopped = false;
  let pollFailing = false;
  // Refreshes run one after another. A caller arriving while one waits to start joins it: that one
  // has not read the store yet, so it will see the caller's change; one already reading will not.
  let tail: Promise<void> = Promise.resolve();
  let waiting: { also: Set<string>; done: Promise<void> } | null = null;

  const once = async (also: ReadonlySet<string>): Promise<void> => {
    const before = deps.snapshot.current;
    const after = await deps.service.snapshot();
    deps.snapshot.current = after;
    const names = new Set([...changedIntegrations(before, after), ...also]);
    if (names.size > 0) await deps.reload(names);
  };

  const refresh = (also: readonly string[] = []): Promise<void> => {
    if (waiting !== null) {
      for (const name of also) waiting.also.add(name);
      return waiting.done;
    }
    const entry: { also: Set<string>; done: Promise<void> } = { also: new Set(also), done: Promise.resolve() };
    waiting = entry;
    entry.done = tail.then(() => {
      if (waiting === entry) waiting = null;
      return once(entry.also);
    });
    tail = entry.done.catch(() => undefined);
    return entry.done;
  };

  const poll = async (): Promise<void> => {
    try {
      const revision = await deps.revision();
      if (pollFailing) deps.log.info('secrets: the store answers again; watching stored secrets for changes');
      pollFailing = false;
      if (revision !== deps.snapshot.current.revision) await refresh();
    } catch (error) {
      // One line per outage: the store's own retry lines say the rest.
      if (!pollFailing)
        deps.log.warn(
          `secrets: cannot look for changed stored secrets ` +
            `(${(error as Error).message.split('\n')[0]}); the last values read ` +
            `keep serving`,
        );
      pollFailing = true;
    }
  };

  let polling = false;
  const timer =
    deps.pollMs > 0
      ? setInterval(() => {
          if (polling || stopped) return;
          polling = true;
          void poll().finally(() => (polling = false));
        }, deps.pollMs)
      : undefined;
  timer?.unref();
  // An announcement (the writer's own comes back to it too) reloads what the snapshot says changed:
  // on the writer, whose own refresh already read the change, nothing is reloaded twice.
  const unsubscribe = deps.subscribe?.((integration) => {
    if (stopped) return;
    refresh().catch((error: unknown) =>
      deps.log.warn(
        `secrets: reloading ${integration} after another host changed ` +
          `its stored secrets failed: ${(error as Error).message}`,
      ),
    );
  });

  return {
    refresh,
    stop() {
      stopped = true;
      clearInterval(timer);
      unsubscribe?.();
    },
  };
}
