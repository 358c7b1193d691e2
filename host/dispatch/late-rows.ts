// The event log as the host uses it: entries recorded now, and entries still on their way (a 504
// answered before its worker's verdict: record.ts). A read of an integration's log waits for that
// integration's rows already on their way when it starts, so a reader that saw the 504 finds its
// row; it never waits for another integration's. Never writes to a store itself.

import type { EventLog, EventLogEntry } from './event-log.ts';

export function withLateRows(log: EventLog): EventLog {
  const due = new Map<string, Set<Promise<void>>>();
  // Only the rows due when the read starts: a row arriving meanwhile belongs to an answer the
  // reader had not seen, and waiting for it too could hold the read for as long as rows keep coming.
  const dueNow = (integration?: string): Promise<void>[] => {
    if (integration !== undefined) return [...(due.get(integration) ?? [])];
    return [...due.values()].flatMap((rows) => [...rows]);
  };
  return {
    record: (entry) => log.record(entry),
    recordLater(integration: string, entry: Promise<EventLogEntry>) {
      let rows = due.get(integration);
      if (rows === undefined) due.set(integration, (rows = new Set()));
      const row: Promise<void> = entry
        .then((value) => log.record(value))
        // The log is a diagnostic: a row that cannot be written must not fail a reader.
        .catch(() => undefined)
        .finally(() => {
          rows.delete(row);
          if (rows.size === 0 && due.get(integration) === rows) due.delete(integration);
        });
      rows.add(row);
    },
    async flush() {
      if (due.size > 0) await Promise.all(dueNow());
      return log.flush();
    },
    async list(integration, page) {
      if (due.has(integration)) await Promise.all(dueNow(integration));
      return log.list(integration, page);
    },
    async get(integration, eventId) {
      if (due.has(integration)) await Promise.all(dueNow(integration));
      return log.get(integration, eventId);
    },
  };
}
