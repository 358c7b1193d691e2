// One page of `GET /v1/installations`: filters, the (createdAt, id) order and the opaque cursor
// that continues it. Reads the store once per page; it never shows anything but public views.

import { HostError } from '../common/errors.ts';
import { findOrganization, type PlatformData } from '../platform-data/data.ts';
import type { Installation, InstallationStore, InstallationTarget, InstallationView } from './model.ts';

export const DEFAULT_INSTALLATIONS_PAGE = 50;
export const MAX_INSTALLATIONS_PAGE = 200;

export interface InstallationQuery {
  integration?: string;
  /** An organization id or subdomain. */
  organization?: string;
  target?: InstallationTarget;
  limit: number;
  /** A previous page's nextCursor. */
  cursor?: string;
}

export interface InstallationPage {
  items: InstallationView[];
  nextCursor: string | null;
}

const CURSOR_PREFIX = 'inst1:';

export function encodeInstallationCursor(last: Pick<Installation, 'createdAt' | 'id'>): string {
  return Buffer.from(`${CURSOR_PREFIX}${JSON.stringify([last.createdAt, last.id])}`).toString('base64url');
}

/** Throws ERR_VALIDATION naming `cursor` for anything this host did not issue. */
export function decodeInstallationCursor(cursor: string): { createdAt: string; id: string } {
  const invalid = () =>
    new HostError('ERR_VALIDATION', 'cursor: is not a nextCursor this host issued; start again without cursor', [
      { pointer: '/cursor', message: 'is not a nextCursor this host issued' },
    ]);
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  if (!text.startsWith(CURSOR_PREFIX)) throw invalid();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text.slice(CURSOR_PREFIX.length));
  } catch {
    throw invalid();
  }
  if (!Array.isArray(parsed) || parsed.length !== 2 || typeof parsed[0] !== 'string' || typeof parsed[1] !== 'string')
    throw invalid();
  return { createdAt: parsed[0], id: parsed[1] };
}

export async function listInstallationPage(
  store: InstallationStore,
  platform: PlatformData,
  view: (installation: Installation) => InstallationView,
  query: InstallationQuery,
): Promise<InstallationPage> {
  const after = query.cursor === undefined ? undefined : decodeInstallationCursor(query.cursor);
  // Installations store the organization's id; a subdomain names the same organization.
  const organization =
    query.organization === undefined
      ? undefined
      : (findOrganization(platform, query.organization)?.id ?? query.organization);
  // One record more than asked tells whether another page exists.
  const records = await store.listInstallations({
    ...(query.integration !== undefined ? { integration: query.integration } : {}),
    ...(organization !== undefined ? { organization } : {}),
    ...(query.target !== undefined ? { target: query.target } : {}),
    ...(after !== undefined ? { after } : {}),
    limit: query.limit + 1,
  });
  const page = records.slice(0, query.limit);
  return {
    items: page.map(view),
    nextCursor: records.length > query.limit ? encodeInstallationCursor(page[page.length - 1]) : null,
  };
}
