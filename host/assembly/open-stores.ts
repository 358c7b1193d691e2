// Opens the host's stores for assembly and turns the operator's mistakes with a SQLite file (an
// unwritable folder, a file that is not a database) into one line naming `--data` and the fix.
// Any other failure is passed on unchanged (PostgreSQL names its own; the rest are host bugs).

import { HostError } from '../common/errors.ts';
import type { Logger } from '../common/logger.ts';
import { openStores } from '../store/open.ts';
import type { HostStores } from '../store/types.ts';

const FILE_SYSTEM_CODES = new Set(['EACCES', 'EPERM', 'EROFS', 'ENOTDIR', 'ENOENT', 'EISDIR', 'ENOSPC']);

export async function openStoresExplained(options: {
  storeUrl?: string;
  dataPath: string;
  log: Logger;
}): Promise<HostStores> {
  try {
    return await openStores(options);
  } catch (error) {
    if (options.storeUrl !== undefined || error instanceof HostError) throw error;
    const { code, message } = error as NodeJS.ErrnoException;
    const reason =
      code === 'ERR_SQLITE_ERROR' ? message : code !== undefined && FILE_SYSTEM_CODES.has(code) ? code : undefined;
    if (reason === undefined) throw error;
    throw new HostError(
      'ERR_STORE_UNAVAILABLE',
      `cannot open the store "${options.dataPath}" (${reason}): pass --data with ` +
        `a writable file path, or --data :memory: for a throwaway store`,
    );
  }
}
