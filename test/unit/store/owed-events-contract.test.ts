// The owed-event queue on SQLite and PostgreSQL alike: events are written in the transaction of the
// installation change that owes them (or not at all), each installation's events are claimed one at
// a time in order, by one host only, retaken when a lease lapses, and only the claiming attempt settles.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Installation } from '../../../host/installations/model.ts';
import type { NewOwedEvent } from '../../../host/owed-events/model.ts';
import type { HostStores } from '../../../host/store/types.ts';
import { useBackends, type Database } from './backends.ts';

let database: Database;
let stores: HostStores;

const installation = (id: string, target: Installation['target'] = 'organization'): Installation => ({
  id,
  integration: 'hello',
  organization: 'acme',
  target,
  ...(target === 'space' ? { space: `space_${id}` } : { spaceSelection: 'all' as const }),
  status: 'pending',
  configuration: {},
  externalIds: [],
  createdAt: '2026-01-01T00:00:00Z',
  updatedAt: '2026-01-01T00:00:00Z',
});
const owed = (id: string, installationId: string, createdAt = 0): NewOwedEvent => ({
  id,
  installationId,
  integration: 'hello',
  event: { type: 'installation_setup', status: 'pending', mark: id },
  createdAt,
});
const ids = (events: { id: string }[]) => events.map((event) => event.id);

