// Picks the store a host runs on: PostgreSQL when a store URL is given (`--store`, DATABASE_URL
// through the command line), else the embedded SQLite file (`--data`). The only place that knows
// both exist; the PostgreSQL modules (and pg) load only when asked for, so the SQLite default
// starts as fast as before.

import type { Logger } from '../common/logger.ts';
import { openSqliteStores } from './sqlite/open.ts';
import type { HostStores } from './types.ts';

export async function openStores(options: { storeUrl?: string; dataPath: string; log: Logger }): Promise<HostStores> {
  if (options.storeUrl === undefined) return openSqliteStores(options.dataPath);
  const { openPostgresStores } = await import('./postgres/open.ts');
  return openPostgresStores(options.storeUrl, { log: options.log });
}
