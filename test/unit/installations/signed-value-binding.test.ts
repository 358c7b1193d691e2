// Every value the host signs or derives for one installation or integration (connect tickets, OAuth
// states, sealed OAuth states, API tokens, integration tokens, install links, signing secrets) is
// bound to exactly that one: tried with ids of different lengths where one is a prefix of the other.
import { describe, it, expect } from 'vitest';
import { openDatabase } from '../../../host/store/sqlite/database.ts';
import { createConnectTickets } from '../../../host/installations/connect-ticket.ts';
import { createOAuthStates } from '../../../host/installations/oauth-state.ts';
import { createSqliteOAuthStateStore } from '../../../host/store/sqlite/oauth-states.ts';
import { createSqliteSealedStateStore } from '../../../host/store/sqlite/sealed-oauth-states.ts';
import { createSealedStates } from '../../../host/oauth-seal/sealed-states.ts';
import {
  deriveInstallationToken,
  deriveInstallLink,
  deriveIntegrationToken,
  deriveSigningSecret,
  verifyIntegrationToken,
} from '../../../host/installations/tokens.ts';

const SECRET = 'host-secret';
/** Each pair: [the owner, another id that is a prefix of it or extends it]. */
const PREFIX_PAIRS = [
  ['inst_abc', 'inst_ab'],
  ['inst_ab', 'inst_abc'],
  ['inst_a', 'inst_a.1'],
  ['inst_1', 'inst_10'],
] as const;

const outcome = (run: () => unknown): string => {
  try {
    run();
    return 'accepted';
  } catch (error) {
    return `${(error as { code?: string }).code}: ${(error as Error).message}`;
  }
};

const asyncOutcome = async (run: () => Promise<unknown>): Promise<string> => {
  try {
    await run();
    return 'accepted';
  } catch (error) {
    return `${(error as { code?: string }).code}: ${(error as Error).message}`;
  }
};

describe('a connect ticket', () => {
  const tickets = createConnectTickets({ secret: SECRET, now: () => 1_700_000_000_000 });

  it.each(PREFIX_PAIRS)('minted for %s is refused for %s and accepted for its own installation', (owner, other) => {
    const ticket = tickets.mint(owner);
    expect(outcome(() => tickets.verify(other, ticket))).toMatch(
      /^ERR_OAUTH_TICKET_INVALID: .*belongs to another installation/,
    );
    expect(outcome(() => tickets.verify(owner, ticket))).toBe('accepted');
  });
});

describe('an OAuth state', () => {
  it.each(PREFIX_PAIRS)(
    'issued to %s is refused for %s and accepted once for its own installation',
    async (owner, other) => {
      const states = createOAuthStates({
        store: createSqliteOAuthStateStore(openDatabase(':memory:')),
        secret: SECRET,
        now: () => 1_700_000_000_000,
      });
      const state = await states.issue(owner);
      // Refused for what it is, not only because the store happens to hold no row for the other id.
      expect(await asyncOutcome(() => states.consume(other, state))).toMatch(
        /^ERR_OAUTH_STATE_INVALID: .*issued to another installation/,
      );
      expect(await asyncOutcome(() => states.consume(owner, state))).toBe('accepted');
    },
  );
});

describe('a sealed OAuth state', () => {
  const callback = (integration: string, installation: string) =>
    `/v1/integrations/${integration}/installations/${installation}/oauth`;

  it.each([
    ['jira', 'jir'],
    ['jira', 'jira2'],
  ])('sealed for integration %s is refused on the callback of %s', async (owner, other) => {
    const states = createSealedStates({
      store: createSqliteSealedStateStore(openDatabase(':memory:')),
      secret: SECRET,
      now: () => 1_700_000_000_000,
    });
    const sealed = await states.seal({
      integration: owner,
      installationId: 'inst_a',
      callbackPath: callback(owner, 'inst_a'),
      originalState: null,
    });
    const redeem = (integration: string) =>
      states.redeem({
        integration,
        callbackPath: callback(owner, 'inst_a'),
        state: sealed.state,
        bindingFor: () => sealed.binding,
      });
    expect(await redeem(other)).toMatchObject({ ok: false, reason: expect.stringMatching(/another callback URL/) });
    expect(await redeem(owner)).toMatchObject({ ok: true, installationId: 'inst_a' });
  });

  it.each(PREFIX_PAIRS)('sealed on the callback of %s is refused on the callback of %s', async (owner, other) => {
    const states = createSealedStates({
      store: createSqliteSealedStateStore(openDatabase(':memory:')),
      secret: SECRET,
      now: () => 1_700_000_000_000,
    });
    const sealed = await states.seal({
      integration: 'jira',
      installationId: owner,
      callbackPath: callback('jira', owner),
      originalState: null,
    });
    const redeem = (installation: string) =>
      states.redeem({
        integration: 'jira',
        callbackPath: callback('jira', installation),
        state: sealed.state,
        bindingFor: () => sealed.binding,
      });
    expect(await redeem(other)).toMatchObject({ ok: false, reason: expect.stringMatching(/another callback URL/) });
    expect(await redeem(owner)).toMatchObject({ ok: true, installationId: owner });
  });
});

describe('derived values', () => {
  it.each(PREFIX_PAIRS)('installation tokens and signing secrets of %s and %s differ', (owner, other) => {
    expect(deriveInstallationToken(SECRET, owner)).not.toBe(deriveInstallationToken(SECRET, other));
    expect(deriveSigningSecret(SECRET, 'installation', owner)).not.toBe(
      deriveSigningSecret(SECRET, 'installation', other),
    );
  });

  it.each([
    ['slack', 'slac'],
    ['slac', 'slack'],
  ])('the install link and integration token of %s are not those of %s', (owner, other) => {
    expect(deriveInstallLink(SECRET, owner)).not.toBe(deriveInstallLink(SECRET, other));
    expect(deriveSigningSecret(SECRET, 'integration', owner)).not.toBe(
      deriveSigningSecret(SECRET, 'integration', other),
    );
    const token = deriveIntegrationToken(SECRET, owner);
    expect(verifyIntegrationToken(SECRET, token)).toBe(owner);
    // The name inside the token swapped for the other one's, signature kept: not a token of either.
    const renamed = token.replace(/^ihi_[^.]+/, `ihi_${Buffer.from(other).toString('base64url')}`);
    expect(verifyIntegrationToken(SECRET, renamed)).toBeUndefined();
  });
});
