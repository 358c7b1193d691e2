// The built-in webhook integration's operations: queueing the deliveries of a published event
// (durably, before the caller answers), the delivery log, redelivery and signing-secret rotation.
// Trusted host code; it never runs guest code and never logs a secret.

import { HostError } from '../common/errors.ts';
import type { Installation, InstallationStore } from '../installations/model.ts';
import { WEBHOOK_INTEGRATION_NAME, webhookUrlOf } from './config.ts';
import { toDeliveryView, type DeliveryView } from './delivery-view.ts';
import type { WebhookDispatcher } from './webhook-dispatcher.ts';
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
  queueWebhooks(event: Record<string, unknown>, eventId: string): Promise<QueuedDelivery[]>;
  /** Rejects with ERR_INSTALLATION_NOT_FOUND, ERR_VALIDATION (cursor). */
  listDeliveries(
    installationId: string,
    page: { limit?: number; cursor?: string | null },
  ): Promise<{ items: DeliveryView[]; nextCursor: string | null }>;
  /** Queues a new delivery of the same event to the installation's current URL. Rejects with ERR_NOT_FOUND. */
  redeliver(deliveryId: string): Promise<DeliveryView>;
  /** A new signing secret; the previous one keeps signing during the rotation window. */
  rotateSigningSecret(installationId: string): Promise<{ signingSecret: string }>;
}

export interface WebhookServiceDeps {
  installations: InstallationStore;
  outbox: Outbox;
  dispatcher: WebhookDispatcher;
  secrets: SigningSecretStore;
  now(): number;
}

export function createWebhookService(deps: WebhookServiceDeps): WebhookService {
  const requireInstallation = async (id: string): Promise<Installation> => {
    const installation = await deps.installations.getInstallation(id);
    if (installation === undefined) throw new HostError('ERR_INSTALLATION_NOT_FOUND', `installation "${id}" not found`);
    return installation;
  };

  return {
    async queueWebhooks(event, eventId) {
      const installations = await deps.installations.listInstallations({ integration: WEBHOOK_INTEGRATION_NAME });
      const records = await deps.dispatcher.enqueue(planWebhookDeliveries(event, eventId, installations));
      return records.map((record) => ({
        installationId: record.installationId,
        integration: WEBHOOK_INTEGRATION_NAME,
        deliveryId: record.id,
        queued: true as const,
      }));
    },

    async listDeliveries(installationId, page) {
      await requireInstallation(installationId);
      const result = await deps.outbox.listForInstallation(installationId, page);
      return { items: result.items.map(toDeliveryView), nextCursor: result.nextCursor };
    },

    async redeliver(deliveryId) {
      const original = await deps.outbox.get(deliveryId);
      if (original === undefined) throw new HostError('ERR_NOT_FOUND', `delivery "${deliveryId}" not found`);
      const installation = await deps.installations.getInstallation(original.installationId);
      if (installation === undefined)
        throw new HostError(
          'ERR_INSTALLATION_NOT_FOUND',
          `installation "${original.installationId}" was uninstalled; its deliveries cannot be sent again`,
        );
      // The same event (same eventId and body) goes to the URL configured now, not the old one.
      const url = webhookUrlOf(installation.configuration) ?? original.url;
      const record = await deps.dispatcher.redeliver(deliveryId, { url });
      if (record === undefined) throw new HostError('ERR_NOT_FOUND', `delivery "${deliveryId}" not found`);
      return toDeliveryView({ ...record, attemptLog: [] });
    },

    async rotateSigningSecret(installationId) {
      const installation = await requireInstallation(installationId);
      if (installation.integration !== WEBHOOK_INTEGRATION_NAME) {
        throw new HostError('ERR_NOT_FOUND', `installation "${installationId}" is not a webhook installation`);
      }
      const signingSecret = await deps.secrets.rotate(installationId, deps.now());
      if (signingSecret === undefined)
        throw new HostError('ERR_NOT_FOUND', `installation "${installationId}" has no signing secret`);
      return { signingSecret };
    },
  };
}
