// The built-in `webhook` integration's configuration rules (docs/webhooks.md, docs/webhooks.md): which events
// fit which target, and whether a URL may be configured under the egress policy. Pure; returns
// problems as { pointer, message } for a 422, never throws, never resolves DNS (deliver.ts does).

import { createEgressPolicy, isExplicitlyAllowed, portOf, type EgressOptions } from '../bridge/egress-policy.ts';
import { builtinName } from '../integrations/builtin-names.ts';
import type { WebhookEventType } from './payload.ts';

/** `host:webhook`: in the built-ins' namespace, so an author's `webhook` is the author's. */
export const WEBHOOK_INTEGRATION_NAME = builtinName('webhook');

export const WEBHOOK_EVENTS_BY_TARGET: Record<'space' | 'site', readonly WebhookEventType[]> = {
  space: ['space_content_updated'],
  site: ['site_view', 'page_feedback'],
};

export interface WebhookConfiguration {
  url: string;
  events: WebhookEventType[];
}

export interface ConfigurationProblem {
  pointer: string;
  message: string;
}

/** The receiver URL an installation's configuration names now, if any. */
export function webhookUrlOf(configuration: Record<string, unknown> | undefined): string | undefined {
  const url = configuration?.url;
  return typeof url === 'string' ? url : undefined;
}

export function isWebhookTarget(target: string): target is 'space' | 'site' {
  return target === 'space' || target === 'site';
}

/** Why a webhook URL may not be configured, or null: https, or http only to an `--allow-egress` host. */
export function checkWebhookUrl(value: string, egress: EgressOptions): string | null {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'must be an absolute URL';
  }
  if (url.protocol === 'http:' && !isExplicitlyAllowed(egress, url.hostname, portOf(url)))
    return 'must use https (http only to an --allow-egress host)';
  return createEgressPolicy(egress).checkUrl(url);
}

/**
 * Problems with the properties present in `configuration` (a merged PATCH result). Missing `url`
 * or `events` are not problems: the installation just stays pending (see isWebhookConfigurationComplete).
 */
export function checkWebhookConfiguration(
  configuration: Record<string, unknown>,
  target: string,
  egress: EgressOptions,
): ConfigurationProblem[] {
  if (!isWebhookTarget(target))
    return [{ pointer: '/target', message: 'the webhook integration installs on a space or a site only' }];
  const problems: ConfigurationProblem[] = [];
  const { url, events } = configuration;
  if (url !== undefined) {
    const reason = typeof url === 'string' ? checkWebhookUrl(url, egress) : 'must be a string';
    if (reason !== null) problems.push({ pointer: '/url', message: reason });
  }
  if (events !== undefined) {
    const allowed = WEBHOOK_EVENTS_BY_TARGET[target];
    if (!Array.isArray(events)) problems.push({ pointer: '/events', message: 'must be an array of event types' });
    else {
      events.forEach((event, index) => {
        if (!(allowed as readonly unknown[]).includes(event)) {
          problems.push({
            pointer: `/events/${index}`,
            message: `${JSON.stringify(event)} is not a ${target} event (expected one of ${allowed.join(', ')})`,
          });
        }
      });
      if (new Set(events).size !== events.length)
        problems.push({ pointer: '/events', message: 'must not repeat an event type' });
    }
  }
  for (const key of Object.keys(configuration)) {
    if (key !== 'url' && key !== 'events')
      problems.push({ pointer: `/${key.replaceAll('~', '~0').replaceAll('/', '~1')}`, message: 'unknown property' });
  }
  return problems;
}

/**
 * A configuration that passes checkWebhookConfiguration and has a URL and at least one event makes the installation
 * active.
 */
export function isWebhookConfigurationComplete(
  configuration: Record<string, unknown>,
): configuration is Record<string, unknown> & WebhookConfiguration {
  return (
    typeof configuration.url === 'string' && Array.isArray(configuration.events) && configuration.events.length > 0
  );
}
