// The runner of the setup events owed to installations, wired to this host's store, dispatcher and
// metrics (docs/operations.md#owed-platform-events). Wiring only: what is owed is decided in installations/,
// how it is delivered in owed-events/.

import type { Logger } from '../common/logger.ts';
import type { HostOptions } from '../config/options.ts';
import type { EventDispatcher } from '../dispatch/event-dispatcher.ts';
import type { HostMetrics } from '../metrics/metrics.ts';
import { DEFAULT_OWED_EVENT_LIMITS } from '../owed-events/model.ts';
import { createOwedEventRunner, type OwedEventRunner } from '../owed-events/runner.ts';
import type { HostStores } from '../store/types.ts';
import { sharedQueuePollMs } from './shared-queues.ts';

export function createOwedEvents(
  stores: HostStores,
  dispatcher: EventDispatcher,
  options: HostOptions,
  log: Logger,
  metrics: HostMetrics,
): OwedEventRunner {
  metrics.owedDepthFrom(() => stores.owedEvents.depth());
  const { work } = stores;
  const runner = createOwedEventRunner({
    store: stores.owedEvents,
    limits: DEFAULT_OWED_EVENT_LIMITS,
    getInstallation: (id) => stores.installations.getInstallation(id),
    dispatch: (installation, event) => dispatcher.run(installation, event, null),
    now: options.clock,
    log,
    onAttempt: (result) => metrics.owedAttempted(result),
    // A dispatch's deadline plus its waitUntil work, with room: an event held longer had its host die.
    leaseMs: options.owedEventLeaseMs ?? options.limits.dispatchTimeoutMs + options.limits.waitUntilTimeoutMs + 30_000,
    // Other hosts announce the events they cannot start; the poll finds lost announcements and lapsed leases.
    pollMs: stores.shared ? sharedQueuePollMs(options) : 5_000,
    ...(work ? { announce: () => work.announce('owed-events') } : {}),
  });
  work?.onAnnounced('owed-events', () => runner.poke());
  return runner;
}
