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
  id,
  integration: 'hello',
  organization: 'acme',
  target: 'organization',
  status: 'pending',
  configuration,
  externalIds: [],
  spaceSelection: 'all',
  createdAt: `2026-01-01T00:00:0${id.length % 10}Z`,
  updatedAt: `2026-01-01T00:00:0${id.length % 10}Z`,
});
const spaceInstallation = (id: string, space: string): Installation => ({
  id,
  integration: 'hello',
  organization: 'acme',
  target: 'space',
  space,
  status: 'active',
  configuration: {},
  externalIds: [],
  createdAt: '2026-01-02T00:00:00Z',
  updatedAt: '2026-01-02T00:00:00Z',
});
const entry = (eventId: string, integration = 'hello'): EventLogEntry => ({
  eventId,
  integration,
  installationId: 'inst_1',
  type: 'fetch',
  status: 200,
  durationMs: 3.4,
  logs: [{ level: 'log', text: `line of ${eventId}` }],
  createdAt: '2026-01-01T00:00:00.000Z',
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
    expect((await stores.installations.listInstallations({ integration: 'other' })).map((row) => row.id)).toEqual([
      'inst_b',
    ]);
    expect(await stores.installations.listInstallations()).toHaveLength(2);
    expect(await stores.installations.getInstallation('inst_missing')).toBeUndefined();
  });

  it(
    'lists installations filtered by integration, organization and target, in (createdAt, id) order, after a ' +
      'position, up to a limit',
    async () => {
      const at = (second: number) => `2026-01-01T00:00:0${second}Z`;
      await stores.installations.insertInstallation({ ...installation('inst_c'), createdAt: at(1) }, 'hash_c');
      await stores.installations.insertInstallation(
        { ...installation('inst_b'), createdAt: at(1), target: 'space', space: 'space_1', spaceSelection: undefined },
        'hash_b',
      );
      await stores.installations.insertInstallation(
        { ...installation('inst_a'), createdAt: at(2), organization: 'globex' },
        'hash_a',
      );
      await stores.installations.insertInstallation(
        { ...installation('inst_d'), createdAt: at(0), integration: 'other' },
        'hash_d',
      );
      const ids = async (filter?: Parameters<HostStores['installations']['listInstallations']>[0]) =>
        (await stores.installations.listInstallations(filter)).map((row) => row.id);
      expect(await ids()).toEqual(['inst_d', 'inst_b', 'inst_c', 'inst_a']);
      expect(await ids({ integration: 'hello' })).toEqual(['inst_b', 'inst_c', 'inst_a']);
      expect(await ids({ organization: 'globex' })).toEqual(['inst_a']);
      expect(await ids({ target: 'space' })).toEqual(['inst_b']);
      expect(await ids({ integration: 'hello', organization: 'acme', target: 'organization' })).toEqual(['inst_c']);
      expect(await ids({ limit: 2 })).toEqual(['inst_d', 'inst_b']);
      expect(await ids({ after: { createdAt: at(1), id: 'inst_b' }, limit: 2 })).toEqual(['inst_c', 'inst_a']);
      expect(await ids({ integration: 'hello', after: { createdAt: at(1), id: 'inst_c' } })).toEqual(['inst_a']);
    },
  );

  it('edits an installation atomically: concurrent edits never lose one, a refused plan stores nothing', async () => {
    await stores.installations.insertInstallation(installation('inst_a', { count: 0 }), 'hash_a');
    const other = await database.open();
    const bump = (store: HostStores) =>
      store.installations.editInstallation('inst_a', (current) => ({
        status: 'active',
        configuration: { count: (current.configuration.count as number) + 1 },
      }));
    await Promise.all(Array.from({ length: 20 }, (_, i) => bump(i % 2 === 0 ? stores : other)));
    expect((await stores.installations.getInstallation('inst_a'))?.configuration).toEqual({ count: 20 });
    await expect(
      stores.installations.editInstallation('inst_a', () => {
        throw new Error('refused');
      }),
    ).rejects.toThrow('refused');
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
    const [a, b] = await Promise.all([
      stores.meta.setIfAbsent('token-secret', 'first'),
      other.meta.setIfAbsent('token-secret', 'second'),
    ]);
    expect(a).toBe(b);
    expect(await stores.meta.setIfAbsent('token-secret', 'third')).toBe(a);
    expect(await other.meta.get('token-secret')).toBe(a);
  });

  it('marks an OAuth state used once, even when two consume it at the same moment', async () => {
    const other = await database.open();
    await stores.oauthStates.insert('nonce_1', 'inst_a', 10_000);
    expect(await stores.oauthStates.markUsed('nonce_1', 'inst_b', 5_000)).toBe(false);
    const results = await Promise.all([
      stores.oauthStates.markUsed('nonce_1', 'inst_a', 5_000),
      other.oauthStates.markUsed('nonce_1', 'inst_a', 5_000),
    ]);
    expect(results.filter(Boolean)).toHaveLength(1);
    await stores.oauthStates.deleteExpired(20_000);
    expect(await stores.oauthStates.markUsed('nonce_1', 'inst_a', 5_000)).toBe(false);
  });

  it(
    'keeps a sealed OAuth state as written and marks it used ' + 'once, even when two hosts redeem it at once',
    async () => {
      const other = await database.open();
      const row = {
        nonce: 'nonce_s',
        integration: 'jira',
        installationId: 'inst_a',
        callbackPath: '/v1/integrations/jira/integration/oauth',
        bindingHash: 'hash',
        originalState: '{"installationId":"inst_a"} é',
        expiresAt: 10_000,
      };
      await stores.sealedOAuthStates.insert(row);
      await stores.sealedOAuthStates.insert({ ...row, nonce: 'nonce_t', originalState: null });
      expect(await other.sealedOAuthStates.get('nonce_s')).toEqual({ ...row, usedAt: null });
      expect((await other.sealedOAuthStates.get('nonce_t'))?.originalState).toBeNull();
      expect(await other.sealedOAuthStates.get('nonce_unknown')).toBeUndefined();
      const results = await Promise.all([
        stores.sealedOAuthStates.markUsed('nonce_s', 5_000),
        other.sealedOAuthStates.markUsed('nonce_s', 5_001),
      ]);
      expect(results.filter(Boolean)).toHaveLength(1);
      expect((await stores.sealedOAuthStates.get('nonce_s'))?.usedAt).toBeGreaterThanOrEqual(5_000);
      await stores.sealedOAuthStates.deleteExpired(20_000);
      expect(await other.sealedOAuthStates.get('nonce_s')).toBeUndefined();
    },
  );

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

  it('reads the signing secrets of a batch in one call: an entry per id, empty for one that has none', async () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    const first = await stores.signingSecrets.create('inst_b');
    const second = await stores.signingSecrets.rotate('inst_b', now, 1_000);
    const other = await stores.signingSecrets.create('inst_c');
    const before = stores.traffic().roundTrips;
    const found = await stores.signingSecrets.secretsForMany(['inst_b', 'inst_gone', 'inst_c', 'inst_b'], now);
    expect(stores.traffic().roundTrips - before).toBe(1);
    expect([...found]).toEqual([
      ['inst_b', [second, first]],
      ['inst_gone', []],
      ['inst_c', [other]],
    ]);
    expect((await stores.signingSecrets.secretsForMany(['inst_b'], now + 1_000)).get('inst_b')).toEqual([second]);
    expect(await stores.signingSecrets.secretsForMany([], now)).toEqual(new Map());
  });

  it('writes the event log in batches and reads it newest first, page by page', async () => {
    for (let i = 1; i <= 5; i++) stores.eventLog.record(entry(`evt_${i}`));
    stores.eventLog.record(entry('evt_other', 'other'));
    const first = await stores.eventLog.list('hello', { limit: 2 });
    expect(first.items.map((item) => item.eventId)).toEqual(['evt_5', 'evt_4']);
    expect(first.items[0]).toEqual({ ...entry('evt_5'), durationMs: 3 });
    const rest = await stores.eventLog.list('hello', { limit: 10, cursor: first.nextCursor! });
    expect(rest).toMatchObject({
      items: [{ eventId: 'evt_3' }, { eventId: 'evt_2' }, { eventId: 'evt_1' }],
      nextCursor: null,
    });
    expect(await stores.eventLog.get('other', 'evt_other')).toMatchObject({ eventId: 'evt_other' });
    expect(await stores.eventLog.get('hello', 'evt_other')).toBeUndefined();
    await expect(stores.eventLog.list('hello', { limit: 2, cursor: 'bogus' })).rejects.toMatchObject({
      code: 'ERR_VALIDATION',
    });
  });

  it('keeps an event-log entry’s request id, and no request id for an entry without one', async () => {
    stores.eventLog.record({ ...entry('evt_with'), requestId: 'req_1234' });
    stores.eventLog.record(entry('evt_without'));
    expect(await stores.eventLog.get('hello', 'evt_with')).toEqual({
      ...entry('evt_with'),
      durationMs: 3,
      requestId: 'req_1234',
    });
    expect(await stores.eventLog.get('hello', 'evt_without')).toEqual({ ...entry('evt_without'), durationMs: 3 });
  });

  it(
    'puts space installations under one organization installation, created once even when two hosts place children ' +
      'at once',
    async () => {
      const other = await database.open();
      const placed = await Promise.all(
        ['space_1', 'space_2', 'space_3', 'space_4'].map((space, i) =>
          (i % 2 === 0 ? stores : other).installations.insertChildInstallation(
            spaceInstallation(`inst_child_${i}`, space),
            `hash_child_${i}`,
            { ...installation(`inst_parent_${i}`), createdAt: '2026-01-01T00:00:00Z' },
            `hash_parent_${i}`,
          ),
        ),
      );
      const parents = new Set(placed.map((one) => one.parent.id));
      expect(parents.size).toBe(1);
      expect(placed.filter((one) => one.parentCreated)).toHaveLength(1);
      const [parent] = parents;
      expect((await stores.installations.listInstallations({ parent })).map((child) => child.space).sort()).toEqual([
        'space_1',
        'space_2',
        'space_3',
        'space_4',
      ]);
      // Removing the organization installation takes its children and all their tokens.
      await stores.installations.deleteInstallation(parent);
      for (let i = 0; i < 4; i++) {
        expect(await stores.installations.getInstallation(`inst_child_${i}`)).toBeUndefined();
        expect(await stores.installations.findTokenOwner(`hash_child_${i}`)).toBeUndefined();
      }
    },
  );

  it('adopts a space installation that has no organization installation yet, once', async () => {
    await stores.installations.insertInstallation(spaceInstallation('inst_orphan', 'space_1'), 'hash_orphan');
    const first = await stores.installations.adoptChildInstallation(
      'inst_orphan',
      installation('inst_new_parent'),
      'hash_new_parent',
    );
    expect(first).toMatchObject({
      parentCreated: true,
      parent: { id: 'inst_new_parent' },
      child: { parent: 'inst_new_parent' },
    });
    const again = await stores.installations.adoptChildInstallation(
      'inst_orphan',
      installation('inst_other_parent'),
      'hash_other',
    );
    expect(again).toMatchObject({ parentCreated: false, parent: { id: 'inst_new_parent' } });
    expect(await stores.installations.getInstallation('inst_other_parent')).toBeUndefined();
    expect(
      await stores.installations.adoptChildInstallation('inst_missing', installation('inst_x'), 'hash_x'),
    ).toBeUndefined();
  });

  it('keeps external ids and the time of an edit', async () => {
    await stores.installations.insertInstallation(installation('inst_a'), 'hash_a');
    await stores.installations.editInstallation('inst_a', (current) => ({
      status: current.status,
      configuration: {},
      externalIds: ['ext-1'],
      updatedAt: '2026-02-02T00:00:00Z',
    }));
    expect(await stores.installations.getInstallation('inst_a')).toMatchObject({
      externalIds: ['ext-1'],
      updatedAt: '2026-02-02T00:00:00Z',
    });
  });

  it(
    'queues tasks within their bound, hands each due task to one claim only, and settles only the claiming ' +
      'attempt',
    async () => {
      const task = (id: string, runAt: number) => ({
        id,
        integration: 'hello',
        eventId: `evt_${id}`,
        payload: { id },
        runAt,
        createdAt: 0,
      });
      expect(await stores.tasks.enqueue(task('task_1', 100), 2)).toBe(true);
      expect(await stores.tasks.enqueue(task('task_2', 500_000), 2)).toBe(true);
      expect(await stores.tasks.enqueue(task('task_3', 100), 2)).toBe(false);
      expect(await stores.tasks.nextDueAt()).toBe(100);
      const other = await database.open();
      const claims = await Promise.all([
        stores.tasks.claimDue(1_000, 60_000, 10),
        other.tasks.claimDue(1_000, 60_000, 10),
      ]);
      expect(claims.flat().map((claimed) => claimed.id)).toEqual(['task_1']);
      expect(claims.flat()[0]).toMatchObject({
        status: 'running',
        attempts: 1,
        leaseUntil: 61_000,
        payload: { id: 'task_1' },
      });
      // The lease lapses (its host died): another claim takes it as attempt 2, and attempt 1's late result is not
      // written.
      const [retaken] = await other.tasks.claimDue(61_000, 60_000, 10);
      expect(retaken).toMatchObject({ id: 'task_1', attempts: 2 });
      await stores.tasks.settle(
        'task_1',
        { status: 'failed' },
        { number: 1, lastStatus: 500, lastError: 'late', now: 61_500 },
      );
      await other.tasks.settle('task_1', { status: 'succeeded' }, { number: 2, lastStatus: 200, now: 62_000 });
      const { items } = await stores.tasks.list('hello', { limit: 10 });
      expect(items.map((one) => [one.id, one.status, one.lastStatus])).toEqual([
        ['task_2', 'pending', undefined],
        ['task_1', 'succeeded', 200],
      ]);
    },
  );

  it(
    'claims due tasks fairly: integrations take turns, and one whose tasks fill the runner waits behind a ' +
      'newcomer',
    async () => {
      const task = (id: string, integration: string, runAt: number) => ({
        id,
        integration,
        eventId: `evt_${id}`,
        payload: { id },
        runAt,
        createdAt: 0,
      });
      for (let i = 1; i <= 6; i++) expect(await stores.tasks.enqueue(task(`hog_${i}`, 'hog', i), 100)).toBe(true);
      expect(await stores.tasks.enqueue(task('victim_1', 'victim', 50), 100)).toBe(true);
      expect(await stores.tasks.enqueue(task('victim_2', 'victim', 60), 100)).toBe(true);
      // Turns: each integration's first due task, then each one's second, oldest first within a turn.
      expect((await stores.tasks.claimDue(1_000, 60_000, 4)).map((claimed) => claimed.id).sort()).toEqual([
        'hog_1',
        'hog_2',
        'victim_1',
        'victim_2',
      ]);
      // hog has two tasks running now, victim two as well: a newcomer's task goes first, then theirs in turn.
      expect(await stores.tasks.enqueue(task('late_1', 'late', 900), 100)).toBe(true);
      expect((await stores.tasks.claimDue(1_000, 60_000, 1)).map((claimed) => claimed.id)).toEqual(['late_1']);
      expect((await stores.tasks.claimDue(1_000, 60_000, 1)).map((claimed) => claimed.id)).toEqual(['hog_3']);
    },
  );

  it("keeps a site's adaptive schema", async () => {
    await stores.platform.seed({
      firstPartyOrganizations: [],
      firstPartyIntegrations: [],
      organizations: [{ id: 'acme', subdomain: 'acme', title: 'Acme', members: [] }],
      spaces: [],
      sites: [{ id: 'site_1', organization: 'acme', title: 'Site', spaces: [], views: [], feedback: [] }],
    });
    expect(await stores.platform.getAdaptiveSchema('site_1')).toBeUndefined();
    const schema = { type: 'object', properties: { unsigned: { type: 'object' } }, additionalProperties: false };
    await stores.platform.putAdaptiveSchema('site_1', schema);
    expect(await stores.platform.getAdaptiveSchema('site_1')).toMatchObject({ siteId: 'site_1', jsonSchema: schema });
  });

  it('answers ping while the database is up', async () => {
    await expect(stores.ping()).resolves.toBeUndefined();
  });

  it('opens an existing database again without applying anything twice', async () => {
    await stores.installations.insertInstallation(installation('inst_a'), 'hash_a');
    const again = await database.open();
    expect((await again.installations.getInstallation('inst_a'))?.id).toBe('inst_a');
  });

  it.runIf(backend.name === 'postgres')(
    'shows a write of one host to another host within a second, cache and all',
    async () => {
      const other = await database.open();
      await stores.installations.insertInstallation(installation('inst_a', { v: 1 }), 'hash_a');
      // Both hosts have it cached now.
      expect((await other.installations.getInstallation('inst_a'))?.configuration).toEqual({ v: 1 });
      expect(await other.installations.findTokenOwner('hash_a')).toBe('inst_a');
      await stores.installations.editInstallation('inst_a', (current) => ({
        status: current.status,
        configuration: { v: 2 },
      }));
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
    },
  );
});