describe.each(useBackends())('owed events on $name', (backend) => {
  beforeEach(async (context) => {
    if (backend.skip !== undefined) return context.skip(backend.skip);
    database = await backend.fresh();
    stores = await database.open();
  });
  afterEach(async () => {
    await database?.close();
  });

  it(
    'writes the events with the installation, the placement and the edit that owe them, and nothing when the change ' +
      'is refused',
    async () => {
      await stores.installations.insertInstallation(installation('inst_a'), 'hash_a', [
        { ...owed('evt_1', 'inst_a'), requestId: 'req_1' },
      ]);
      // Another organization: no organization installation there yet, so the placement creates one.
      const globex = (record: Installation): Installation => ({ ...record, organization: 'globex' });
      await stores.installations.insertChildInstallation(
        globex(installation('inst_s', 'space')),
        'hash_s',
        globex(installation('inst_p')),
        'hash_p',
        (placed) => [
          ...(placed.parentCreated ? [owed('evt_p', placed.parent.id)] : []),
          owed('evt_s', placed.child.id),
        ],
      );
      await stores.installations.editInstallation(
        'inst_a',
        (current) => ({ status: 'active', configuration: current.configuration }),
        ({ before, after }) => [
          {
            ...owed('evt_2', after.id),
            event: { type: 'installation_setup', status: after.status, previous: { status: before.status } },
          },
        ],
      );
      // A refused plan, or an owe step that throws, stores neither the change nor its events.
      await expect(
        stores.installations.editInstallation(
          'inst_a',
          () => {
            throw new Error('refused');
          },
          () => [owed('evt_x', 'inst_a')],
        ),
      ).rejects.toThrow('refused');
      await expect(
        stores.installations.editInstallation(
          'inst_a',
          (current) => ({ status: 'paused', configuration: current.configuration }),
          () => {
            throw new Error('no events');
          },
        ),
      ).rejects.toThrow('no events');
      expect((await stores.installations.getInstallation('inst_a'))?.status).toBe('active');
      await expect(
        stores.installations.insertChildInstallation(
          installation('inst_t', 'space'),
          'hash_t',
          installation('inst_q'),
          'hash_q',
          () => {
            throw new Error('no events');
          },
        ),
      ).rejects.toThrow('no events');
      expect(await stores.installations.getInstallation('inst_t')).toBeUndefined();

      expect(ids(await stores.owedEvents.list('inst_a', 10))).toEqual(['evt_2', 'evt_1']);
      expect((await stores.owedEvents.list('inst_a', 10)).map((event) => event.requestId)).toEqual([
        undefined,
        'req_1',
      ]);
      expect(ids(await stores.owedEvents.list('inst_p', 10))).toEqual(['evt_p']);
      expect(ids(await stores.owedEvents.list('inst_s', 10))).toEqual(['evt_s']);
      expect((await stores.owedEvents.list('inst_a', 1))[0]).toMatchObject({
        status: 'pending',
        attempts: 0,
        integration: 'hello',
        event: { type: 'installation_setup', status: 'active', previous: { status: 'pending' } },
      });
      expect(await stores.owedEvents.nextDueAt()).toBe(0);
    },
  );

  it(
    "hands out each installation's oldest unfinished event " + 'only, to one host, and the next once it is settled',
    async () => {
      await stores.installations.insertInstallation(installation('inst_a'), 'hash_a', [
        owed('a_1', 'inst_a'),
        owed('a_2', 'inst_a'),
        owed('a_3', 'inst_a'),
      ]);
      await stores.installations.insertInstallation(installation('inst_b'), 'hash_b', [owed('b_1', 'inst_b')]);
      const other = await database.open();
      const claims = await Promise.all([
        stores.owedEvents.claimDue(1_000, 60_000, 10),
        other.owedEvents.claimDue(1_000, 60_000, 10),
      ]);
      expect(ids(claims.flat()).sort()).toEqual(['a_1', 'b_1']);
      expect(claims.flat().find((event) => event.id === 'a_1')).toMatchObject({
        status: 'running',
        attempts: 1,
        leaseUntil: 61_000,
      });
      // While a_1 is held, a_2 waits behind it on every host.
      expect(await other.owedEvents.claimDue(2_000, 60_000, 10)).toEqual([]);
      expect(await other.owedEvents.depth()).toEqual({ pending: 2, running: 2 });
      expect(await stores.owedEvents.nextDueAt()).toBe(61_000);

      // a_1's host died: its lease lapses, another host takes it as attempt 2, and attempt 1's late result is not
      // written.
      const retaken = await other.owedEvents.claimDue(61_000, 60_000, 10);
      expect(retaken.map((event) => [event.id, event.attempts])).toEqual([
        ['a_1', 2],
        ['b_1', 2],
      ]);
      await stores.owedEvents.settle(
        'a_1',
        { status: 'failed' },
        { number: 1, lastStatus: 500, lastError: 'late', now: 61_500 },
      );
      expect(await stores.owedEvents.claimDue(61_600, 60_000, 10)).toEqual([]);
      await other.owedEvents.settle('a_1', { status: 'delivered' }, { number: 2, lastStatus: 200, now: 62_000 });

      // Now a_2 is the oldest unfinished one; a retry keeps it at the head until it is due again.
      const [second] = await stores.owedEvents.claimDue(62_000, 60_000, 10);
      expect(second).toMatchObject({ id: 'a_2', attempts: 1 });
      await stores.owedEvents.settle(
        'a_2',
        { status: 'pending', runAt: 70_000 },
        { number: 1, lastStatus: 503, lastError: 'it answered 503', now: 62_100 },
      );
      expect(await stores.owedEvents.claimDue(69_999, 60_000, 10)).toEqual([]);
      expect(ids(await stores.owedEvents.claimDue(70_000, 60_000, 10))).toEqual(['a_2']);
      // Failed for good, it lets the next one go.
      await stores.owedEvents.settle(
        'a_2',
        { status: 'failed' },
        { number: 2, lastStatus: 400, lastError: 'it answered 400', now: 70_100 },
      );
      expect(ids(await stores.owedEvents.claimDue(70_200, 60_000, 10))).toEqual(['a_3']);

      const listed = await stores.owedEvents.list('inst_a', 10);
      expect(
        listed.map((event) => [
          event.id,
          event.status,
          event.attempts,
          event.lastStatus ?? null,
          event.lastError ?? null,
        ]),
      ).toEqual([
        ['a_3', 'running', 1, null, null],
        ['a_2', 'failed', 2, 400, 'it answered 400'],
        ['a_1', 'delivered', 2, 200, null],
      ]);
    },
  );

  it(
    'takes back, at a start, the events a dead claimant left running: all on SQLite, those whose lease ended on ' +
      'PostgreSQL',
    async () => {
      await stores.installations.insertInstallation(installation('inst_a'), 'hash_a', [owed('a_1', 'inst_a')]);
      await stores.installations.insertInstallation({ ...installation('inst_b'), organization: 'globex' }, 'hash_b', [
        owed('b_1', 'inst_b'),
      ]);
      await stores.owedEvents.claimDue(1_000, 60_000, 1);
      await stores.owedEvents.claimDue(30_000, 60_000, 1);
      const restarted = await database.open();
      if (backend.name === 'sqlite') {
        expect(await restarted.owedEvents.resumeAbandoned(40_000)).toBe(2);
        expect(
          (await restarted.owedEvents.claimDue(40_000, 60_000, 10)).map((event) => [event.id, event.attempts]),
        ).toEqual([
          ['a_1', 2],
          ['b_1', 2],
        ]);
      } else {
        expect(await restarted.owedEvents.resumeAbandoned(61_000)).toBe(1);
        expect(
          (await restarted.owedEvents.claimDue(61_000, 60_000, 10)).map((event) => [event.id, event.attempts]),
        ).toEqual([['a_1', 2]]);
      }
    },
  );

  it(
    'forgets the events owed to an installation when it is ' + 'removed, with those of the installations under it',
    async () => {
      await stores.installations.insertChildInstallation(
        installation('inst_s', 'space'),
        'hash_s',
        installation('inst_p'),
        'hash_p',
        (placed) => [owed('evt_p', placed.parent.id), owed('evt_s', placed.child.id)],
      );
      await stores.installations.insertInstallation({ ...installation('inst_o'), organization: 'globex' }, 'hash_o', [
        owed('evt_o', 'inst_o'),
      ]);
      await stores.installations.deleteInstallation('inst_p');
      expect(await stores.owedEvents.list('inst_p', 10)).toEqual([]);
      expect(await stores.owedEvents.list('inst_s', 10)).toEqual([]);
      expect(ids(await stores.owedEvents.claimDue(1_000, 60_000, 10))).toEqual(['evt_o']);
    },
  );
});
