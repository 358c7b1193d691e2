// The debounce of "work waits" announcements a host makes to the other hosts on its store: at most one
// per queue per interval, however many deliveries a burst queues. Pure timing and bookkeeping; it never
// decides that work needs announcing (the queues do) and never talks to a database (store/ sends).

/** The queues other hosts can be told about; each names its kind of notification (`work:<queue>`). */
export type WorkQueue = 'webhooks' | 'tasks' | 'owed-events';
export const WORK_QUEUES: readonly WorkQueue[] = ['webhooks', 'tasks', 'owed-events'];

/**
 * What an announcement is about: the receiver origins of the waiting deliveries (webhooks), so a host
 * with no room for them stays asleep; undefined for any work of the queue.
 */
export type WorkDetail = readonly string[] | undefined;

/** Tells other hosts sharing the store that work waits which this host will not start now. */
export interface WorkAnnouncer {
  /** Work waits on `queue`: announced now, or within the debounce (never dropped). */
  announce(queue: WorkQueue, detail?: WorkDetail): void;
}

/** A shared store's announcements both ways (store/postgres/work-notices.ts). */
export interface WorkChannel extends WorkAnnouncer {
  /**
   * Hears another host announce work on `queue`; also called (detail undefined) when the store's
   * notification connection is back after a loss, since what was announced meanwhile is lost.
   */
  onAnnounced(queue: WorkQueue, listener: (detail: WorkDetail) => void): void;
}

export interface AnnouncementDebounce {
  /** Announces now through `send` unless one went out within the interval; else at the end of it. */
  request(queue: WorkQueue, detail?: WorkDetail): void;
  /**
   * A statement about to run can carry the announcement (no round trip of its own): the detail to
   * carry when one may go out now, else undefined. Held back, it waits one more interval for the next
   * statement to carry it before `send` sends it alone: a steady stream of inserts carries them all.
   */
  carry(queue: WorkQueue, detail?: WorkDetail): { detail: WorkDetail } | undefined;
  /** Drops what is pending (the store closes). */
  close(): void;
}

export interface DebounceDeps {
  intervalMs: number;
  /** Sends one announcement on its own (a round trip). */
  send(queue: WorkQueue, detail: WorkDetail): void;
  now(): number;
  setTimer(callback: () => void, delayMs: number): unknown;
  clearTimer(handle: unknown): void;
}

interface QueueState {
  /** When the last announcement went out (sent or carried). */
  lastAt: number;
  /** Details waiting to be announced: null when nothing waits; 'any' once one asked for the whole queue. */
  pending: Set<string> | 'any' | null;
  /** Whether a statement could carry what waits (then it may wait longer for one). */
  carriable: boolean;
  timer: unknown;
  dueAt: number;
}

export function createAnnouncementDebounce(deps: DebounceDeps): AnnouncementDebounce {
  const states = new Map<WorkQueue, QueueState>();
  const stateOf = (queue: WorkQueue): QueueState => {
    let state = states.get(queue);
    if (state === undefined) {
      state = { lastAt: -Infinity, pending: null, carriable: true, timer: null, dueAt: 0 };
      states.set(queue, state);
    }
    return state;
  };

  const add = (state: QueueState, detail: WorkDetail, carriable: boolean): void => {
    if (state.pending === null) state.carriable = carriable;
    else state.carriable &&= carriable;
    if (detail === undefined || state.pending === 'any') state.pending = 'any';
    else {
      state.pending ??= new Set();
      for (const item of detail) state.pending.add(item);
    }
  };

  const take = (state: QueueState): WorkDetail => {
    const pending = state.pending;
    state.pending = null;
    state.lastAt = deps.now();
    if (state.timer !== null) deps.clearTimer(state.timer);
    state.timer = null;
    return pending === 'any' || pending === null ? undefined : [...pending];
  };

  const flush = (queue: WorkQueue, state: QueueState): void => {
    state.timer = null;
    if (state.pending !== null) deps.send(queue, take(state));
  };

  /** The trailing announcement: at the interval's end, or one interval later when a statement could carry it. */
  const schedule = (queue: WorkQueue, state: QueueState): void => {
    const dueAt = state.lastAt + deps.intervalMs * (state.carriable ? 2 : 1);
    if (state.timer !== null) {
      if (state.dueAt <= dueAt) return;
      deps.clearTimer(state.timer);
    }
    state.dueAt = dueAt;
    state.timer = deps.setTimer(() => flush(queue, state), Math.max(0, dueAt - deps.now()));
  };

  const open = (state: QueueState): boolean => deps.now() - state.lastAt >= deps.intervalMs;

  return {
    request(queue, detail) {
      const state = stateOf(queue);
      add(state, detail, false);
      if (open(state)) deps.send(queue, take(state));
      else schedule(queue, state);
    },
    carry(queue, detail) {
      const state = stateOf(queue);
      add(state, detail, true);
      if (open(state)) return { detail: take(state) };
      schedule(queue, state);
      return undefined;
    },
    close() {
      for (const state of states.values()) {
        if (state.timer !== null) deps.clearTimer(state.timer);
        state.timer = null;
        state.pending = null;
      }
    },
  };
}
