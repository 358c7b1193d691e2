// The store's own count of its database traffic (store/traffic.ts), on SQLite and PostgreSQL: it
// counts what runs, and the webhook outbox's batches cost a fixed number of round trips whatever
// their size (the bench's roundTripsPerDelivery rests on both).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { HostStores } from '../../../host/store/types.ts';
import { useBackends, type Database } from './backends.ts';

let database: Database;
let stores: HostStores;

const delivery = (i: number) => ({
  installationId: 'inst_1',
  eventId: `evt_${i}`,
  eventType: 'space_content_updated',
  url: 'https://a.example/hook',
  body: `{"n":${i}}`,
});

/** Round trips `work` took on `stores`. */
async function roundTripsOf(work: () => Promise<unknown>): Promise<number> {
  const before = stores.traffic().roundTrips;
  await work();
  return stores.traffic().roundTrips - before;
}

describe.each(useBackends())('store traffic on $name', (backend) => {
  beforeEach(async (context) => {
    if (backend.skip !== undefined) return context.skip(backend.skip);
    database = await backend.fresh();
    stores = await database.open();
  });
  afterEach(async () => {
    await database?.close();
  });

  it('counts every statement it runs, statements and round trips alike', async () => {
    const before = stores.traffic();
    await stores.meta.setIfAbsent('k', 'v');
    expect(await stores.meta.get('k')).toBe('v');
    const after = stores.traffic();
    expect(after.roundTrips - before.roundTrips).toBeGreaterThanOrEqual(2);
    expect(after.statements - before.statements).toBe(after.roundTrips - before.roundTrips);
  });

  it('claims ten deliveries and settles their ten results in a fixed number of round trips', async () => {
    const queued = await stores.outbox.enqueue(
      Array.from({ length: 10 }, (_, i) => delivery(i)),
      1_000,
    );
    let claimed: Awaited<ReturnType<typeof stores.outbox.claimDue>> = [];
    const claimTrips = await roundTripsOf(async () => {
      claimed = await stores.outbox.claimDue(1_000, { limit: 10, perEndpoint: 10, room: new Map(), leaseMs: 30_000 });
    });
    expect(claimed.map((record) => record.id).sort()).toEqual(queued.map((record) => record.id).sort());
    // SQLite: the candidates, then the claim; PostgreSQL: one statement.
    expect(claimTrips).toBeLessThanOrEqual(2);
    const settleTrips = await roundTripsOf(() =>
      stores.outbox.recordAttempts(
        claimed.map((record) => ({
          deliveryId: record.id,
          attempt: {
            attempt: 1,
            startedAt: 1_000,
            durationMs: 5,
            statusCode: 200,
            errorKind: null,
            errorMessage: null,
            nextAttemptAt: null,
          },
          next: { status: 'succeeded' as const },
          ...(record.claim !== undefined ? { claim: record.claim } : {}),
        })),
      ),
    );
    // SQLite: BEGIN, the attempts, the deliveries, COMMIT; PostgreSQL: one statement.
    expect(settleTrips).toBeLessThanOrEqual(4);
    for (const record of queued) {
      const stored = await stores.outbox.get(record.id);
      expect(stored).toMatchObject({ status: 'succeeded', attempts: 1 });
      expect(stored?.attemptLog).toEqual([expect.objectContaining({ attempt: 1, statusCode: 200 })]);
    }
  });

  it('joins concurrent enqueues into fewer statements, each caller its own rows, in order', async () => {
    const enqueues = 20;
    let records: Awaited<ReturnType<typeof stores.outbox.enqueue>>[] = [];
    const trips = await roundTripsOf(async () => {
      records = await Promise.all(
        Array.from({ length: enqueues }, (_, i) =>
          stores.outbox.enqueue([delivery(2 * i), delivery(2 * i + 1)], 1_000 + i),
        ),
      );
    });
    records.forEach((pair, i) => expect(pair.map((r) => r.eventId)).toEqual([`evt_${2 * i}`, `evt_${2 * i + 1}`]));
    // SQLite writes each enqueue in its process; PostgreSQL joins those made while one is in flight.
    if (backend.name === 'postgres') expect(trips).toBeLessThanOrEqual(3);
    const listed = await stores.outbox.listForInstallation('inst_1', { limit: 100 });
    // Newest first: the rows landed in the order they were enqueued, each with its caller's time.
    expect(listed.items.map((r) => [r.eventId, r.createdAt, r.nextAttemptAt]).reverse()).toEqual(
      Array.from({ length: 2 * enqueues }, (_, i) => [`evt_${i}`, 1_000 + (i >> 1), 1_000 + (i >> 1)]),
    );
  });

  it('fails only the caller whose rows the database refuses when concurrent enqueues share a statement', async () => {
    const first = stores.outbox.enqueue([delivery(0)], 1_000);
    const settled = await Promise.allSettled([
      stores.outbox.enqueue([delivery(1)], 1_000),
      // PostgreSQL refuses a NUL in text (SQLSTATE 22021); SQLite stores it.
      stores.outbox.enqueue([{ ...delivery(2), body: 'nul \u0000 inside' }], 1_000),
      stores.outbox.enqueue([delivery(3)], 1_000),
    ]);
    await first;
    expect(settled[0].status).toBe('fulfilled');
    expect(settled[1].status).toBe(backend.name === 'postgres' ? 'rejected' : 'fulfilled');
    expect(settled[2].status).toBe('fulfilled');
    const listed = await stores.outbox.listForInstallation('inst_1', { limit: 10 });
    expect(listed.items.map((r) => r.eventId).sort()).toEqual(
      backend.name === 'postgres' ? ['evt_0', 'evt_1', 'evt_3'] : ['evt_0', 'evt_1', 'evt_2', 'evt_3'],
    );
  });

  it("claims a batch with its installations' active signing secrets in one round trip, where offered", async () => {
    const outbox = stores.outbox;
    if (outbox.claimDueSigned === undefined) {
      // SQLite reads the secrets in-process, apart (the dispatcher's fallback).
      expect(backend.name).toBe('sqlite');
      return;
    }
    const first = await stores.signingSecrets.create('inst_1');
    const current = await stores.signingSecrets.rotate('inst_1', 1_000, 60_000);
    await outbox.enqueue([delivery(1), { ...delivery(2), installationId: 'inst_2' }], 1_000);
    let signed: Awaited<ReturnType<NonNullable<typeof outbox.claimDueSigned>>> | undefined;
    const trips = await roundTripsOf(async () => {
      signed = await outbox.claimDueSigned!(2_000, { limit: 10, perEndpoint: 10, room: new Map(), leaseMs: 30_000 });
    });
    expect(trips).toBe(1);
    expect(signed!.claimed.map((record) => record.eventId)).toEqual(['evt_1', 'evt_2']);
    // Each under its claim, which its settle must prove (a settle without one would be unconditional).
    for (const record of signed!.claimed) expect(record.claim).toMatch(/^[0-9a-f-]{36}$/);
    // The rotated-out secret is still active within its window; an installation without secrets has none.
    expect(signed!.secrets).toEqual(
      new Map([
        ['inst_1', [current, first]],
        ['inst_2', []],
      ]),
    );
    expect(signed!.secrets.get('inst_1')).toEqual(await stores.signingSecrets.secretsFor('inst_1', 2_000));
    // The records carry no secret.
    expect(JSON.stringify(signed!.claimed)).not.toContain(current);
    // Past the window, only the current one.
    await outbox.enqueue([delivery(3)], 70_000);
    const later = await outbox.claimDueSigned!(70_000, { limit: 10, perEndpoint: 10, room: new Map(), leaseMs: 1 });
    expect(later.secrets.get('inst_1')).toEqual([current]);
  });
});
