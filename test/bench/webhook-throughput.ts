// Webhook deliveries per second through the durable path (docs/performance.md `webhook.deliveriesPerSec`):
// each event enqueued on its own (as POST /v1/events does) into a file-backed outbox, sent by the
// dispatcher, verified by the fixture receiver on loopback. Reports only; never asserts.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { openDatabase } from '../../host/store/sqlite/database.ts';
import { createOutbox } from '../../host/store/sqlite/outbox.ts';
import { createSigningSecretStore } from '../../host/store/sqlite/signing-secrets.ts';
import { createWebhookDispatcher } from '../../host/webhooks/webhook-dispatcher.ts';
import { buildWebhookPayload, serializeWebhookPayload } from '../../host/webhooks/payload.ts';
import { startReceiver } from '../../fixtures/receivers/receiver.ts';

export async function measureWebhookDeliveriesPerSec({ count }: { count: number }): Promise<number> {
  const dir = mkdtempSync(path.join(tmpdir(), 'webhook-bench-'));
  // openDatabase applies the host store's pragmas (WAL, synchronous = NORMAL; host/store/sqlite/open.ts
  // opens it the same way); the exec below restates two of them.
  const db = openDatabase(path.join(dir, 'host.db'));
  db.exec('PRAGMA journal_mode = WAL; PRAGMA busy_timeout = 5000;');
  const secrets = createSigningSecretStore(db);
  const secret = await secrets.create('inst_bench');
  let processed = 0;
  const receiver = await startReceiver({ secret, onEvent: () => void processed++ });
  let settled = 0;
  let failed = 0;
  let allSettled: () => void = () => {};
  const done = new Promise<void>((resolve) => (allSettled = resolve));
  const dispatcher = createWebhookDispatcher({
    outbox: createOutbox(db),
    policyOptions: { allow: ['127.0.0.1'] },
    signingSecretsFor: (ids) => secrets.secretsForMany(ids, Date.now()),
    onAttempt: ({ status }) => {
      if (status === 'pending') return;
      if (status === 'failed') failed++;
      if (++settled === count) allSettled();
    },
  });
  await dispatcher.start();
  try {
    const started = performance.now();
    for (let i = 0; i < count; i++) {
      const eventId = `evt_bench_${i}`;
      const body = serializeWebhookPayload(
        buildWebhookPayload(
          { type: 'space_content_updated', spaceId: 'space_1', revisionId: `rev_${i}` },
          { eventId, installationId: 'inst_bench' },
        ),
      );
      await dispatcher.enqueue([
        { installationId: 'inst_bench', eventId, eventType: 'space_content_updated', url: receiver.url, body },
      ]);
    }
    await done;
    const seconds = (performance.now() - started) / 1000;
    if (failed > 0 || processed !== count)
      throw new Error(`${failed} failed, ${processed}/${count} processed by the receiver`);
    return count / seconds;
  } finally {
    await dispatcher.stop();
    await receiver.close();
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
