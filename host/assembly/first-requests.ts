// After a host starts, builds in the background what each installation's first request would
// otherwise build on its own path (a restarted host has none of it): the installation's record in
// the cache and its environment, with the text the workers are sent. One installation per turn of
// the event loop, so requests go first; at most `max` installations. Dispatches nothing.

import type { Installation } from '../installations/model.ts';

/**
 * How many installations a start prepares ahead at most (a few KB of host memory each: an environment and its text).
 */
export const FIRST_REQUEST_PREFILL_MAX = 1_000;

export interface FirstRequestPrefillDeps {
  /** Every installation (a whole list, which also fills the installation cache's records). */
  list(): Promise<readonly Installation[]>;
  /** Builds one installation's environment ahead (EventDispatcher.prepare); false when not runnable. */
  prepare(installation: Installation): Promise<boolean>;
  warn(text: string): void;
  max?: number;
  /** Runs `work` on a later turn of the event loop (setImmediate; tests may drive it). */
  defer?(work: () => void): void;
}

export interface FirstRequestPrefill {
  /** How many installations were prepared, once the prefill is over (it never rejects). */
  done: Promise<number>;
  /** Prepares no more (the host is stopping). */
  stop(): void;
}

export function prefillFirstRequests(deps: FirstRequestPrefillDeps): FirstRequestPrefill {
  let stopped = false;
  const defer = deps.defer ?? ((work: () => void) => void setImmediate(work));
  const nextTurn = (): Promise<void> => new Promise((resolve) => defer(resolve));
  const max = deps.max ?? FIRST_REQUEST_PREFILL_MAX;
  const run = async (): Promise<number> => {
    await nextTurn();
    if (stopped) return 0;
    let installations: readonly Installation[];
    try {
      installations = await deps.list();
    } catch (error) {
      deps.warn(
        `installations could not be listed to prepare their first requests ahead ` +
          `(${messageOf(error)}); each first request builds what it needs`,
      );
      return 0;
    }
    let prepared = 0;
    let failed = 0;
    let firstFailure = '';
    for (const installation of installations.slice(0, max)) {
      await nextTurn();
      if (stopped) break;
      try {
        if (await deps.prepare(installation)) prepared++;
      } catch (error) {
        if (failed++ === 0) firstFailure = `${installation.id}: ${messageOf(error)}`;
      }
    }
    if (failed > 0)
      deps.warn(
        `${failed} installations could not be prepared ahead of their first ` +
          `request (${firstFailure}); their first requests build it themselves`,
      );
    return prepared;
  };
  return {
    done: run(),
    stop() {
      stopped = true;
    },
  };
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
