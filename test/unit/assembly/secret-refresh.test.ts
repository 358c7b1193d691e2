// The secret refresher reloads exactly the integrations whose stored secrets changed: the writer's
// own change once, an announcement from another host once, and its own announcement coming back
// to the writer not again.
import { describe, expect, it } from 'vitest';
import { createSecretRefresher } from '../../../host/assembly/secret-refresh.ts';
import type { SecretService, SecretSnapshot } from '../../../host/secrets/service.ts';
import { EMPTY_SNAPSHOT } from '../../../host/secrets/service.ts';

const snapshotWith = (revision: number, fingerprints: [string, string][]): SecretSnapshot => ({
  revision,
  byIntegration: new Map(),
  fingerprints: new Map(fingerprints),
});
const silent = {
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
  debug: () => undefined,
} as never;

describe('createSecretRefresher', () => {
  it('reloads a changed integration once, though its own announcement comes back', async () => {
    let stored = snapshotWith(1, [['vendor', 'k1:n1']]);
    const reloads: string[][] = [];
    let announce: (integration: string) => void = () => undefined;
    const refresher = createSecretRefresher({
      service: { snapshot: async () => stored } as unknown as SecretService,
      revision: async () => stored.revision,
      subscribe: (listener) => ((announce = listener), () => undefined),
      snapshot: { current: EMPTY_SNAPSHOT },
      reload: async (names) => void reloads.push([...names]),
      pollMs: 0,
      log: silent,
    });
    await refresher.refresh();
    expect(reloads).toEqual([['vendor']]);
    // The writer sets a value: it refreshes naming the integration, then its announcement returns.
    stored = snapshotWith(2, [['vendor', 'k1:n2']]);
    await refresher.refresh(['vendor']);
    announce('vendor');
    await refresher.refresh();
    expect(reloads).toEqual([['vendor'], ['vendor']]);
    // Another host's change, announced: reloaded once.
    stored = snapshotWith(3, [
      ['vendor', 'k1:n3'],
      ['other', 'k1:n1'],
    ]);
    announce('other');
    await refresher.refresh();
    expect(reloads.slice(2).flat().sort()).toEqual(['other', 'vendor']);
    refresher.stop();
  });
});
