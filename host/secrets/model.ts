// The records of stored integration secrets and the interface a store implements for them. Rows
// hold only ciphertext; a revision counter moves with every change so any process on the database
// (another host, the command line) can tell that something changed.

import type { Sealed } from './cipher.ts';

/** How a value was set: `npm run secrets`, the admin API, or the console. */
export type SecretSetBy = 'cli' | 'api' | 'console';

export const SET_BY: readonly SecretSetBy[] = ['cli', 'api', 'console'];

export interface StoredSecretRow extends Sealed {
  integration: string;
  name: string;
  /** ISO 8601: when the value was last set (re-encryption keeps it). */
  setAt: string;
  setBy: SecretSetBy;
}

export interface IntegrationSecretStore {
  /** Every row, or one integration's, ordered by integration then name. */
  list(integration?: string): Promise<StoredSecretRow[]>;
  /** Inserts or replaces the row of (integration, name); whether it is new. */
  put(row: StoredSecretRow): Promise<{ created: boolean }>;
  /** Removes the row; whether there was one. */
  remove(integration: string, name: string): Promise<boolean>;
  /**
   * Replaces the sealed value of a row only while it still holds `expectedNonce` (re-encryption:
   * a value set meanwhile is never overwritten with the old one). Whether it was replaced.
   */
  reseal(integration: string, name: string, expectedNonce: string, sealed: Sealed): Promise<boolean>;
  /** A number that changes whenever any row changes, by any process on this database. */
  revision(): Promise<number>;
  /**
   * Calls `listener` with the integration whose secrets another host changed, as soon as the
   * database says so (PostgreSQL notifications); absent where nothing announces changes.
   */
  subscribe?(listener: (integration: string) => void): () => void;
}
