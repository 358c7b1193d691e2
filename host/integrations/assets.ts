// The files of an integration's `assets/` folder (icons, preview images, pictures its pages show),
// served at `integration.urls.assets` (docs/http-api.md). Reads regular files inside that folder
// only, judged on their real path (no `..`, no symlink out), and never more than a bounded size.

import { open, realpath } from 'node:fs/promises';
import path from 'node:path';
import { HostError } from '../common/errors.ts';
import type { LoadedIntegration } from '../manifest/types.ts';

/** The largest asset served; larger files are the integration's to host elsewhere. */
export const MAX_ASSET_BYTES = 5 * 1024 * 1024;

const CONTENT_TYPES = new Map<string, string>([
  ['.png', 'image/png'],
  ['.jpg', 'image/jpeg'],
  ['.jpeg', 'image/jpeg'],
  ['.gif', 'image/gif'],
  ['.webp', 'image/webp'],
  ['.svg', 'image/svg+xml'],
  ['.ico', 'image/x-icon'],
  ['.css', 'text/css; charset=utf-8'],
  ['.js', 'text/javascript; charset=utf-8'],
  ['.json', 'application/json'],
  ['.txt', 'text/plain; charset=utf-8'],
  ['.woff', 'font/woff'],
  ['.woff2', 'font/woff2'],
]);

function notFound(integration: string, file: string): HostError {
  return new HostError('ERR_NOT_FOUND', `integration "${integration}" has no asset "${file}"`);
}

export async function readIntegrationAsset(
  integration: LoadedIntegration,
  file: string,
): Promise<{ bytes: Uint8Array; contentType: string }> {
  const segments = file.split('/');
  if (
    file === '' ||
    segments.some((segment) => segment === '' || segment === '.' || segment === '..' || /[\\\0]/.test(segment))
  )
    throw notFound(integration.name, file);
  const folder = path.join(integration.dir, 'assets');
  let real: string;
  let realFolder: string;
  try {
    [real, realFolder] = await Promise.all([realpath(path.join(folder, ...segments)), realpath(folder)]);
  } catch {
    throw notFound(integration.name, file);
  }
  if (!real.startsWith(`${realFolder}${path.sep}`)) throw notFound(integration.name, file);
  // Judged on the opened file: a FIFO or a device would block or never end.
  const handle = await open(real, 'r').catch(() => undefined);
  if (handle === undefined) throw notFound(integration.name, file);
  try {
    const stat = await handle.stat();
    if (!stat.isFile() || stat.size > MAX_ASSET_BYTES) throw notFound(integration.name, file);
    const bytes = new Uint8Array(stat.size);
    const { bytesRead } = await handle.read(bytes, 0, stat.size, 0);
    return {
      bytes: bytes.subarray(0, bytesRead),
      contentType: CONTENT_TYPES.get(path.extname(real).toLowerCase()) ?? 'application/octet-stream',
    };
  } finally {
    await handle.close();
  }
}
