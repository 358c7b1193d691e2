// The durable outbox: enqueue, atomic claims, attempt records, crash recovery, the paginated log
// and redelivery, on a real node:sqlite database.
import { DatabaseSync } from 'node:sqlite';
import { beforeEach, describe, expect, it } from 'vitest';
import { createOutbox } from '../../../host/store/sqlite/outbox.ts';
import { type NewDelivery, type Outbox } from '../../../host/webhooks/outbox.ts';

let db: DatabaseSync;
let outbox: Outbox;
let n: number;
beforeEach(() => {
  db = new DatabaseSync(':memory:');
  n = 0;
  outbox = createOutbox(db, { newId: () => `dlv_${++n}` });
});

const delivery = (overrides: Partial<NewDelivery> = {}): NewDelivery => ({
  installationId: 'inst_1', eventId: 'evt_1', eventType: 'space_content_updated', url: 'https://a.example/hook', body: '{"eventId":"evt_1"}', ...overrides,
});
const attempt = (number: number, extra: object = {}) => ({
  attempt: number, startedAt: 1_000, durationMs: 12, statusCode: 503, errorKind: null, errorMessage: null, nextAttemptAt: 5_000, ...extra,
});

describe('createOutbox', () => {
  it('enqueues pending deliveries due now', () => {
    const [record] = outbox.enqueue([delivery()], 1_000);
    expect(record).toMatchObject({ id: 'dlv_1', status: 'pending', attempts: 0, nextAttemptAt: 1_000, createdAt: 1_000, redeliveryOf: null });
    expect(outbox.nextDueAt()).toBe(1_000);
  });

  it('writes a batch in one transaction: a failing row leaves nothing behind', () => {
    const ids = ['dlv_a', 'dlv_a'];
    const failing = createOutbox(db, { newId: () => ids.shift() as string });
    expect(() => failing.enqueue([delivery(), delivery()], 1_000)).toThrow();
    expect(outbox.listForInstallation('inst_1').items).toEqual([]);
  });

  it('claims each due delivery once, oldest first, and nothing that is not due', () => {
    outbox.enqueue([delivery({ eventId: 'evt_a' })], 1_000);
    outbox.enqueue([delivery({ eventId: 'evt_b' })], 2_000);
    expect(outbox.claimNext(500)).toBeUndefined();
    expect(outbox.claimNext(2_000)).toMatchObject({ eventId: 'evt_a', status: 'in_flight' });
    expect(outbox.claimNext(2_000)).toMatchObject({ eventId: 'evt_b' });
    expect(outbox.claimNext(2_000)).toBeUndefined();
    expect(outbox.nextDueAt()).toBeNull();
  });

  it('skips deliveries bound for a busy endpoint', () => {
    outbox.enqueue([delivery({ url: 'https://busy.example/a' }), delivery({ url: 'https://free.example/b' })], 1_000);
    expect(outbox.claimNext(1_000, ['https://busy.example'])).toMatchObject({ url: 'https://free.example/b' });
    expect(outbox.claimNext(1_000, ['https://busy.example'])).toBeUndefined();
    expect(outbox.nextDueAt(['https://busy.example'])).toBeNull();
    expect(outbox.nextDueAt()).toBe(1_000);
  });

  it('records attempts and the next state atomically', () => {
    const [record] = outbox.enqueue([delivery()], 1_000);
    outbox.claimNext(1_000);
    outbox.recordAttempt(record.id, attempt(1), { status: 'pending', nextAttemptAt: 5_000 });
    expect(outbox.get(record.id)).toMatchObject({ status: 'pending', attempts: 1, nextAttemptAt: 5_000, attemptLog: [attempt(1)] });
    outbox.claimNext(5_000);
    outbox.recordAttempt(record.id, attempt(2, { statusCode: null, errorKind: 'refused', errorMessage: 'ECONNREFUSED', nextAttemptAt: null }), { status: 'failed' });
    expect(outbox.get(record.id)).toMatchObject({ status: 'failed', attempts: 2, nextAttemptAt: null });
    expect(outbox.get(record.id)?.attemptLog.map((a) => a.errorKind)).toEqual([null, 'refused']);
  });

  it('makes in-flight deliveries claimable again after a crash', () => {
    outbox.enqueue([delivery()], 1_000);
    outbox.claimNext(1_000);
    expect(outbox.claimNext(1_000)).toBeUndefined();
    expect(outbox.resetInFlight()).toBe(1);
    expect(outbox.claimNext(1_000)).toMatchObject({ id: 'dlv_1', attempts: 0 });
  });

  it('lists an installation newest first with attempts, page by page', () => {
    for (let i = 1; i <= 5; i++) outbox.enqueue([delivery({ eventId: `evt_${i}` })], i);
    outbox.enqueue([delivery({ installationId: 'inst_other' })], 10);
    outbox.recordAttempt('dlv_5', attempt(1), { status: 'pending', nextAttemptAt: 9 });
    const first = outbox.listForInstallation('inst_1', { limit: 2 });
    expect(first.items.map((d) => d.eventId)).toEqual(['evt_5', 'evt_4']);
    expect(first.items[0].attemptLog).toHaveLength(1);
    const second = outbox.listForInstallation('inst_1', { limit: 2, cursor: first.nextCursor });
    expect(second.items.map((d) => d.eventId)).toEqual(['evt_3', 'evt_2']);
    const last = outbox.listForInstallation('inst_1', { limit: 2, cursor: second.nextCursor });
    expect(last).toMatchObject({ items: [{ eventId: 'evt_1' }], nextCursor: null });
  });

  it('rejects a cursor it did not issue', () => {
    expect(() => outbox.listForInstallation('inst_1', { cursor: 'bogus' })).toThrow(expect.objectContaining({ code: 'ERR_VALIDATION' }));
  });

  it('redelivers the same event and body as a new delivery', () => {
    const [original] = outbox.enqueue([delivery()], 1_000);
    const copy = outbox.redeliver(original.id, 9_000);
    expect(copy).toMatchObject({ id: 'dlv_2', eventId: 'evt_1', body: original.body, url: original.url, status: 'pending', attempts: 0, nextAttemptAt: 9_000, redeliveryOf: 'dlv_1' });
    expect(outbox.redeliver(original.id, 9_000, { url: 'https://moved.example/' })?.url).toBe('https://moved.example/');
    expect(outbox.redeliver('dlv_missing', 9_000)).toBeUndefined();
  });

  it('reuses existing tables when opened again on the same database', () => {
    outbox.enqueue([delivery()], 1_000);
    expect(createOutbox(db).get('dlv_1')).toMatchObject({ status: 'pending' });
  });
});
