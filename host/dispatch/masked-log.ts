// The event log as dispatches write it, with each integration's secret values masked in its
// console lines (secrets/mask.ts) before anything stores or streams them. Reads pass through.

import type { LoadedIntegration } from '../manifest/types.ts';
import { secretMasker } from '../secrets/mask.ts';
import type { EventLog, EventLogEntry } from './event-log.ts';

/** The masker of an integration's current secrets; built once per loaded integration (a reload makes a new one). */
export function maskerOf(
  lookup: (name: string) => LoadedIntegration | undefined,
): (integration: string) => (text: string) => string {
  const cache = new WeakMap<LoadedIntegration, (text: string) => string>();
  return (name) => {
    const integration = lookup(name);
    if (integration === undefined) return (text) => text;
    let masker = cache.get(integration);
    if (masker === undefined) cache.set(integration, (masker = secretMasker(Object.values(integration.secrets))));
    return masker;
  };
}

export function maskingEventLog(log: EventLog, masker: (integration: string) => (text: string) => string): EventLog {
  const masked = (entry: EventLogEntry): EventLogEntry => {
    if (entry.logs.length === 0) return entry;
    const mask = masker(entry.integration);
    return { ...entry, logs: entry.logs.map((line) => ({ ...line, text: mask(line.text) })) };
  };
  return {
    record(entry) {
      log.record(masked(entry));
    },
    // A row recorded once its answer comes (a late 504) is masked as it arrives, as any other.
    ...(log.recordLater !== undefined
      ? {
          recordLater: (integration: string, entry: Promise<EventLogEntry>) =>
            log.recordLater!(integration, entry.then(masked)),
        }
      : {}),
    flush: () => log.flush(),
    list: (integration, page) => log.list(integration, page),
    get: (integration, eventId) => log.get(integration, eventId),
  };
}
