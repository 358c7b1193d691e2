// Opens the host's stores for assembly and turns the operator's mistakes (an unwritable folder, a
// file that is not a database) into one line naming `--data` and the fix. Any other failure is
// passed on unchanged: it would be a host bug, worth its stack trace.

import { HostError } from '../common/errors.ts';
import { openSqliteStores } from '../store/sqlite/open.ts';
import type { HostStores } from '../store/types.ts';

const FILE_SYSTEM_CODES = new Set(['EACCES', 'EPERM', 'EROFS', 'ENOTDIR', 'ENOENT', 'EISDIR', 'ENOSPC']);

export function openStores(dataPath: string): HostStores {
  try {
    return openSqliteStores(dataPath);
  } catch (error) {
    const { code, message } = error as NodeJS.ErrnoException;
    const reason = code === 'ERR_SQLITE_ERROR' ? message : code !== undefined && FILE_SYSTEM_CODES.has(code) ? code : undefined;
    if (reason === undefined) throw error;
    throw new HostError('ERR_STORE_UNAVAILABLE', `cannot open the store "${dataPath}" (${reason}): pass --data with a writable file path, or --data :memory: for a throwaway store`);
  }
}
