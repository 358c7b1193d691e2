// Which webhook installations receive a published platform event, and the delivery each gets.
// Pure: the caller passes its installations and writes the result with dispatcher.enqueue()
// before answering POST /v1/events. Never sends anything itself.

import type { Installation } from '../installations/model.ts';
import {
  WEBHOOK_EVENTS_BY_TARGET,
  WEBHOOK_INTEGRATION_NAME,
  isWebhookConfigurationComplete,
  isWebhookTarget,
} from './config.ts';
import { buildWebhookPayload, isWebhookEventType, serializeWebhookPayload } from './payload.ts';
import type { NewDelivery } from './outbox.ts';

/** Whether this webhook installation is subscribed to and covers this event. */
function webhookWants(installation: Installation, event: Record<string, unknown>): boolean {
  const { type } = event;
  if (installation.integration !== WEBHOOK_INTEGRATION_NAME || installation.status !== 'active') return false;
  if (!isWebhookEventType(type) || !isWebhookTarget(installation.target)) return false;
  if (!WEBHOOK_EVENTS_BY_TARGET[installation.target].includes(type)) return false;
  const configuration = installation.configuration;
  if (!isWebhookConfigurationComplete(configuration) || !configuration.events.includes(type)) return false;
  return installation.target === 'space' ? event.spaceId === installation.space : event.siteId === installation.site;
}

/** One delivery per matching installation, each with its own installationId in the signed body. */
export function planWebhookDeliveries(
  event: Record<string, unknown>,
  eventId: string,
  installations: readonly Installation[],
): NewDelivery[] {
  return installations
    .filter((installation) => webhookWants(installation, event))
    .map((installation) => ({
      installationId: installation.id,
      eventId,
      eventType: String(event.type),
      url: String(installation.configuration.url),
      body: serializeWebhookPayload(buildWebhookPayload(event, { eventId, installationId: installation.id })),
    }));
}
