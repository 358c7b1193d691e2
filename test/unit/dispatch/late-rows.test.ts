// The host's event log waits for rows still on their way (a 504 answered before its worker's
// verdict) before any read or flush, so a reader never misses a dispatch it has seen answered.
import { describe, it, expect } from 'vitest';
import { withLateRows } from '../../../host/dispatch/late-rows.ts';
import type { EventLog, EventLogEntry } from '../../../host/dispatch/event-log.ts';

function memoryLog(): EventLog & { entries: EventLogEntry[] } {
  const entries: EventLogEntry[] = [];
  return {
    entries,
    record: (entry) => void entries.unshift(entry),
    flush: async () => undefined,
    list: async (integration) => ({
      items: entries.filter((entry) => entry.integration === integration),
      nextCursor: null,
    }),
    get: async (integration, eventId) =>
      entries.find((entry) => entry.integration === integration && entry.eventId === eventId),
  };
}

const entry = (eventId: string): EventLogEntry => ({
  eventId,
  integration: 'late',
  installationId: 'inst',
  type: 'fetch',
  status: 504,
  errorCode: 'ERR_SANDBOX_TIMEOUT',
  durationMs: 1000,
  logs: [{ level: 'log', text: 'about to spin' }],
  createdAt: '2026-11-24T00:00:00.000Z',
});

/** Whether `promise` is still pending after the current turn and the next (the log's own awaits included). */
async function stillPending(promise: Promise<unknown>): Promise<boolean> {
  let settled = false;
  void promise.then(
    () => (settled = true),
    () => (settled = true),
  );
  await new Promise((resolve) => setImmediate(resolve));
  return !settled;
}

describe('the event log with late rows', () => {
  it('holds list, get and flush until a row still on its way is recorded, then shows it', async () => {
    const store = memoryLog();
    const log = withLateRows(store);
    let arrive: (value: EventLogEntry) => void = () => undefined;
    log.recordLater!('late', new Promise<EventLogEntry>((resolve) => (arrive = resolve)));
    const listed = log.list('late', { limit: 10 });
    const got = log.get('late', 'evt_late');
    const flushed = log.flush();
    expect(await stillPending(listed)).toBe(true);
    expect(await stillPending(got)).toBe(true);
    expect(await stillPending(flushed)).toBe(true);
    arrive(entry('evt_late'));
    expect((await listed).items.map((item) => item.eventId)).toEqual(['evt_late']);
    expect(await got).toMatchObject({ eventId: 'evt_late', logs: [{ level: 'log', text: 'about to spin' }] });
    await flushed;
  });

  it('answers reads at once when nothing is on its way, and records plain entries as they come', async () => {
    const store = memoryLog();
    const log = withLateRows(store);
    log.record(entry('evt_now'));
    expect(store.entries.map((item) => item.eventId)).toEqual(['evt_now']);
    expect((await log.list('late', { limit: 10 })).items).toHaveLength(1);
  });

  it('lets reads go on when a late row fails', async () => {
    const log = withLateRows(memoryLog());
    let fail: (error: Error) => void = () => undefined;
    log.recordLater!('late', new Promise<EventLogEntry>((_resolve, reject) => (fail = reject)));
    const listed = log.list('late', { limit: 10 });
    expect(await stillPending(listed)).toBe(true);
    fail(new Error('no verdict'));
    expect((await listed).items).toEqual([]);
  });

  it("never holds a read for another integration's rows, nor for rows that came after it started", async () => {
    const log = withLateRows(memoryLog());
    log.recordLater!('other', new Promise<EventLogEntry>(() => undefined));
    expect((await log.list('late', { limit: 10 })).items).toEqual([]);
    let first: (value: EventLogEntry) => void = () => undefined;
    log.recordLater!('late', new Promise<EventLogEntry>((resolve) => (first = resolve)));
    const listed = log.list('late', { limit: 10 });
    log.recordLater!('late', new Promise<EventLogEntry>(() => undefined));
    first(entry('evt_first'));
    expect((await listed).items.map((item) => item.eventId)).toEqual(['evt_first']);
  });
});
