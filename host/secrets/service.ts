// Stored integration secrets as the operator handles them (command line, admin API, console):
// set (checked, sealed with the newest key), unset, list (names, when and how set, never values),
// the decrypted snapshot a host resolves manifests from, and re-encryption under the newest key.
// Never returns, logs or puts a value into a message; only the snapshot holds plaintext.

import { HostError } from '../common/errors.ts';
import { seal, unseal, UnreadableSecretError } from './cipher.ts';
import { HOW_TO_PROVIDE_A_KEY, type KeyRing } from './keys.ts';
import type { IntegrationSecretStore, SecretSetBy, StoredSecretRow } from './model.ts';
import { checkIntegrationName, checkSecretName, checkSecretValue } from './names.ts';

/** One stored secret as listings show it. */
export interface SecretListing {
  integration: string;
  name: string;
  setAt: string;
  setBy: SecretSetBy;
  /** The key its value is encrypted with. */
  keyId: number;
  /** Whether this process can decrypt it; `problem` says why not. */
  readable: boolean;
  problem?: string;
}

/** A stored value, or why this host cannot read it. */
export type StoredSecret = { value: string } | { problem: string };

export interface SecretSnapshot {
  /** The store's revision when the rows were read. */
  revision: number;
  /** integration → secret name → value (or problem). */
  byIntegration: ReadonlyMap<string, ReadonlyMap<string, StoredSecret>>;
  /** integration → what identifies its rows (names, key ids, nonces; never a value): equal means unchanged. */
  fingerprints: ReadonlyMap<string, string>;
}

export const EMPTY_SNAPSHOT: SecretSnapshot = { revision: -1, byIntegration: new Map(), fingerprints: new Map() };

export interface ReencryptResult {
  /** Values now under the newest key that were not before. */
  reencrypted: number;
  /** Values that already were. */
  current: number;
  /** Values set again or unset while this ran (left as they now are). */
  changedMeanwhile: number;
  /** Values this ring cannot decrypt (left as they are). */
  unreadable: { integration: string; name: string; problem: string }[];
  keyId: number;
}

export interface SecretService {
  readonly ring: KeyRing;
  set(
    integration: string,
    name: string,
    value: unknown,
    setBy: SecretSetBy,
  ): Promise<SecretListing & { created: boolean }>;
  /** Whether there was a value to remove. */
  unset(integration: string, name: string): Promise<boolean>;
  list(integration?: string): Promise<SecretListing[]>;
  snapshot(): Promise<SecretSnapshot>;
  /** Seals every value again with the newest key. Throws ERR_SECRETS_KEY_MISSING without a key. */
  reencrypt(): Promise<ReencryptResult>;
}

export interface SecretServiceDeps {
  store: IntegrationSecretStore;
  ring: KeyRing;
  now(): number;
}

function readRow(ring: KeyRing, row: StoredSecretRow): StoredSecret {
  try {
    return { value: unseal(ring, row.integration, row.name, row) };
  } catch (error) {
    if (error instanceof UnreadableSecretError) return { problem: error.message };
    throw error;
  }
}

function listing(ring: KeyRing, row: StoredSecretRow): SecretListing {
  const read = readRow(ring, row);
  return {
    integration: row.integration,
    name: row.name,
    setAt: row.setAt,
    setBy: row.setBy,
    keyId: row.keyId,
    readable: 'value' in read,
    ...('problem' in read ? { problem: read.problem } : {}),
  };
}

export function createSecretService(deps: SecretServiceDeps): SecretService {
  const { store, ring } = deps;
  const requireKey = (what: string): number => {
    if (ring.current === undefined)
      throw new HostError(
        'ERR_SECRETS_KEY_MISSING',
        `cannot ${what}: no secrets key is configured; ${HOW_TO_PROVIDE_A_KEY}`,
      );
    return ring.current;
  };
  return {
    ring,
    async set(integration, name, value, setBy) {
      checkIntegrationName(integration);
      checkSecretName(name);
      const text = checkSecretValue(value);
      requireKey(`store secret ${name} of ${integration}`);
      const sealed = seal(ring, integration, name, text);
      const row: StoredSecretRow = { integration, name, ...sealed, setAt: new Date(deps.now()).toISOString(), setBy };
      const { created } = await store.put(row);
      return { integration, name, setAt: row.setAt, setBy, keyId: sealed.keyId, readable: true, created };
    },
    async unset(integration, name) {
      checkIntegrationName(integration);
      checkSecretName(name);
      return store.remove(integration, name);
    },
    async list(integration) {
      if (integration !== undefined) checkIntegrationName(integration);
      return (await store.list(integration)).map((row) => listing(ring, row));
    },
    async snapshot() {
      // The revision first: a change landing between the two reads moves it past what we record,
      // so the next look at the revision reads the rows again.
      const revision = await store.revision();
      const byIntegration = new Map<string, Map<string, StoredSecret>>();
      const identities = new Map<string, string[]>();
      for (const row of await store.list()) {
        let values = byIntegration.get(row.integration);
        if (values === undefined) byIntegration.set(row.integration, (values = new Map()));
        values.set(row.name, readRow(ring, row));
        identities.set(row.integration, [
          ...(identities.get(row.integration) ?? []),
          `${row.name}:${row.keyId}:${row.nonce}`,
        ]);
      }
      const fingerprints = new Map([...identities].map(([integration, parts]) => [integration, parts.join(' ')]));
      return { revision, byIntegration, fingerprints };
    },
    async reencrypt() {
      const keyId = requireKey('re-encrypt the stored secrets');
      const result: ReencryptResult = { reencrypted: 0, current: 0, changedMeanwhile: 0, unreadable: [], keyId };
      for (const row of await store.list()) {
        if (row.keyId === keyId) {
          result.current++;
          continue;
        }
        const read = readRow(ring, row);
        if ('problem' in read) {
          result.unreadable.push({ integration: row.integration, name: row.name, problem: read.problem });
          continue;
        }
        const replaced = await store.reseal(
          row.integration,
          row.name,
          row.nonce,
          seal(ring, row.integration, row.name, read.value),
        );
        if (replaced) result.reencrypted++;
        else result.changedMeanwhile++;
      }
      return result;
    },
  };
}
