// What the HTTP layer needs to seal GitBook-runtime OAuth flows: which integrations are sealed,
// connect tickets (checked and minted), and the sealed states. The rule of which integrations
// lives here; the requests and answers are handled in server/oauth-gate.ts.

import { isHostError } from '../common/errors.ts';
import type { ConnectTickets } from '../installations/connect-ticket.ts';
import type { LoadedIntegration } from '../manifest/types.ts';
import type { SealedStates } from './sealed-states.ts';

/**
 * Visitor authentication signs a site's readers in (started by the platform, never by an admin): not an installation's
 * connection.
 */
const VISITOR_CATEGORIES = new Set(['visitor-auth', 'authenticated-access']);

/**
 * Whether the host seals an integration's OAuth flows: those of GitBook's format (its runtime's
 * `createOAuthHandler` and hand-written flows alike), except visitor authentication.
 * `sandbox-api` integrations seal their own flows through the platform API (installations.md).
 */
export function sealsFlowsOf(integration: LoadedIntegration | undefined): boolean {
  if (integration?.manifestKind !== 'gitbook' || integration.builtin !== undefined) return false;
  return !(integration.manifest?.categories ?? []).some((category) => VISITOR_CATEGORIES.has(category));
}

export interface OAuthSeal {
  applies(integration: string): boolean;
  /** Why `ticket` cannot start a flow of the installation, or undefined when it can. */
  ticketProblem(installationId: string, ticket: string): string | undefined;
  mintTicket(installationId: string): string;
  states: SealedStates;
}

export function createOAuthSeal(deps: {
  integration(name: string): LoadedIntegration | undefined;
  tickets: ConnectTickets;
  states: SealedStates;
}): OAuthSeal {
  return {
    applies: (name) => sealsFlowsOf(deps.integration(name)),
    ticketProblem(installationId, ticket) {
      try {
        deps.tickets.verify(installationId, ticket);
        return undefined;
      } catch (error) {
        if (isHostError(error)) return error.message;
        throw error;
      }
    },
    mintTicket: (installationId) => deps.tickets.mint(installationId),
    states: deps.states,
  };
}
