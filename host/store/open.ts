// Picks the store a host runs on: PostgreSQL when a store URL is given (`--store`, DATABASE_URL
// through the command line), else the embedded SQLite file (`--data`). The only place that knows
// both exist.

import type { Logger } from '../common/logger.ts';
import { openPostgresStores } from './postgres/open.ts';
import { openSqliteStores } from './sqlite/open.ts';
import type { HostStores } from './types.ts';

export async function openStores(options: { storeUrl?: string; dataPath: string; log: Logger }): Promise<HostStores> {
  if (options.storeUrl !== undefined) return openPostgresStores(options.storeUrl, { log: options.log });
  return openSqliteStores(options.dataPath);
}
