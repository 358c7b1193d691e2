// Assembly step 5: the event log and its live feed, the dispatcher that runs events in the
// sandbox, the owed setup events, installations and their lifecycle, and the task runner.
// Wires; starts nothing that runs on timers (assemble.ts starts them once the host serves).

import { createEventDispatcher, newEventId } from '../dispatch/event-dispatcher.ts';
import { createEventFeed, publishingEventLog } from '../dispatch/event-feed.ts';
import { withLateRows } from '../dispatch/late-rows.ts';
import { maskingEventLog } from '../dispatch/masked-log.ts';
import { createConnectTickets } from '../installations/connect-ticket.ts';
import { adoptOrphanInstallations } from '../installations/hierarchy.ts';
import { createLifecycle } from '../installations/lifecycle.ts';
import { createInstallationService } from '../installations/service.ts';
import type { Supervisor } from '../sandbox/supervisor.ts';
import { createTaskQueue } from '../tasks/queue.ts';
import { createTaskRunner } from '../tasks/runner.ts';
import { createOwedEvents } from './owed-events.ts';
import type { Listeners } from './step-listeners.ts';
import type { IntegrationsStep } from './step-sandbox.ts';
import type { StoresStep } from './step-stores.ts';
import type { AssemblyBase } from './step-types.ts';
import { sharedQueuePollMs } from './shared-queues.ts';

export type DispatchStep = Awaited<ReturnType<typeof wireDispatch>>;

export async function wireDispatch(
  { options, log, metrics, platform, onFailure }: AssemblyBase,
  { baseUrl }: Listeners,
  { stores, tokenSecret }: StoresStep,
  { registry, secretMask }: IntegrationsStep,
  supervisor: Supervisor,
) {
  // Every recorded entry also goes to the live followers (GET …/events/stream, npm run logs); reads
  // wait for rows still on their way (late-rows.ts).
  const feed = createEventFeed();
  const eventLog = withLateRows(maskingEventLog(publishingEventLog(stores.eventLog, feed), secretMask));
  const dispatcher = createEventDispatcher({
    registry,
    sandbox: supervisor,
    eventLog,
    tokenSecret,
    baseUrl,
    now: options.clock,
    onDispatched: (event) => metrics.dispatched(event),
    platform,
    getInstallation: (id) => stores.installations.getInstallation(id),
  });
  const run = dispatcher.run;
  // The setup events owed to installations, written with the change that owes them, delivered in
  // order per installation by whichever host is alive (docs/operations.md#owed-platform-events).
  const owedEvents = createOwedEvents(stores, dispatcher, options, log, metrics);
  onFailure(() => owedEvents.stop());
  const lifecycle = createLifecycle({
    store: stores.installations,
    registry,
    log,
    now: options.clock,
    newEventId,
    deliver: () => owedEvents.queued(),
  });
  const connectTickets = createConnectTickets({ secret: tokenSecret, now: options.clock });
  const installations = createInstallationService({
    registry,
    store: stores.installations,
    platform,
    lifecycle,
    run,
    tokenSecret,
    connectTickets,
    baseUrl,
    log,
  });
  // Space and site installations stored before the hierarchy get their organization installation.
  await adoptOrphanInstallations({ store: stores.installations, registry, tokenSecret, log });

  // Tasks queued through GitBook's API run later as `task` events to the integration itself.
  const { work } = stores;
  const tasks = createTaskRunner({
    store: stores.tasks,
    limits: options.limits,
    dispatch: (integration, event) => dispatcher.runForIntegration(integration, event, null),
    now: options.clock,
    log,
    // A dispatch's deadline plus its waitUntil work, with room: a task held longer had its host die.
    leaseMs: options.limits.dispatchTimeoutMs + options.limits.waitUntilTimeoutMs + 30_000,
    // Other hosts announce the tasks they cannot start; the poll finds lost announcements and lapsed leases.
    pollMs: stores.shared ? sharedQueuePollMs(options) : 5_000,
    ...(work ? { announce: () => work.announce('tasks') } : {}),
  });
  onFailure(() => tasks.stop());
  work?.onAnnounced('tasks', () => tasks.poke());
  const queueTask = createTaskQueue({
    store: stores.tasks,
    limits: options.limits,
    now: options.clock,
    queued: (runAt) => tasks.queued(runAt),
  });
  return { feed, eventLog, dispatcher, owedEvents, lifecycle, connectTickets, installations, tasks, queueTask };
}
