// One transaction on a node:sqlite handle: BEGIN IMMEDIATE, the synchronous work, COMMIT, or
// ROLLBACK and rethrow. Synchronous work cannot interleave with anything else in this process, and
// IMMEDIATE takes the write lock at once, so a read-modify-write inside is atomic.

import type { DatabaseSync } from 'node:sqlite';

export function inTransaction<T>(db: DatabaseSync, work: () => T): T {
  // Nested use joins the open transaction.
  if (db.isTransaction) return work();
  db.exec('BEGIN IMMEDIATE');
  try {
    const result = work();
    db.exec('COMMIT');
    return result;
  } catch (error) {
    try {
      db.exec('ROLLBACK');
    } catch {
      // The transaction may already be gone; the original error is the one worth reporting.
    }
    throw error;
  }
}
