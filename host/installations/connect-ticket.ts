// Connect tickets: what a button URL carries so that only someone who was shown the installation
// by an admin view (the HTTP API or the console) can start its OAuth flow. Signed with the host
// secret, bound to one installation, valid for a short while. Pure apart from the clock it is given.

import { createHmac } from 'node:crypto';
import { sameBytes } from '../common/same-bytes.ts';
import { HostError } from '../common/errors.ts';

/** How long a connect link stays usable after an admin view showed it. */
export const CONNECT_TICKET_TTL_MS = 15 * 60 * 1000;

export interface ConnectTickets {
  mint(installationId: string): string;
  /** Throws 403 ERR_OAUTH_TICKET_INVALID naming why, unless the ticket is this installation's and fresh. */
  verify(installationId: string, ticket: unknown): void;
}

function sign(secret: string, payload: string): string {
  // Domain-separated from installation tokens and OAuth states derived from the same secret.
  return createHmac('sha256', secret).update(`connect-ticket:${payload}`).digest('base64url');
}

function refused(reason: string): HostError {
  return new HostError(
    'ERR_OAUTH_TICKET_INVALID',
    `this connect link cannot start the connection: ${reason}; open the button from the installation again`,
  );
}

export function createConnectTickets(options: { secret: string; now(): number; ttlMs?: number }): ConnectTickets {
  const ttlMs = options.ttlMs ?? CONNECT_TICKET_TTL_MS;
  return {
    mint(installationId) {
      const payload = `${installationId}.${options.now() + ttlMs}`;
      return `${Buffer.from(payload).toString('base64url')}.${sign(options.secret, payload)}`;
    },
    verify(installationId, ticket) {
      if (typeof ticket !== 'string' || ticket === '') throw refused('it carries no ticket');
      const [encoded, signature, ...rest] = ticket.split('.');
      if (encoded === undefined || signature === undefined || rest.length > 0) throw refused('its ticket is malformed');
      const payload = Buffer.from(encoded, 'base64url').toString('utf8');
      const expected = Buffer.from(sign(options.secret, payload));
      const given = Buffer.from(signature);
      if (!sameBytes(expected, given)) throw refused('its ticket was not issued by this host');
      const dot = payload.lastIndexOf('.');
      if (payload.slice(0, dot) !== installationId) throw refused('its ticket belongs to another installation');
      if (!(options.now() < Number(payload.slice(dot + 1)))) throw refused('its ticket has expired');
    },
  };
}
