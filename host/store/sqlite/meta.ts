// Host metadata on node:sqlite: small named values the host keeps across restarts (the token
// secret). A key-value table; it never interprets the values.

import type { DatabaseSync } from 'node:sqlite';
import type { MetaStore } from '../types.ts';

export function createSqliteMetaStore(db: DatabaseSync): MetaStore {
  const get = db.prepare('SELECT value FROM meta WHERE key = ?');
  const insert = db.prepare('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO NOTHING');
  const read = (key: string): string | undefined => (get.get(key) as { value: string } | undefined)?.value;
  return {
    get: async (key) => read(key),
    async setIfAbsent(key, value) {
      insert.run(key, value);
      return read(key) as string;
    },
  };
}
