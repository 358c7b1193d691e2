// One transaction on a node:sqlite handle: BEGIN IMMEDIATE, the synchronous work, COMMIT, or
// ROLLBACK and rethrow. Synchronous work cannot interleave with anything else in this process, and
// IMMEDIATE takes the write lock at once, so a read-modify-write inside is atomic.

import type { DatabaseSync, StatementSync } from 'node:sqlite';

interface Control {
  begin: StatementSync;
  commit: StatementSync;
}

// BEGIN and COMMIT prepared once per handle: `exec` compiled both again on every transaction.
const controls = new WeakMap<DatabaseSync, Control>();

function controlOf(db: DatabaseSync): Control {
  let control = controls.get(db);
  if (control === undefined) {
    control = { begin: db.prepare('BEGIN IMMEDIATE'), commit: db.prepare('COMMIT') };
    controls.set(db, control);
  }
  return control;
}

export function inTransaction<T>(db: DatabaseSync, work: () => T): T {
  // Nested use joins the open transaction.
  if (db.isTransaction) return work();
  const control = controlOf(db);
  control.begin.run();
  try {
    const result = work();
    control.commit.run();
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
