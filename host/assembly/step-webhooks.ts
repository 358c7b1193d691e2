// Assembly step 7: webhook delivery (the outbox and its dispatcher) and the publisher of platform
// events to integrations and webhooks. Wires; the dispatcher starts once the host serves.

import { createEventPublisher } from '../events/publish.ts';
import { webhookUrlOf } from '../webhooks/config.ts';
import { createWebhookDispatcher } from '../webhooks/webhook-dispatcher.ts';
import { createWebhookService } from '../webhooks/service.ts';
import type { DispatchStep } from './step-dispatch.ts';
import type { Listeners } from './step-listeners.ts';
import type { IntegrationsStep } from './step-sandbox.ts';
import type { StoresStep } from './step-stores.ts';
import type { AssemblyBase } from './step-types.ts';
import { sharedQueuePollMs } from './shared-queues.ts';

export type WebhooksStep = ReturnType<typeof wireWebhooks>;

export function wireWebhooks(
  { options, log, metrics, onFailure }: AssemblyBase,
  { hostPorts }: Listeners,
  { stores, directory }: StoresStep,
  { registry }: IntegrationsStep,
  { dispatcher }: DispatchStep,
) {
  const webhookDispatcher = createWebhookDispatcher({
    outbox: stores.outbox,
    policyOptions: { allow: options.allowEgress, hostPorts },
    signingSecretsFor: (installationIds) => stores.signingSecrets.secretsForMany(installationIds, options.clock()),
    currentUrl: async (installationId) =>
      webhookUrlOf((await stores.installations.getInstallation(installationId))?.configuration),
    now: options.clock,
    log,
    onAttempt: ({ status }) => metrics.attempted(status === 'pending' ? 'retry' : status),
    // Other hosts announce what they queue and cannot start; the poll finds lost announcements and lapsed leases.
    ...(stores.shared ? { pollIntervalMs: sharedQueuePollMs(options) } : {}),
    ...(options.webhookLeaseMs !== undefined ? { leaseMs: options.webhookLeaseMs } : {}),
  });
  onFailure(() => webhookDispatcher.stop());
  stores.work?.onAnnounced('webhooks', (endpoints) => webhookDispatcher.workAnnounced(endpoints));
  const webhooks = createWebhookService({
    installations: stores.installations,
    outbox: stores.outbox,
    dispatcher: webhookDispatcher,
    secrets: stores.signingSecrets,
    now: options.clock,
  });
  const publish = createEventPublisher({
    registry,
    installations: stores.installations,
    directory,
    dispatcher,
    queueWebhooks: webhooks.queueWebhooks,
  });
  return { webhookDispatcher, webhooks, publish };
}
