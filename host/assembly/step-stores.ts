// Assembly step 2: the store (seeded with the platform data), the token secret every host on it
// shares, the stored secrets as the configured keys can read them, and the admin token.
// Reads and seeds the store; never loads an integration.

import { randomBytes } from 'node:crypto';
import { newTokenSecret, TOKEN_SECRET_META_KEY } from '../installations/tokens.ts';
import { readKeyRing } from '../secrets/keys.ts';
import { createSecretService } from '../secrets/service.ts';
import type { MetaStore } from '../store/types.ts';
import { openStoresExplained } from './open-stores.ts';
import type { AssemblyBase } from './step-types.ts';

export type StoresStep = Awaited<ReturnType<typeof openStoresAndSecrets>>;

/**
 * The stored token secret, created on first start; the first host to store one wins, so all hosts on one database
 * share it.
 */
async function loadTokenSecret(meta: MetaStore): Promise<string> {
  return (await meta.get(TOKEN_SECRET_META_KEY)) ?? (await meta.setIfAbsent(TOKEN_SECRET_META_KEY, newTokenSecret()));
}

export async function openStoresAndSecrets({ options, log, metrics, platform, onFailure }: AssemblyBase) {
  const stores = await openStoresExplained({
    ...(options.storeUrl !== undefined ? { storeUrl: options.storeUrl } : {}),
    dataPath: options.dataPath,
    log,
  });
  onFailure(() => stores.close());
  metrics.outboxDepthFrom(() => stores.outbox.depth());
  metrics.storeTrafficFrom(() => stores.traffic());
  // Seeding adds only missing rows, so API writes survive restarts.
  await stores.platform.seed(platform);
  const directory = await stores.platform.loadDirectory();
  const tokenSecret = await loadTokenSecret(stores.meta);
  // Secrets stored per integration, decrypted with the operator's keys (none: they stay sealed,
  // and storing new ones is refused with how to configure a key; the host starts either way).
  const secretService = createSecretService({
    store: stores.secrets,
    ring: await readKeyRing(options.env),
    now: options.clock,
  });
  const secretSnapshot = { current: await secretService.snapshot() };
  const unreadable = [...secretSnapshot.current.byIntegration].flatMap(([integration, values]) =>
    [...values].filter(([, stored]) => 'problem' in stored).map(([name]) => `${integration}/${name}`),
  );
  if (unreadable.length > 0)
    log.warn(
      `secrets: ${unreadable.length} stored secret(s) cannot be decrypted with the configured keys ` +
        `(${secretService.ring.source}): ${unreadable.join(', ')}; integrations using them are invalid until ` +
        `the key is configured`,
    );
  // An empty HOST_ADMIN_TOKEN counts as unset: an empty token would let anyone in.
  const configuredToken = options.adminToken || options.env.HOST_ADMIN_TOKEN || undefined;
  const adminToken = configuredToken ?? randomBytes(24).toString('base64url');
  return {
    stores,
    directory,
    tokenSecret,
    secretService,
    secretSnapshot,
    adminToken,
    adminTokenGenerated: configuredToken === undefined,
  };
}
