// Publisher tokens: made once and shown once (`ihp_<id>_<secret>`), stored as a sha256 hash,
// checked in constant time, revocable; and the rule of who may act on which integration. Never
// logs or returns a token after issuing it.

import { createHash, randomBytes } from 'node:crypto';
import { HostError } from '../common/errors.ts';
import { sameBytes } from '../common/same-bytes.ts';
import type { Actor, PublisherRecord, PublisherStore } from './model.ts';

const TOKEN = /^ihp_(pub_[0-9a-f]{16})_([A-Za-z0-9_-]{43})$/;
const ORGANIZATION = /^[A-Za-z0-9_-]{1,64}$/;
const MAX_LABEL = 200;

const hashOf = (token: string): Buffer => createHash('sha256').update(token, 'utf8').digest();

/** Whether a presented bearer credential has the shape of a publisher token (else it is judged as the admin token). */
export const looksLikePublisherToken = (token: string): boolean => token.startsWith('ihp_');

export interface IssuedPublisher {
  publisher: Omit<PublisherRecord, 'tokenHash'>;
  /** Shown once; only its hash is stored. */
  token: string;
}

/** Throws ERR_VALIDATION naming the field. */
export function checkIssueInput(input: Record<string, unknown>): { organization: string; label: string } {
  const unknown = Object.keys(input).find((key) => key !== 'organization' && key !== 'label');
  if (unknown !== undefined)
    throw new HostError('ERR_VALIDATION', `/${unknown}: unknown field; the body is {"organization", "label"?}`, [
      { pointer: `/${unknown}`, message: 'unknown field' },
    ]);
  const organization = input.organization;
  const label = Object.hasOwn(input, 'label') ? input.label : '';
  if (typeof organization !== 'string' || !ORGANIZATION.test(organization))
    throw new HostError('ERR_VALIDATION', '/organization: must be an organization id (1–64 of A-Z a-z 0-9 _ -)', [
      { pointer: '/organization', message: 'must be an organization id' },
    ]);
  if (typeof label !== 'string' || label.length > MAX_LABEL)
    throw new HostError('ERR_VALIDATION', `/label: must be a string of at most ${MAX_LABEL} characters`, [
      { pointer: '/label', message: `must be a string of at most ${MAX_LABEL} characters` },
    ]);
  return { organization, label };
}

export async function issuePublisher(
  store: PublisherStore,
  input: { organization: string; label: string },
  now: Date,
): Promise<IssuedPublisher> {
  const id = `pub_${randomBytes(8).toString('hex')}`;
  const token = `ihp_${id}_${randomBytes(32).toString('base64url')}`;
  const record: PublisherRecord = {
    id,
    organization: input.organization,
    label: input.label,
    tokenHash: hashOf(token).toString('hex'),
    createdAt: now.toISOString(),
    revokedAt: null,
  };
  await store.add(record);
  const { tokenHash: _hash, ...publisher } = record;
  return { publisher, token };
}

/**
 * The publisher a token names, when its hash matches (compared in constant time) and it is not
 * revoked. Throws ERR_FORBIDDEN otherwise, saying which of the two without telling a guessed id
 * from a wrong secret.
 */
export async function authenticatePublisher(store: PublisherStore, token: string): Promise<Actor> {
  const match = TOKEN.exec(token);
  const record = match === null ? undefined : await store.find(match[1]);
  const presented = hashOf(token);
  // Compared even when no record was found, against a hash no token has: the same work either way.
  const expected = record === undefined ? Buffer.alloc(32) : Buffer.from(record.tokenHash, 'hex');
  const valid = sameBytes(expected, presented) && record !== undefined;
  if (!valid) throw new HostError('ERR_FORBIDDEN', 'publisher token is not valid');
  if (record.revokedAt !== null)
    throw new HostError(
      'ERR_FORBIDDEN',
      `publisher token ${record.id} was revoked at ${record.revokedAt}; ask the operator for a new one`,
    );
  return { kind: 'publisher', id: record.id, organization: record.organization };
}

/**
 * Whether `actor` may publish, list or roll back an integration of `organization`: the operator
 * always, a publisher only for its own organization. Throws ERR_PUBLISHER_FORBIDDEN saying why.
 */
export function authorize(actor: Actor, organization: string, integration: string): void {
  if (actor.kind === 'admin' || actor.organization === organization) return;
  throw new HostError(
    'ERR_PUBLISHER_FORBIDDEN',
    `publisher token ${actor.id} is for organization "${actor.organization}", but "${integration}" belongs to ` +
      `organization "${organization}"; nothing was changed`,
  );
}
