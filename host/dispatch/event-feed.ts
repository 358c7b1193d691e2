// The live side of the event log: every entry recorded is also handed to whoever follows that
// integration (the SSE route, `npm run logs`). In memory, never buffered: a follower gets the
// entries written while it follows, nothing older (the event log itself has those).

import type { EventLog, EventLogEntry } from './event-log.ts';

export interface EventFollower {
  entry(entry: EventLogEntry): void;
  /** The host is shutting down: finish the stream; the promise settles once it is flushed. */
  end(): Promise<void>;
}

export interface EventFeed {
  publish(entry: EventLogEntry): void;
  /** Follows one integration's new entries; returns the function that stops following. */
  follow(integration: string, follower: EventFollower): () => void;
  /** Ends every follower (host shutdown); later follow() calls end at once. */
  close(): Promise<void>;
  /** Followers right now (tests, diagnostics). */
  followerCount(): number;
}

export function createEventFeed(): EventFeed {
  const followers = new Map<string, Set<EventFollower>>();
  let closed = false;
  return {
    publish(entry) {
      const set = followers.get(entry.integration);
      if (set === undefined) return;
      for (const follower of [...set]) {
        try {
          follower.entry(entry);
        } catch {
          // One broken follower must not cost the others their entries, nor fail the dispatch.
        }
      }
    },
    follow(integration, follower) {
      if (closed) {
        void follower.end();
        return () => undefined;
      }
      let set = followers.get(integration);
      if (set === undefined) followers.set(integration, (set = new Set()));
      set.add(follower);
      const own = set;
      return () => {
        own.delete(follower);
        if (own.size === 0 && followers.get(integration) === own) followers.delete(integration);
      };
    },
    async close() {
      closed = true;
      const all = [...followers.values()].flatMap((set) => [...set]);
      followers.clear();
      await Promise.allSettled(all.map((follower) => follower.end()));
    },
    followerCount: () => [...followers.values()].reduce((sum, set) => sum + set.size, 0),
  };
}

/** The event log that also publishes each recorded entry to `feed`. */
export function publishingEventLog(log: EventLog, feed: EventFeed): EventLog {
  return {
    record(entry) {
      log.record(entry);
      feed.publish(entry);
    },
    flush: () => log.flush(),
    list: (integration, page) => log.list(integration, page),
    get: (integration, eventId) => log.get(integration, eventId),
  };
}
