// Publishing a platform event (`POST /v1/events`): validate it, give it an event id, write its
// webhook deliveries to the outbox (durable before anything else), then dispatch it to every
// active installation that holds a scope for it and covers its space or site.

import { isHostError } from '../common/errors.ts';
import { newEventId, type EventDispatcher } from '../dispatch/event-dispatcher.ts';
import { installationCovers } from '../installations/coverage.ts';
import { type ResourceDirectory } from '../platform-data/records.ts';
import type { InstallationStore } from '../installations/model.ts';
import type { IntegrationRegistry } from '../integrations/registry.ts';
import type { QueuedDelivery } from '../webhooks/service.ts';
import type { Installation } from '../installations/model.ts';
import { EVENT_SCOPES, toIntegrationPayload, validatePublishedEvent } from './schemas.ts';

/** One recipient of a published event: a sandboxed integration's answer status, or a queued webhook delivery. */
export type PublishedDispatch = { installationId: string; integration: string; status: number } | QueuedDelivery;

export interface PublishResult {
  eventId: string;
  dispatched: PublishedDispatch[];
}

export interface EventPublisherDeps {
  registry: IntegrationRegistry;
  installations: InstallationStore;
  /** Spaces and sites as the platform knows them: the same coverage rule as API authorization. */
  directory: ResourceDirectory;
  dispatcher: EventDispatcher;
  /** Writes the webhook deliveries of the event to the outbox; returns them for the answer. */
  queueWebhooks(event: Record<string, unknown>, eventId: string): Promise<PublishedDispatch[]>;
}

/**
 * Within one installation tree, an event goes to the space or site installation it concerns rather
 * than to the organization installation above it (GitBook delivers it once, with spaceInstallation
 * or siteInstallation in the environment); an organization installation receives it only when no
 * installation under it does.
 */
function mostSpecific(targets: Installation[], event: { spaceId?: unknown; siteId?: unknown }): Installation[] {
  const covered = new Set<string>();
  for (const target of targets) {
    const concerns = typeof event.siteId === 'string' ? target.site === event.siteId : target.space === event.spaceId;
    if (target.parent !== undefined && concerns) covered.add(target.parent);
  }
  return targets.filter((target) => !covered.has(target.id));
}

export function createEventPublisher(deps: EventPublisherDeps): (body: unknown) => Promise<PublishResult> {
  return async (body) => {
    const event = validatePublishedEvent(body);
    const eventId = newEventId();
    // Durable before anything else happens: a crash after this line loses no webhook delivery.
    const queued = await deps.queueWebhooks(event, eventId);
    const targets = (await deps.installations.listInstallations()).filter((installation) => {
      const integration = deps.registry.get(installation.integration);
      const scopes: string[] = integration?.manifest?.scopes ?? [];
      return (
        integration?.status === 'ready' &&
        integration.bundle !== undefined &&
        installation.status === 'active' &&
        EVENT_SCOPES[event.type].some((scope) => scopes.includes(scope)) &&
        installationCovers(deps.directory, installation, event as { spaceId?: unknown; siteId?: unknown })
      );
    });
    const payload = toIntegrationPayload(event);
    const dispatched = await Promise.all(
      mostSpecific(targets, event as { spaceId?: unknown; siteId?: unknown }).map(
        async (installation): Promise<PublishedDispatch | null> => {
          try {
            const outcome = await deps.dispatcher.run(installation, { ...payload, eventId }, null);
            // An integration without a handler for this type is not a recipient.
            if (outcome.verdict === 'no-handler') return null;
            return {
              installationId: installation.id,
              integration: installation.integration,
              status: outcome.response.status,
            };
          } catch (error) {
            return {
              installationId: installation.id,
              integration: installation.integration,
              status: isHostError(error) ? error.status : 500,
            };
          }
        },
      ),
    );
    return { eventId, dispatched: [...dispatched.filter((entry) => entry !== null), ...queued] };
  };
}
