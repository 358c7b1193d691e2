// Judges the path of one archive entry before anything is written: relative, no `.` or `..`
// segment, no backslash, NUL or control character, within the length and depth bounds. Pure;
// never touches the file system.

import { HostError } from '../common/errors.ts';
import type { PublishLimits } from './limits.ts';

const CONTROL = /[\u0000-\u001f\u007f]/;

const refuse = (shown: string, why: string): HostError =>
  new HostError(
    'ERR_ARCHIVE_INVALID',
    `archive entry ${shown} ${why}; nothing was stored (publish a folder with \`integration-host publish\`)`,
  );

/**
 * The entry's path inside the integration folder (`src/index.ts`; a folder without its final
 * `/`), or null for the archive's own root (`./`). Throws ERR_ARCHIVE_INVALID naming the entry.
 */
export function entryPath(name: string, directory: boolean, limits: PublishLimits): string | null {
  const shown = JSON.stringify(name.length > 200 ? `${name.slice(0, 200)}…` : name);
  if (CONTROL.test(name)) return failWith(refuse(shown, 'has a NUL or control character in its path'));
  if (name.includes('\\')) return failWith(refuse(shown, 'has a backslash in its path (a Windows path?)'));
  if (name.startsWith('/') || /^[A-Za-z]:/.test(name)) return failWith(refuse(shown, 'has an absolute path'));
  if (Buffer.byteLength(name) > limits.maxPathBytes)
    return failWith(refuse(shown, `has a path longer than ${limits.maxPathBytes} bytes`));
  let rest = name.startsWith('./') ? name.slice(2) : name;
  if (directory && rest.endsWith('/')) rest = rest.slice(0, -1);
  if (rest === '' || rest === '.') return null;
  const segments = rest.split('/');
  if (segments.includes('..')) return failWith(refuse(shown, 'has a ".." segment, which would leave the folder'));
  if (segments.some((segment) => segment === '' || segment === '.'))
    return failWith(refuse(shown, 'has an empty or "." segment in its path'));
  if (segments.length > limits.maxDepth) return failWith(refuse(shown, `is more than ${limits.maxDepth} folders deep`));
  return rest;
}

function failWith(error: HostError): never {
  throw error;
}
