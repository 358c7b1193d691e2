// The event log wrapper masks an integration's secret values in every row it is given, those
// recorded at once and those recorded when a late answer (a 504's verdict) resolves.
import { describe, expect, it } from 'vitest';
import { maskingEventLog } from '../../../host/dispatch/masked-log.ts';
import type { EventLog, EventLogEntry } from '../../../host/dispatch/event-log.ts';

const entry = (text: string): EventLogEntry => ({
  eventId: 'evt_1',
  integration: 'vendor',
  installationId: 'inst_1',
  type: 'fetch',
  status: 504,
  durationMs: 1,
  logs: [{ level: 'log', text }],
  createdAt: '2026-01-01T00:00:00.000Z',
});

function recordingLog(): { log: EventLog; rows: EventLogEntry[]; late: Promise<EventLogEntry>[] } {
  const rows: EventLogEntry[] = [];
  const late: Promise<EventLogEntry>[] = [];
  const log: EventLog = {
    record: (row) => void rows.push(row),
    recordLater: (_integration, row) => void late.push(row),
    flush: async () => undefined,
    list: async () => ({ items: [], nextCursor: null }),
    get: async () => undefined,
  };
  return { log, rows, late };
}

describe('maskingEventLog', () => {
  const masker = () => (text: string) => text.replaceAll('s3cret-value', '***');

  it('masks the rows it records at once and the rows recorded when their answer comes', async () => {
    const inner = recordingLog();
    const log = maskingEventLog(inner.log, masker);
    log.record(entry('token=s3cret-value'));
    log.recordLater!('vendor', Promise.resolve(entry('late token=s3cret-value')));
    expect(inner.rows.map((row) => row.logs[0].text)).toEqual(['token=***']);
    expect((await inner.late[0]).logs[0].text).toBe('late token=***');
  });

  it('offers recordLater only when the log it wraps does', () => {
    const inner = recordingLog();
    delete (inner.log as { recordLater?: unknown }).recordLater;
    expect(maskingEventLog(inner.log, masker).recordLater).toBeUndefined();
  });
});
