// Child process for webhook-durability.test.ts: plays the host's webhook side on a FILE store,
// enqueues the deliveries it is given and sends them until the parent kills it with SIGKILL.
// Usage: node webhook-sigkill-child.ts <db path> <secret> <url>...

import { openDatabase } from '../../host/store/sqlite/database.ts';
import { createOutbox } from '../../host/store/sqlite/outbox.ts';
import { createWebhookDispatcher } from '../../host/webhooks/webhook-dispatcher.ts';

const [dbPath, secret, ...urls] = process.argv.slice(2);
const db = openDatabase(dbPath);
db.exec('PRAGMA journal_mode = WAL; PRAGMA busy_timeout = 5000;');
const outbox = createOutbox(db);
const dispatcher = createWebhookDispatcher({
  outbox,
  policyOptions: { allow: ['127.0.0.1'] },
  signingSecretsFor: async (ids) => new Map(ids.map((id) => [id, [secret]])),
  onAttempt: ({ delivery, attempt, status }) =>
    process.stdout.write(
      `attempt ${delivery.eventId} ${attempt.attempt} ${attempt.statusCode ?? attempt.errorKind} ${status}\n`,
    ),
});
const records = await dispatcher.enqueue(
  urls.map((url, i) => ({
    installationId: 'inst_1',
    eventId: `evt_kill_${i}`,
    eventType: 'space_content_updated',
    url,
    body: JSON.stringify({
      eventId: `evt_kill_${i}`,
      type: 'space_content_updated',
      installationId: 'inst_1',
      spaceId: 's',
      revisionId: 'r',
    }),
  })),
);
process.stdout.write(`enqueued ${records.map((record) => record.id).join(' ')}\n`);
await dispatcher.start();
