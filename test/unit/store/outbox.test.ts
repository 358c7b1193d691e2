// The durable outbox contract, on SQLite and PostgreSQL alike: enqueue, atomic claims within the
// dispatcher's room, attempt records, crash recovery, the paginated log and redelivery; on the
// shared store, concurrent claims by two hosts never hand out the same delivery.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type ClaimRequest, type NewDelivery, type Outbox } from '../../../host/webhooks/outbox.ts';
import { useBackends, type Database } from './backends.ts';

let database: Database;
let outbox: Outbox;
let n: number;

const delivery = (overrides: Partial<NewDelivery> = {}): NewDelivery => ({
  installationId: 'inst_1',
  eventId: 'evt_1',
  eventType: 'space_content_updated',
  url: 'https://a.example/hook',
  body: '{"eventId":"evt_1"}',
  ...overrides,
});
const attempt = (number: number, extra: object = {}) => ({
  attempt: number,
  startedAt: 1_000,
  durationMs: 12,
  statusCode: 503,
  errorKind: null,
  errorMessage: null,
  nextAttemptAt: 5_000,
  ...extra,
});
const room = (limit: number, busy: Record<string, number> = {}, perEndpoint = 8): ClaimRequest => ({
  limit,
  perEndpoint,
  room: new Map(Object.entries(busy)),
  leaseMs: 30_000,
});
const claimOne = async (nowMs: number, busy: Record<string, number> = {}) =>
  (await outbox.claimDue(nowMs, room(1, busy)))[0];

/**
 * The outbox whose claimDue is its claimDueSigned's claim, so that the contract below holds for the
 * claim the dispatcher uses on a store that offers it (the records must carry their claim tokens).
 */
const signedClaims = (inner: Outbox): Outbox => ({
  ...inner,
  claimDue: async (nowMs, request) => (await inner.claimDueSigned!(nowMs, request)).claimed,
});

const variants = useBackends().flatMap((backend) => [
  { ...backend, claim: 'claimDue' },
  ...(backend.name === 'postgres' ? [{ ...backend, claim: 'claimDueSigned' }] : []),
]);

