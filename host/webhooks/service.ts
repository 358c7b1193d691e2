// The built-in webhook integration's operations: queueing the deliveries of a published event
// (durably, before the caller answers), the delivery log, redelivery and signing-secret rotation.
// Trusted host code; it never runs guest code and never logs a secret.

import { HostError } from '../common/errors.ts';
import type { Installation, InstallationStore } from '../installations/model.ts';
import { WEBHOOK_INTEGRATION_NAME } from './config.ts';
import { toDeliveryView, type DeliveryView } from './delivery-view.ts';
import type { WebhookDispatcher } from './dispatcher.ts';
import type { Outbox } from './outbox.ts';
import { planWebhookDeliveries } from './routing.ts';
import type { SigningSecretStore } from './secrets.ts';

/** A delivery queued for a published event, as the 202 answer lists it. */
export interface QueuedDelivery {
  installationId: string;
  integration: typeof WEBHOOK_INTEGRATION_NAME;
  deliveryId: string;
  queued: true;
}

export interface WebhookService {
  /** Writes the deliveries of a published event to the outbox; returns them for the 202 answer. */
  queueWebhooks(event: Record<string, unknown>, eventId: string): QueuedDelivery[];
  /** Throws ERR_INSTALLATION_NOT_FOUND, ERR_VALIDATION (cursor). */
  listDeliveries(installationId: string, page: { limit?: number; cursor?: string | null }): { items: DeliveryView[]; nextCursor: string | null };
  /** Queues a new delivery of the same event to the installation's current URL. Throws ERR_NOT_FOUND. */
  redeliver(deliveryId: string): DeliveryView;
  /** A new signing secret; the previous one keeps signing during the rotation window. */
  rotateSigningSecret(installationId: string): { signingSecret: string };
}

export interface WebhookServiceDeps {
  installations: InstallationStore;
  outbox: Outbox;
  dispatcher: WebhookDispatcher;
  secrets: SigningSecretStore;
  now(): number;
}

export function createWebhookService(deps: WebhookServiceDeps): WebhookService {
  const requireInstallation = (id: string): Installation => {
    const installation = deps.installations.getInstallation(id);
    if (installation === undefined) throw new HostError('ERR_INSTALLATION_NOT_FOUND', `installation "${id}" not found`);
    return installation;
  };

  return {
    queueWebhooks(event, eventId) {
      const records = deps.dispatcher.enqueue(planWebhookDeliveries(event, eventId, deps.installations.listInstallations({ integration: WEBHOOK_INTEGRATION_NAME })));
      return records.map((record) => ({ installationId: record.installationId, integration: WEBHOOK_INTEGRATION_NAME, deliveryId: record.id, queued: true as const }));
    },

    listDeliveries(installationId, page) {
      requireInstallation(installationId);
      const result = deps.outbox.listForInstallation(installationId, page);
      return { items: result.items.map(toDeliveryView), nextCursor: result.nextCursor };
    },

    redeliver(deliveryId) {
      const original = deps.outbox.get(deliveryId);
      if (original === undefined) throw new HostError('ERR_NOT_FOUND', `delivery "${deliveryId}" not found`);
      const installation = deps.installations.getInstallation(original.installationId);
      if (installation === undefined) throw new HostError('ERR_INSTALLATION_NOT_FOUND', `installation "${original.installationId}" was uninstalled; its deliveries cannot be sent again`);
      // The same event (same eventId and body) goes to the URL configured now, not the old one.
      const url = typeof installation.configuration.url === 'string' ? installation.configuration.url : original.url;
      const record = deps.dispatcher.redeliver(deliveryId, { url });
      if (record === undefined) throw new HostError('ERR_NOT_FOUND', `delivery "${deliveryId}" not found`);
      return toDeliveryView({ ...record, attemptLog: [] });
    },

    rotateSigningSecret(installationId) {
      const installation = requireInstallation(installationId);
      if (installation.integration !== WEBHOOK_INTEGRATION_NAME) {
        throw new HostError('ERR_NOT_FOUND', `installation "${installationId}" is not a webhook installation`);
      }
      const signingSecret = deps.secrets.rotate(installationId, deps.now());
      if (signingSecret === undefined) throw new HostError('ERR_NOT_FOUND', `installation "${installationId}" has no signing secret`);
      return { signingSecret };
    },
  };
}
