// The stored-secrets contract on SQLite and PostgreSQL alike: rows hold only what the service
// sealed, writes replace by (integration, name), re-sealing never overwrites a newer value, the
// revision moves with every change and is seen by a second opener of the same database, and on
// the shared store another host is told which integration changed.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { StoredSecretRow } from '../../../host/secrets/model.ts';
import type { HostStores } from '../../../host/store/types.ts';
import { waitFor } from '../../helpers/host.ts';
import { useBackends, type Database } from './backends.ts';

let database: Database;
let stores: HostStores;

const row = (
  integration: string,
  name: string,
  nonce: string,
  setBy: StoredSecretRow['setBy'] = 'cli',
): StoredSecretRow => ({
  integration,
  name,
  keyId: 1,
  nonce,
  ciphertext: `ct-${nonce}`,
  setAt: '2026-12-01T10:00:00.000Z',
  setBy,
});

describe.each(useBackends())('stored secrets on $name', (backend) => {
  beforeEach(async (context) => {
    if (backend.skip !== undefined) return context.skip(backend.skip);
    database = await backend.fresh();
    stores = await database.open();
  });
  afterEach(async () => {
    await database?.close();
  });

  it('inserts, replaces by integration and name, lists in order, and removes', async () => {
    expect(await stores.secrets.put(row('zeta', 'B', 'n1'))).toEqual({ created: true });
    expect(await stores.secrets.put(row('alpha', 'A', 'n2', 'api'))).toEqual({ created: true });
    expect(await stores.secrets.put({ ...row('zeta', 'B', 'n3', 'console'), keyId: 2 })).toEqual({ created: false });
    expect(await stores.secrets.list()).toEqual([
      row('alpha', 'A', 'n2', 'api'),
      { ...row('zeta', 'B', 'n3', 'console'), keyId: 2 },
    ]);
    expect(await stores.secrets.list('alpha')).toEqual([row('alpha', 'A', 'n2', 'api')]);
    expect(await stores.secrets.list('nobody')).toEqual([]);
    expect(await stores.secrets.remove('zeta', 'B')).toBe(true);
    expect(await stores.secrets.remove('zeta', 'B')).toBe(false);
    expect((await stores.secrets.list()).map((entry) => entry.name)).toEqual(['A']);
  });

  it('keeps names exactly, __proto__ and case included', async () => {
    await stores.secrets.put(row('x', '__proto__', 'n1'));
    await stores.secrets.put(row('x', 'constructor', 'n2'));
    await stores.secrets.put(row('x', 'Key', 'n3'));
    await stores.secrets.put(row('x', 'KEY', 'n4'));
    expect((await stores.secrets.list('x')).map((entry) => entry.name).sort()).toEqual([
      'KEY',
      'Key',
      '__proto__',
      'constructor',
    ]);
  });

  it('re-seals only while the row still holds the nonce it was read with', async () => {
    await stores.secrets.put(row('x', 'N', 'old'));
    expect(await stores.secrets.reseal('x', 'N', 'old', { keyId: 2, nonce: 'new', ciphertext: 'ct-new' })).toBe(true);
    expect(await stores.secrets.reseal('x', 'N', 'old', { keyId: 3, nonce: 'newer', ciphertext: 'ct-newer' })).toBe(
      false,
    );
    expect(await stores.secrets.reseal('x', 'GONE', 'old', { keyId: 3, nonce: 'newer', ciphertext: 'ct-newer' })).toBe(
      false,
    );
    expect(await stores.secrets.list('x')).toEqual([{ ...row('x', 'N', 'new'), keyId: 2, ciphertext: 'ct-new' }]);
  });

  it('moves the revision with every change, not with a refused one, and a second opener sees it', async () => {
    const other = await database.open();
    const start = await other.secrets.revision();
    await stores.secrets.put(row('x', 'N', 'n1'));
    const afterPut = await other.secrets.revision();
    expect(afterPut).toBeGreaterThan(start);
    await stores.secrets.remove('x', 'MISSING');
    expect(await other.secrets.revision()).toBe(afterPut);
    await stores.secrets.reseal('x', 'N', 'n1', { keyId: 2, nonce: 'n2', ciphertext: 'c' });
    const afterReseal = await other.secrets.revision();
    expect(afterReseal).toBeGreaterThan(afterPut);
    await stores.secrets.remove('x', 'N');
    expect(await other.secrets.revision()).toBeGreaterThan(afterReseal);
  });

  it('tells another host which integration changed (shared store only)', async (context) => {
    if (!stores.shared)
      return context.skip('SQLite has one host per file: a host polls the revision for the command line');
    const other = await database.open();
    const heard: string[] = [];
    const stop = other.secrets.subscribe!((integration) => heard.push(integration));
    await stores.secrets.put(row('github-files', 'UNFURL_GITHUB_CLIENT_ID', 'n1'));
    await stores.secrets.remove('github-files', 'UNFURL_GITHUB_CLIENT_ID');
    await waitFor(() => heard.length === 2);
    expect(heard).toEqual(['github-files', 'github-files']);
    stop();
  });

  it('stores no plaintext column: only what was sealed', async () => {
    await stores.secrets.put(row('x', 'N', 'n1'));
    const [stored] = await database.rows('SELECT * FROM integration_secrets');
    expect(Object.keys(stored).sort()).toEqual([
      'ciphertext',
      'integration',
      'key_id',
      'name',
      'nonce',
      'set_at',
      'set_by',
    ]);
  });
});
