// What an operator sees of an integration's secrets (admin API and console): each stored name
// with when and how it was set, its key and whether this host can read it, which manifest secrets
// use it, and where every manifest secret's value comes from. Pure; there is no value to show.

import { setSecretCommand, type SecretSource } from '../manifest/secrets.ts';
import type { LoadedIntegration } from '../manifest/types.ts';
import type { KeyRing } from './keys.ts';
import type { SecretListing } from './service.ts';

export interface StoredSecretView extends Omit<SecretListing, 'integration'> {
  /** The manifest secrets whose `${{ env.NAME }}` names it. */
  usedBy: string[];
}

export interface ManifestSecretView {
  /** The key under `secrets` (what the integration reads as `environment.secrets.<key>`). */
  secret: string;
  variable?: string;
  source: SecretSource;
  /** For a missing variable: the command that stores it. */
  command?: string;
}

export interface IntegrationSecretsView {
  integration: string;
  status: 'ready' | 'invalid';
  /** Whether values can be stored here (a key is configured), and the id new values get. */
  key: { configured: boolean; current?: number };
  items: StoredSecretView[];
  manifest: ManifestSecretView[];
}

export function storedSecretView(integration: LoadedIntegration, listing: SecretListing): StoredSecretView {
  const usedBy = Object.entries(integration.secretSources ?? {})
    .filter(([, entry]) => entry.variable === listing.name)
    .map(([secret]) => secret);
  return {
    name: listing.name,
    setAt: listing.setAt,
    setBy: listing.setBy,
    keyId: listing.keyId,
    readable: listing.readable,
    ...(listing.problem !== undefined ? { problem: listing.problem } : {}),
    usedBy,
  };
}

export function integrationSecretsView(
  integration: LoadedIntegration,
  listings: SecretListing[],
  ring: KeyRing,
): IntegrationSecretsView {
  return {
    integration: integration.name,
    status: integration.status,
    key: ring.current === undefined ? { configured: false } : { configured: true, current: ring.current },
    items: listings.map((listing) => storedSecretView(integration, listing)),
    manifest: Object.entries(integration.secretSources ?? {}).map(([secret, entry]) => ({
      secret,
      ...(entry.variable !== undefined ? { variable: entry.variable } : {}),
      source: entry.source,
      ...(entry.source === 'missing' && entry.variable !== undefined
        ? { command: setSecretCommand(integration.name, entry.variable) }
        : {}),
    })),
  };
}