describe.each(variants)('outbox on $name ($claim)', (backend) => {
  beforeEach(async (context) => {
    if (backend.skip !== undefined) return context.skip(backend.skip);
    database = await backend.fresh();
    n = 0;
    const opened = await database.outbox(() => `dlv_${++n}`);
    outbox = backend.claim === 'claimDueSigned' ? signedClaims(opened) : opened;
  });
  /** A second host's outbox on the same database, claiming the same way. */
  const another = async (): Promise<Outbox> => {
    const opened = await database.outbox();
    return backend.claim === 'claimDueSigned' ? signedClaims(opened) : opened;
  };
  afterEach(async () => {
    await database?.close();
  });

  it('enqueues pending deliveries due now', async () => {
    const [record] = await outbox.enqueue([delivery()], 1_000);
    expect(record).toMatchObject({
      id: 'dlv_1',
      status: 'pending',
      attempts: 0,
      nextAttemptAt: 1_000,
      createdAt: 1_000,
      redeliveryOf: null,
    });
    expect(await outbox.nextDueAt()).toBe(1_000);
  });

  it('returns exactly the records it stored, one delivery or several', async () => {
    const [one] = await outbox.enqueue([delivery({ eventId: 'evt_one' })], 1_000);
    const several = await outbox.enqueue(
      [delivery({ eventId: 'evt_a' }), delivery({ eventId: 'evt_b', url: 'https://b.example/x?y=1' })],
      2_000,
    );
    for (const record of [one, ...several]) expect({ ...record, attemptLog: [] }).toEqual(await outbox.get(record.id));
  });

  it('writes a batch in one transaction: a failing row leaves nothing behind', async () => {
    const ids = ['dlv_a', 'dlv_a'];
    const failing = await database.outbox(() => ids.shift() as string);
    await expect(failing.enqueue([delivery(), delivery()], 1_000)).rejects.toThrow();
    expect((await outbox.listForInstallation('inst_1')).items).toEqual([]);
  });

  it('claims each due delivery once, oldest first, and nothing that is not due', async () => {
    await outbox.enqueue([delivery({ eventId: 'evt_a' })], 1_000);
    await outbox.enqueue([delivery({ eventId: 'evt_b' })], 2_000);
    expect(await claimOne(500)).toBeUndefined();
    expect(await claimOne(2_000)).toMatchObject({ eventId: 'evt_a', status: 'in_flight' });
    expect(await claimOne(2_000)).toMatchObject({ eventId: 'evt_b' });
    expect(await claimOne(2_000)).toBeUndefined();
    expect(await outbox.nextDueAt()).toBeNull();
  });

  it('skips deliveries bound for an endpoint without room', async () => {
    await outbox.enqueue(
      [delivery({ url: 'https://busy.example/a' }), delivery({ url: 'https://free.example/b' })],
      1_000,
    );
    expect(await claimOne(1_000, { 'https://busy.example': 0 })).toMatchObject({ url: 'https://free.example/b' });
    expect(await claimOne(1_000, { 'https://busy.example': 0 })).toBeUndefined();
    expect(await outbox.nextDueAt(['https://busy.example'])).toBeNull();
    expect(await outbox.nextDueAt()).toBe(1_000);
  });

  it('claims a batch in due order, no more than the room of each endpoint and the limit', async () => {
    await outbox.enqueue(
      Array.from({ length: 5 }, (_, i) => delivery({ eventId: `evt_a${i}`, url: 'https://a.example/' })),
      1_000,
    );
    await outbox.enqueue([delivery({ eventId: 'evt_b0', url: 'https://b.example/' })], 1_000);
    const claimed = await outbox.claimDue(1_000, room(6, { 'https://a.example': 2 }));
    expect(claimed.map((record) => record.eventId)).toEqual(['evt_a0', 'evt_a1', 'evt_b0']);
    expect(claimed.every((record) => record.status === 'in_flight')).toBe(true);
    expect((await outbox.claimDue(1_000, room(2))).map((record) => record.eventId)).toEqual(['evt_a2', 'evt_a3']);
  });

  it('records attempts and the next state atomically', async () => {
    const [record] = await outbox.enqueue([delivery()], 1_000);
    await claimOne(1_000);
    await outbox.recordAttempts([
      { deliveryId: record.id, attempt: attempt(1), next: { status: 'pending', nextAttemptAt: 5_000 } },
    ]);
    expect(await outbox.get(record.id)).toMatchObject({
      status: 'pending',
      attempts: 1,
      nextAttemptAt: 5_000,
      attemptLog: [attempt(1)],
    });
    await claimOne(5_000);
    await outbox.recordAttempts([
      {
        deliveryId: record.id,
        attempt: attempt(2, {
          statusCode: null,
          errorKind: 'refused',
          errorMessage: 'ECONNREFUSED',
          nextAttemptAt: null,
        }),
        next: { status: 'failed' },
      },
    ]);
    expect(await outbox.get(record.id)).toMatchObject({ status: 'failed', attempts: 2, nextAttemptAt: null });
    expect((await outbox.get(record.id))?.attemptLog.map((a) => a.errorKind)).toEqual([null, 'refused']);
  });

  it('makes in-flight deliveries claimable again after a crash', async () => {
    await outbox.enqueue([delivery()], 1_000);
    await claimOne(1_000);
    expect(await claimOne(1_000)).toBeUndefined();
    expect(await outbox.resetInFlight()).toBe(1);
    expect(await claimOne(1_000)).toMatchObject({ id: 'dlv_1', attempts: 0 });
  });

  it('lists an installation newest first with attempts, page by page', async () => {
    for (let i = 1; i <= 5; i++) await outbox.enqueue([delivery({ eventId: `evt_${i}` })], i);
    await outbox.enqueue([delivery({ installationId: 'inst_other' })], 10);
    await outbox.recordAttempts([
      { deliveryId: 'dlv_5', attempt: attempt(1), next: { status: 'pending', nextAttemptAt: 9 } },
    ]);
    const first = await outbox.listForInstallation('inst_1', { limit: 2 });
    expect(first.items.map((d) => d.eventId)).toEqual(['evt_5', 'evt_4']);
    expect(first.items[0].attemptLog).toHaveLength(1);
    const second = await outbox.listForInstallation('inst_1', { limit: 2, cursor: first.nextCursor });
    expect(second.items.map((d) => d.eventId)).toEqual(['evt_3', 'evt_2']);
    const last = await outbox.listForInstallation('inst_1', { limit: 2, cursor: second.nextCursor });
    expect(last).toMatchObject({ items: [{ eventId: 'evt_1' }], nextCursor: null });
  });

  it('rejects a cursor it did not issue', async () => {
    await expect(outbox.listForInstallation('inst_1', { cursor: 'bogus' })).rejects.toThrow(
      expect.objectContaining({ code: 'ERR_VALIDATION' }),
    );
  });

  it('redelivers the same event and body as a new delivery', async () => {
    const [original] = await outbox.enqueue([delivery()], 1_000);
    const copy = await outbox.redeliver(original.id, 9_000);
    expect(copy).toMatchObject({
      id: 'dlv_2',
      eventId: 'evt_1',
      body: original.body,
      url: original.url,
      status: 'pending',
      attempts: 0,
      nextAttemptAt: 9_000,
      redeliveryOf: 'dlv_1',
    });
    expect((await outbox.redeliver(original.id, 9_000, { url: 'https://moved.example/' }))?.url).toBe(
      'https://moved.example/',
    );
    expect(await outbox.redeliver('dlv_missing', 9_000)).toBeUndefined();
  });

  it('reuses existing tables when opened again on the same database', async () => {
    await outbox.enqueue([delivery()], 1_000);
    expect(await (await database.outbox()).get('dlv_1')).toMatchObject({ status: 'pending' });
  });

  it.runIf(backend.name === 'postgres')(
    'lets another host take over a claim whose lease ended, and ignores the late result of the first',
    async () => {
      const other = await another();
      await outbox.enqueue([delivery()], 1_000);
      const [first] = await outbox.claimDue(1_000, { ...room(1), leaseMs: 5_000 });
      expect(await other.claimDue(5_999, room(1))).toEqual([]);
      const [second] = await other.claimDue(6_000, room(1));
      expect(second).toMatchObject({ id: first.id, status: 'in_flight' });
      expect(second.claim).not.toBe(first.claim);
      await outbox.recordAttempts([
        {
          deliveryId: first.id,
          attempt: attempt(1),
          next: { status: 'pending', nextAttemptAt: 9_000 },
          claim: first.claim!,
        },
      ]);
      expect(await outbox.get(first.id)).toMatchObject({ status: 'in_flight', attempts: 0, attemptLog: [] });
      await other.recordAttempts([
        {
          deliveryId: second.id,
          attempt: attempt(1, { statusCode: 200, nextAttemptAt: null }),
          next: { status: 'succeeded' },
          claim: second.claim!,
        },
      ]);
      expect(await outbox.get(first.id)).toMatchObject({
        status: 'succeeded',
        attempts: 1,
        attemptLog: [{ statusCode: 200 }],
      });
    },
  );

  it('never hands the same delivery to two claims running at once', async () => {
    const other = await another();
    await outbox.enqueue(
      Array.from({ length: 60 }, (_, i) => delivery({ eventId: `evt_${i}`, url: `https://r${i % 6}.example/` })),
      1_000,
    );
    const claims = await Promise.all(
      Array.from({ length: 8 }, (_, i) => (i % 2 === 0 ? outbox : other).claimDue(1_000, room(10))),
    );
    const ids = claims.flat().map((record) => record.id);
    expect(new Set(ids).size).toBe(ids.length);
    const rest = await outbox.claimDue(1_000, room(100, {}, 100));
    expect(ids.length + rest.length).toBe(60);
  });
});
