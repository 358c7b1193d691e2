// The HostServices methods of the built-in webhook integration: queueing deliveries for a
// published event (durably, before the caller answers), the delivery log, redelivery and
// signing-secret rotation. Trusted host code; it never runs guest code and never logs a secret.

import { HostError } from './errors.ts';
import type { HostServices, Installation, PublishedDispatch } from './services.ts';
import type { Store } from './platform/store.ts';
import type { Outbox } from './webhooks/outbox-store.ts';
import type { WebhookDispatcher } from './webhooks/dispatcher.ts';
import type { SigningSecretStore } from './webhooks/secret-store.ts';
import { planWebhookDeliveries } from './webhooks/routing.ts';
import { toDeliveryView } from './webhooks/delivery-view.ts';
import { WEBHOOK_INTEGRATION_NAME } from './webhooks/config.ts';

type WebhookServices = Pick<HostServices, 'listDeliveries' | 'redeliver' | 'rotateSigningSecret'> & {
  /** Writes the deliveries of a published event to the outbox; returns them for the 202 answer. */
  queueWebhooks(event: Record<string, unknown>, eventId: string): PublishedDispatch[];
};

export interface WebhookServicesDeps {
  store: Store;
  outbox: Outbox;
  dispatcher: WebhookDispatcher;
  secrets: SigningSecretStore;
  now(): number;
  requireInstallation(id: string): Installation;
}

export function createWebhookServices(deps: WebhookServicesDeps): WebhookServices {
  return {
    queueWebhooks(event, eventId) {
      const records = deps.dispatcher.enqueue(planWebhookDeliveries(event, eventId, deps.store.listInstallations({ integration: WEBHOOK_INTEGRATION_NAME })));
      return records.map((record) => ({ installationId: record.installationId, integration: WEBHOOK_INTEGRATION_NAME, deliveryId: record.id, queued: true as const }));
    },

    listDeliveries(installationId, page) {
      deps.requireInstallation(installationId);
      const result = deps.outbox.listForInstallation(installationId, page);
      return { items: result.items.map(toDeliveryView), nextCursor: result.nextCursor };
    },

    redeliver(deliveryId) {
      const original = deps.outbox.get(deliveryId);
      if (original === undefined) throw new HostError('ERR_NOT_FOUND', `delivery "${deliveryId}" not found`);
      const installation = deps.store.getInstallation(original.installationId);
      if (installation === undefined) throw new HostError('ERR_INSTALLATION_NOT_FOUND', `installation "${original.installationId}" was uninstalled; its deliveries cannot be sent again`);
      // The same event (same eventId and body) goes to the URL configured now, not the old one.
      const url = typeof installation.configuration.url === 'string' ? installation.configuration.url : original.url;
      const record = deps.dispatcher.redeliver(deliveryId, { url });
      if (record === undefined) throw new HostError('ERR_NOT_FOUND', `delivery "${deliveryId}" not found`);
      return toDeliveryView({ ...record, attemptLog: [] });
    },

    rotateSigningSecret(installationId) {
      const installation = deps.requireInstallation(installationId);
      if (installation.integration !== WEBHOOK_INTEGRATION_NAME) {
        throw new HostError('ERR_NOT_FOUND', `installation "${installationId}" is not a webhook installation`);
      }
      const signingSecret = deps.secrets.rotate(installationId, deps.now());
      if (signingSecret === undefined) throw new HostError('ERR_NOT_FOUND', `installation "${installationId}" has no signing secret`);
      return { signingSecret };
    },
  };
}
