// Announcements of waiting work between hosts on one PostgreSQL (`work:<queue>` on the notification
// channel): sends this host's, debounced (common/work-announcements.ts), alone or carried by an insert,
// and hands other hosts' to the queues that listen. Never decides what needs announcing (the queues do).

import { randomUUID } from 'node:crypto';
import type { Logger } from '../../common/logger.ts';
import {
  createAnnouncementDebounce,
  WORK_QUEUES,
  type WorkChannel,
  type WorkDetail,
  type WorkQueue,
} from '../../common/work-announcements.ts';
import type { Db } from './connection.ts';
import { CHANNEL, WORK } from './notifications.ts';

/**
 * At most one announcement per queue per interval from a host: NOTIFY takes a database-wide lock at
 * commit, so a burst costs a handful, not one per delivery; another host hears of work within 100 ms.
 */
export const ANNOUNCE_INTERVAL_MS = 50;
/** Longer details are left out (the announcement then means any work of the queue): payloads stop at 8,000 bytes. */
const MAX_DETAIL_CHARS = 2_000;

export interface WorkNotices extends WorkChannel {
  /**
   * The payload a statement about to insert work on `queue` should NOTIFY with, or undefined when
   * one went out lately (what waits is then announced within the debounce).
   */
  carry(queue: WorkQueue, detail?: WorkDetail): string | undefined;
  /** A message of the channel after its `work:` prefix. */
  heard(message: string): void;
  /** The notification connection is (back) up: every queue looks once, since what was announced meanwhile is lost. */
  resumed(): void;
  close(): void;
}

export function createWorkNotices(db: Db, log: Logger): WorkNotices {
  // Tells this host's own announcements apart when they come back on its listening connection.
  const tag = randomUUID().slice(0, 8);
  const listeners = new Map<WorkQueue, ((detail: WorkDetail) => void)[]>();
  const sending = new Set<WorkQueue>();
  let closed = false;

  const payloadOf = (queue: WorkQueue, detail: WorkDetail): string => {
    const json = detail === undefined ? '' : JSON.stringify(detail);
    return `${WORK}${queue} ${tag}${json === '' || json.length > MAX_DETAIL_CHARS ? '' : ` ${json}`}`;
  };

  const debounce = createAnnouncementDebounce({
    intervalMs: ANNOUNCE_INTERVAL_MS,
    now: Date.now,
    setTimer: (callback, delayMs) => setTimeout(callback, delayMs).unref(),
    clearTimer: (handle) => clearTimeout(handle as NodeJS.Timeout),
    send(queue, detail) {
      if (closed) return;
      // One at a time per queue: while the database is away, announcements wait rather than pile up.
      if (sending.has(queue)) return debounce.request(queue, detail);
      sending.add(queue);
      db.query('SELECT pg_notify($1, $2)', [CHANNEL, payloadOf(queue, detail)], 'work_notify')
        .catch((error: unknown) =>
          // The other hosts' poll finds the work instead: an announcement only makes it sooner.
          log.warn(`store: could not announce ${queue} work to other hosts: ${(error as Error).message}`),
        )
        .finally(() => sending.delete(queue));
    },
  });

  const tell = (queue: WorkQueue, detail: WorkDetail): void => {
    for (const listener of listeners.get(queue) ?? []) listener(detail);
  };

  return {
    announce: (queue, detail) => debounce.request(queue, detail),
    carry(queue, detail) {
      const carried = closed ? undefined : debounce.carry(queue, detail);
      return carried === undefined ? undefined : payloadOf(queue, carried.detail);
    },
    onAnnounced(queue, listener) {
      listeners.set(queue, [...(listeners.get(queue) ?? []), listener]);
    },
    heard(message) {
      // `<queue> <tag>[ <JSON array of details>]`
      const [queue, from] = message.split(' ', 2) as [WorkQueue, string | undefined];
      if (from === tag || !WORK_QUEUES.includes(queue)) return;
      const json = message.slice(queue.length + 1 + (from?.length ?? 0) + 1);
      let detail: unknown;
      try {
        detail = json === '' ? undefined : JSON.parse(json);
      } catch {
        detail = undefined;
      }
      const valid = Array.isArray(detail) && detail.every((item) => typeof item === 'string');
      tell(queue, valid ? (detail as string[]) : undefined);
    },
    resumed() {
      for (const queue of WORK_QUEUES) tell(queue, undefined);
    },
    close() {
      closed = true;
      debounce.close();
    },
  };
}
