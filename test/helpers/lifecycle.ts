// Helpers for the lifecycle tests: install through the admin API, read the event log, derive an
// installation's token the way the host does, and poll for asynchronous setup events.

import type { TestHost } from './host.ts';
import { deriveInstallationToken, TOKEN_SECRET_META_KEY } from '../../host/installations/tokens.ts';
import type { Host } from '../../host/index.ts';
import type { EventLogEntry } from '../../host/dispatch/event-log.ts';

/** An event-log entry as the admin API returns it (the host's own type). */
export type LoggedEvent = EventLogEntry;

export async function install(
  host: TestHost,
  integration: string,
  body: Record<string, unknown>,
): Promise<{ status: number; json: any }> {
  const response = await host.admin(`/v1/integrations/${integration}/installations`, {
    method: 'POST',
    body: JSON.stringify(body),
  });
  return { status: response.status, json: await response.json() };
}

export async function patchConfiguration(
  host: TestHost,
  id: string,
  patch: unknown,
): Promise<{ status: number; json: any; text: string }> {
  const response = await host.admin(`/v1/installations/${id}/configuration`, {
    method: 'PATCH',
    body: JSON.stringify(patch),
  });
  const text = await response.text();
  return { status: response.status, json: JSON.parse(text), text };
}

/** Every logged dispatch of the integration, newest first (all pages). */
export async function eventsOf(host: TestHost, integration: string): Promise<LoggedEvent[]> {
  const items: LoggedEvent[] = [];
  let cursor: string | null = null;
  do {
    const response = await host.admin(
      `/v1/integrations/${integration}/events?limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
    );
    const page = (await response.json()) as { items: LoggedEvent[]; nextCursor: string | null };
    items.push(...page.items);
    cursor = page.nextCursor;
  } while (cursor !== null);
  return items;
}

/** The token the host hands the installation in its environment. */
export async function tokenOf(host: Host, installationId: string): Promise<string> {
  return deriveInstallationToken((await host.stores.meta.get(TOKEN_SECRET_META_KEY))!, installationId);
}

/** Polls an async check until it stops throwing; rethrows its last failure after `timeoutMs`. */
export async function eventually<T>(check: () => Promise<T>, timeoutMs = 5_000): Promise<T> {
  const started = Date.now();
  for (;;) {
    try {
      return await check();
    } catch (error) {
      if (Date.now() - started > timeoutMs) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}
