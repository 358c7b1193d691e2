// The event log as the host uses it: entries recorded now, and entries that are still on their way
// (a 504 answered before its worker's verdict: record.ts), which every read and flush waits for, so
// a reader never misses a dispatch whose answer it has already seen. Never writes to a store itself.

import type { EventLog, EventLogEntry } from './event-log.ts';

export function withLateRows(log: EventLog): EventLog {
  const due = new Set<Promise<void>>();
  // A row arriving while others wait is waited for too; each settles by the supervisor's backstop.
  const arrived = async (): Promise<void> => {
    while (due.size > 0) await Promise.all(due);
  };
  return {
    record: (entry) => log.record(entry),
    recordLater(entry: Promise<EventLogEntry>) {
      const row: Promise<void> = entry
        .then(
          (value) => log.record(value),
          () => undefined,
        )
        // The log is a diagnostic: a row that cannot be written must not fail a reader.
        .catch(() => undefined)
        .finally(() => due.delete(row));
      due.add(row);
    },
    async flush() {
      if (due.size > 0) await arrived();
      return log.flush();
    },
    async list(integration, page) {
      if (due.size > 0) await arrived();
      return log.list(integration, page);
    },
    async get(integration, eventId) {
      if (due.size > 0) await arrived();
      return log.get(integration, eventId);
    },
  };
}
