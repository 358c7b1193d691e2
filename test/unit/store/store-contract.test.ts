// The contract of every other store, on SQLite and PostgreSQL alike: installations (atomic edits,
// tokens revoked with their installation), metadata (first writer wins), OAuth states (consumed
// once, even when two consume at once), signing secrets, the event log, and migrations. On the
// shared store, a second host's cache sees another host's writes.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Installation } from '../../../host/installations/model.ts';
import type { HostStores } from '../../../host/store/types.ts';
import type { EventLogEntry } from '../../../host/dispatch/event-log.ts';
import { useBackends, type Database } from './backends.ts';

let database: Database;
let stores: HostStores;

const installation = (id: string, configuration: Record<string, unknown> = {}): Installation => ({
  id, integration: 'hello', organization: 'acme', target: 'organization', status: 'pending', configuration, spaceSelection: 'all', createdAt: `2026-01-01T00:00:0${id.length % 10}Z`,
});
const entry = (eventId: string, integration = 'hello'): EventLogEntry => ({
  eventId, integration, installationId: 'inst_1', type: 'fetch', status: 200, durationMs: 3.4, logs: [{ level: 'log', text: `line of ${eventId}` }], createdAt: '2026-01-01T00:00:00.000Z',
});

describe.each(useBackends())('stores on $name', (backend) => {
  beforeEach(async (context) => {
    if (backend.skip !== undefined) return context.skip(backend.skip);
    database = await backend.fresh();
    stores = await database.open();
  });
  afterEach(async () => {
    await database?.close();
  });

  it('keeps installations with their JSON exactly as written, and lists them by integration', async () => {
    await stores.installations.insertInstallation(installation('inst_a', { b: 1, a: [2, { c: null }] }), 'hash_a');
    await stores.installations.insertInstallation({ ...installation('inst_b'), integration: 'other' }, 'hash_b');
    const stored = await stores.installations.getInstallation('inst_a');
    expect(stored).toEqual(installation('inst_a', { b: 1, a: [2, { c: null }] }));
    expect(Object.keys(stored!.configuration)).toEqual(['b', 'a']);
    expect(Object.isFrozen(stored)).toBe(true);
    expect((await stores.installations.listInstallations({ integration: 'other' })).map((row) => row.id)).toEqual(['inst_b']);
    expect(await stores.installations.listInstallations()).toHaveLength(2);
    expect(await stores.installations.getInstallation('inst_missing')).toBeUndefined();
  });

  it('lists installations filtered by integration, organization and target, in (createdAt, id) order, after a position, up to a limit', async () => {
    const at = (second: number) => `2026-01-01T00:00:0${second}Z`;
    await stores.installations.insertInstallation({ ...installation('inst_c'), createdAt: at(1) }, 'hash_c');
    await stores.installations.insertInstallation({ ...installation('inst_b'), createdAt: at(1), target: 'space', space: 'space_1', spaceSelection: undefined }, 'hash_b');
    await stores.installations.insertInstallation({ ...installation('inst_a'), createdAt: at(2), organization: 'globex' }, 'hash_a');
    await stores.installations.insertInstallation({ ...installation('inst_d'), createdAt: at(0), integration: 'other' }, 'hash_d');
    const ids = async (filter?: Parameters<HostStores['installations']['listInstallations']>[0]) => (await stores.installations.listInstallations(filter)).map((row) => row.id);
    expect(await ids()).toEqual(['inst_d', 'inst_b', 'inst_c', 'inst_a']);
    expect(await ids({ integration: 'hello' })).toEqual(['inst_b', 'inst_c', 'inst_a']);
    expect(await ids({ organization: 'globex' })).toEqual(['inst_a']);
    expect(await ids({ target: 'space' })).toEqual(['inst_b']);
    expect(await ids({ integration: 'hello', organization: 'acme', target: 'organization' })).toEqual(['inst_c']);
    expect(await ids({ limit: 2 })).toEqual(['inst_d', 'inst_b']);
    expect(await ids({ after: { createdAt: at(1), id: 'inst_b' }, limit: 2 })).toEqual(['inst_c', 'inst_a']);
    expect(await ids({ integration: 'hello', after: { createdAt: at(1), id: 'inst_c' } })).toEqual(['inst_a']);
  });

  it('edits an installation atomically: concurrent edits never lose one, a refused plan stores nothing', async () => {
    await stores.installations.insertInstallation(installation('inst_a', { count: 0 }), 'hash_a');
    const other = await database.open();
    const bump = (store: HostStores) => store.installations.editInstallation('inst_a', (current) => ({ status: 'active', configuration: { count: (current.configuration.count as number) + 1 } }));
    await Promise.all(Array.from({ length: 20 }, (_, i) => bump(i % 2 === 0 ? stores : other)));
    expect((await stores.installations.getInstallation('inst_a'))?.configuration).toEqual({ count: 20 });
    await expect(stores.installations.editInstallation('inst_a', () => { throw new Error('refused'); })).rejects.toThrow('refused');
    expect((await stores.installations.getInstallation('inst_a'))?.configuration).toEqual({ count: 20 });
    expect(await stores.installations.editInstallation('inst_missing', (current) => current)).toBeUndefined();
  });

  it('revokes the token with its installation and returns what it removed', async () => {
    await stores.installations.insertInstallation(installation('inst_a'), 'hash_a');
    expect(await stores.installations.findTokenOwner('hash_a')).toBe('inst_a');
    expect(await stores.installations.deleteInstallation('inst_a')).toMatchObject({ id: 'inst_a' });
    expect(await stores.installations.findTokenOwner('hash_a')).toBeUndefined();
    expect(await stores.installations.deleteInstallation('inst_a')).toBeUndefined();
  });

  it('keeps the first value of a metadata key, whoever sets it', async () => {
    expect(await stores.meta.get('token-secret')).toBeUndefined();
    const other = await database.open();
    const [a, b] = await Promise.all([stores.meta.setIfAbsent('token-secret', 'first'), other.meta.setIfAbsent('token-secret', 'second')]);
    expect(a).toBe(b);
    expect(await stores.meta.setIfAbsent('token-secret', 'third')).toBe(a);
    expect(await other.meta.get('token-secret')).toBe(a);
  });

  it('marks an OAuth state used once, even when two consume it at the same moment', async () => {
    const other = await database.open();
    await stores.oauthStates.insert('nonce_1', 'inst_a', 10_000);
    expect(await stores.oauthStates.markUsed('nonce_1', 'inst_b', 5_000)).toBe(false);
    const results = await Promise.all([stores.oauthStates.markUsed('nonce_1', 'inst_a', 5_000), other.oauthStates.markUsed('nonce_1', 'inst_a', 5_000)]);
    expect(results.filter(Boolean)).toHaveLength(1);
    await stores.oauthStates.deleteExpired(20_000);
    expect(await stores.oauthStates.markUsed('nonce_1', 'inst_a', 5_000)).toBe(false);
  });

  it('creates, rotates and removes signing secrets', async () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(await stores.signingSecrets.rotate('inst_a', now)).toBeUndefined();
    const first = await stores.signingSecrets.create('inst_a');
    const second = await stores.signingSecrets.rotate('inst_a', now, 1_000);
    expect(await stores.signingSecrets.secretsFor('inst_a', now)).toEqual([second, first]);
    expect(await stores.signingSecrets.secretsFor('inst_a', now + 1_000)).toEqual([second]);
    await stores.signingSecrets.remove('inst_a');
    expect(await stores.signingSecrets.get('inst_a')).toBeUndefined();
    expect(await stores.signingSecrets.secretsFor('inst_a', now)).toEqual([]);
  });

  it('writes the event log in batches and reads it newest first, page by page', async () => {
    for (let i = 1; i <= 5; i++) stores.eventLog.record(entry(`evt_${i}`));
    stores.eventLog.record(entry('evt_other', 'other'));
    const first = await stores.eventLog.list('hello', { limit: 2 });
    expect(first.items.map((item) => item.eventId)).toEqual(['evt_5', 'evt_4']);
    expect(first.items[0]).toEqual({ ...entry('evt_5'), durationMs: 3 });
    const rest = await stores.eventLog.list('hello', { limit: 10, cursor: first.nextCursor! });
    expect(rest).toMatchObject({ items: [{ eventId: 'evt_3' }, { eventId: 'evt_2' }, { eventId: 'evt_1' }], nextCursor: null });
    expect(await stores.eventLog.get('other', 'evt_other')).toMatchObject({ eventId: 'evt_other' });
    expect(await stores.eventLog.get('hello', 'evt_other')).toBeUndefined();
    await expect(stores.eventLog.list('hello', { limit: 2, cursor: 'bogus' })).rejects.toMatchObject({ code: 'ERR_VALIDATION' });
  });

  it('keeps an event-log entry’s request id, and no request id for an entry without one', async () => {
    stores.eventLog.record({ ...entry('evt_with'), requestId: 'req_1234' });
    stores.eventLog.record(entry('evt_without'));
    expect(await stores.eventLog.get('hello', 'evt_with')).toEqual({ ...entry('evt_with'), durationMs: 3, requestId: 'req_1234' });
    expect(await stores.eventLog.get('hello', 'evt_without')).toEqual({ ...entry('evt_without'), durationMs: 3 });
  });

  it('answers ping while the database is up', async () => {
    await expect(stores.ping()).resolves.toBeUndefined();
  });

  it('opens an existing database again without applying anything twice', async () => {
    await stores.installations.insertInstallation(installation('inst_a'), 'hash_a');
    const again = await database.open();
    expect((await again.installations.getInstallation('inst_a'))?.id).toBe('inst_a');
  });

  it.runIf(backend.name === 'postgres')('shows a write of one host to another host within a second, cache and all', async () => {
    const other = await database.open();
    await stores.installations.insertInstallation(installation('inst_a', { v: 1 }), 'hash_a');
    // Both hosts have it cached now.
    expect((await other.installations.getInstallation('inst_a'))?.configuration).toEqual({ v: 1 });
    expect(await other.installations.findTokenOwner('hash_a')).toBe('inst_a');
    await stores.installations.editInstallation('inst_a', (current) => ({ status: current.status, configuration: { v: 2 } }));
    const started = Date.now();
    while ((await other.installations.getInstallation('inst_a'))?.configuration.v !== 2) {
      expect(Date.now() - started).toBeLessThan(1_000);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    await stores.installations.deleteInstallation('inst_a');
    while ((await other.installations.findTokenOwner('hash_a')) !== undefined) {
      expect(Date.now() - started).toBeLessThan(2_000);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  });
});
