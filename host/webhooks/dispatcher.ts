// Drives the webhook outbox: claims due deliveries, runs one attempt each within the slots,
// records attempts and schedules retries (schedule.ts). Never blocks its caller: enqueue only
// writes; sending happens on timers and promises. Claims and results are group-committed.

import { createEgressPolicy } from '../bridge/egress-policy.ts';
import { createDeliveryAgents, deliverAttempt, DEFAULT_ATTEMPT_TIMEOUT_MS, type AttemptResult, type DeliverFn } from './deliver.ts';
import { createDueCache } from './due-cache.ts';
import { endpointOf } from './outbox.ts';
import type { AttemptRecord, DeliveryRecord, NextState } from './outbox.ts';
import { describeResult, settleAttempt } from './settle-attempt.ts';
import { createSlots } from './slots.ts';
import type { WebhookDispatcher, WebhookDispatcherOptions } from './dispatcher-options.ts';

export type { WebhookDispatcher, WebhookDispatcherOptions } from './dispatcher-options.ts';

interface Finished {
  delivery: DeliveryRecord;
  record: AttemptRecord;
  next: NextState;
  result: AttemptResult;
  done: () => void;
}

export function createWebhookDispatcher(options: WebhookDispatcherOptions): WebhookDispatcher {
  const { outbox } = options;
  const now = options.now ?? Date.now;
  const random = options.random ?? Math.random;
  const setTimer = options.setTimer ?? ((callback, delayMs) => setTimeout(callback, delayMs));
  const clearTimer = options.clearTimer ?? ((handle) => clearTimeout(handle as ReturnType<typeof setTimeout>));
  const timeoutMs = options.timeoutMs ?? DEFAULT_ATTEMPT_TIMEOUT_MS;
  const stopTimeoutMs = options.stopTimeoutMs ?? timeoutMs + 1_000;
  const slots = createSlots(options.concurrency ?? 32, options.perEndpointConcurrency ?? 8);
  const policy = createEgressPolicy(options.policyOptions);
  const agents = options.deliver ? undefined : createDeliveryAgents(options.perEndpointConcurrency ?? 8);
  const deliver: DeliverFn = options.deliver ?? ((request) => deliverAttempt(request, { policy, timeoutMs, lookup: options.lookup, nowMs: now, userAgent: options.userAgent, agents }));
  const dueCache = createDueCache();

  let running = false;
  let timer: { handle: unknown; dueAt: number } | null = null;
  const active = new Map<string, Promise<void>>();
  // Results waiting to be written together: one disk sync per burst instead of one per attempt.
  let finished: Finished[] = [];
  let flushHandle: unknown = null;

  /** Skipping busy endpoints makes this a scan of their backlog, hence the cache. */
  function nextDueAt(busy: string[]): number | null {
    if (busy.length === 0) return outbox.nextDueAt();
    const known = dueCache.lookup(busy);
    if (known !== undefined && (known.dueAt === null || known.dueAt > now())) return known.dueAt;
    const dueAt = outbox.nextDueAt(busy);
    dueCache.remember(busy, dueAt);
    return dueAt;
  }

  function disarm(): void {
    if (timer !== null) clearTimer(timer.handle);
    timer = null;
  }

  /** One timer for the earliest delivery a free slot could take; completions re-pump anyway. */
  function arm(): void {
    if (!running) return;
    const dueAt = nextDueAt(slots.busyEndpoints());
    if (dueAt === null || (dueAt <= now() && slots.isFull())) return disarm();
    if (timer !== null && timer.dueAt === dueAt) return;
    disarm();
    timer = { handle: setTimer(() => ((timer = null), pump()), Math.max(0, dueAt - now())), dueAt };
  }

  function pump(): void {
    if (!running) return;
    const claimed = outbox.transaction(() => {
      const batch: DeliveryRecord[] = [];
      while (!slots.isFull()) {
        const busy = slots.busyEndpoints();
        if (busy.length > 0) {
          const dueAt = nextDueAt(busy);
          if (dueAt === null || dueAt > now()) break;
        }
        const delivery = outbox.claimNext(now(), busy);
        if (delivery === undefined) break;
        slots.take(endpointOf(delivery.url));
        batch.push(delivery);
      }
      return batch;
    });
    for (const delivery of claimed) launch(delivery);
    arm();
  }

  function launch(delivery: DeliveryRecord): void {
    const task = new Promise<void>((done) => {
      const startedAt = now();
      let secrets: string[];
      try {
        secrets = options.secretsFor(delivery.installationId);
      } catch {
        secrets = [];
      }
      deliver({ url: delivery.url, body: delivery.body, secrets })
        .catch((error: unknown): AttemptResult => ({ error: 'network', message: (error as Error).message, durationMs: now() - startedAt }))
        .then((result) => {
          const { record, next } = settleAttempt(delivery.attempts + 1, startedAt, result, now(), random);
          finished.push({ delivery, record, next, result, done });
          if (flushHandle === null) flushHandle = setTimer(flush, 0);
        });
    });
    active.set(delivery.id, task);
  }

  function flush(): void {
    flushHandle = null;
    const batch = finished;
    finished = [];
    try {
      outbox.recordAttempts(batch.map(({ delivery, record, next }) => ({ deliveryId: delivery.id, attempt: record, next })));
    } catch (error) {
      // The rows stay in flight and are resent after a restart: at least once, never lost.
      options.log?.error(`webhook outbox: could not record ${batch.length} attempt(s): ${(error as Error).message}`);
    }
    for (const { delivery, record, next, result, done } of batch) {
      const endpoint = endpointOf(delivery.url);
      slots.release(endpoint);
      active.delete(delivery.id);
      if (next.status === 'pending') dueCache.invalidate([endpoint]);
      if (next.status === 'pending') options.log?.info(`webhook ${delivery.id} attempt ${record.attempt}: ${describeResult(result)}; retry at ${new Date(next.nextAttemptAt).toISOString()}`);
      if (next.status === 'failed') options.log?.warn(`webhook ${delivery.id} failed after attempt ${record.attempt}: ${describeResult(result)}`);
      options.onAttempt?.({ delivery, attempt: record, status: next.status });
      done();
    }
    pump();
  }

  return {
    enqueue(deliveries) {
      const records = outbox.enqueue(deliveries, now());
      dueCache.invalidate(records.map((record) => endpointOf(record.url)));
      arm();
      return records;
    },
    redeliver(deliveryId, redeliverOptions) {
      const record = outbox.redeliver(deliveryId, now(), redeliverOptions);
      if (record === undefined) return undefined;
      dueCache.invalidate([endpointOf(record.url)]);
      arm();
      return record;
    },
    start() {
      if (running) return;
      running = true;
      dueCache.clear();
      const resumed = outbox.resetInFlight();
      if (resumed > 0) options.log?.warn(`webhook outbox: resuming ${resumed} delivery(ies) left in flight by a previous run`);
      arm();
    },
    async stop() {
      running = false;
      disarm();
      if (active.size > 0) {
        let handle: unknown;
        const bound = new Promise<void>((resolve) => (handle = setTimer(resolve, stopTimeoutMs)));
        await Promise.race([Promise.allSettled([...active.values()]), bound]);
        clearTimer(handle);
      }
      agents?.destroy();
    },
    activeCount: () => active.size,
  };
}
