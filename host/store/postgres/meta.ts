// Host metadata on PostgreSQL: small named values shared by every host on the database (the token
// secret). The first host to set a key wins; the others read its value.

import type { MetaStore } from '../types.ts';
import type { Db } from './connection.ts';

export function createPostgresMetaStore(db: Db): MetaStore {
  return {
    get: async (key) =>
      (await db.query<{ value: string }>('SELECT value FROM meta WHERE key = $1', [key])).rows[0]?.value,
    async setIfAbsent(key, value) {
      await db.query('INSERT INTO meta (key, value) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING', [key, value]);
      return (await db.query<{ value: string }>('SELECT value FROM meta WHERE key = $1', [key])).rows[0].value;
    },
  };
}
