// Drives the webhook outbox: claims due deliveries, runs one attempt each within the slots,
// records attempts and schedules retries (schedule.ts). Never blocks its caller: enqueue only
// writes; sending happens on timers and promises. Claims and results are group-committed, and
// one pump runs at a time, so the outbox is never asked to claim twice for the same free slots.
// On a shared outbox it has deliveries it cannot start announced to the other hosts, and takes theirs.

import { createEgressPolicy } from '../bridge/egress-policy.ts';
import {
  createDeliveryAgents,
  deliverAttempt,
  DEFAULT_ATTEMPT_TIMEOUT_MS,
  type AttemptResult,
  type DeliverFn,
} from './deliver.ts';
import { createDueCache } from './due-cache.ts';
import { endpointOf } from './outbox.ts';
import type { AttemptRecord, DeliveryRecord, NextState } from './outbox.ts';
import { describeAttempt, settleAttempt } from './settle-attempt.ts';
import { createSlots } from './slots.ts';
import type { WebhookDispatcher, WebhookDispatcherOptions } from './webhook-dispatcher-options.ts';

export type { WebhookDispatcher, WebhookDispatcherOptions } from './webhook-dispatcher-options.ts';

interface Finished {
  delivery: DeliveryRecord;
  record: AttemptRecord;
  next: NextState;
  result: AttemptResult;
  done: () => void;
}

/** What setTimeout(0) is in Node; spelled out so that fake clocks in tests see the same tick. */
const TIMER_TICK_MS = 1;

/** After the outbox failed (database unreachable), the pump tries again this much later. */
const RETRY_AFTER_STORE_ERROR_MS = 1_000;

export function createWebhookDispatcher(options: WebhookDispatcherOptions): WebhookDispatcher {
  const { outbox } = options;
  const now = options.now ?? Date.now;
  const random = options.random ?? Math.random;
  const setTimer = options.setTimer ?? ((callback, delayMs) => setTimeout(callback, delayMs));
  const clearTimer = options.clearTimer ?? ((handle) => clearTimeout(handle as ReturnType<typeof setTimeout>));
  const timeoutMs = options.timeoutMs ?? DEFAULT_ATTEMPT_TIMEOUT_MS;
  const stopTimeoutMs = options.stopTimeoutMs ?? timeoutMs + 1_000;
  // An attempt, the wait for its batch to be written, and a margin for a slow database.
  const leaseMs = options.leaseMs ?? timeoutMs + 20_000;
  const slots = createSlots(options.concurrency ?? 32, options.perEndpointConcurrency ?? 8);
  const policy = createEgressPolicy(options.policyOptions);
  const agents = options.deliver ? undefined : createDeliveryAgents(options.perEndpointConcurrency ?? 8);
  const deliver: DeliverFn =
    options.deliver ??
    ((request) =>
      deliverAttempt(request, {
        policy,
        timeoutMs,
        lookup: options.lookup,
        nowMs: now,
        userAgent: options.userAgent,
        agents,
      }));
  const dueCache = createDueCache();

  let running = false;
  let timer: { handle: unknown; dueAt: number } | null = null;
  const active = new Map<string, Promise<void>>();
  // Results waiting to be written together: one transaction per burst instead of one per attempt.
  let finished: Finished[] = [];
  let flushHandle: unknown = null;
  let flushIsSoon = false;
  // One pump at a time; a request that arrives meanwhile runs one more round after it.
  let pumping: Promise<void> | null = null;
  let pumpAgain = false;
  // Only the newest arm() may set the timer (an older one read an older due time).
  let armSequence = 0;
  let pollHandle: unknown = null;

  /**
   * Shared outbox: what other hosts queued or abandoned is invisible to this host's cache and timer.
   * Their announcements (workAnnounced) bring what they queued; this slow look is the safety net for
   * a lost announcement and for a lapsed lease, which nothing announces.
   */
  function poll(): void {
    if (!running || options.pollIntervalMs === undefined) return;
    pollHandle = setTimer(() => {
      dueCache.clear();
      pump();
      poll();
    }, options.pollIntervalMs);
  }

  /** Skipping busy endpoints makes this a scan of their backlog, hence the cache. */
  async function nextDueAt(busy: string[]): Promise<number | null> {
    if (busy.length === 0) return outbox.nextDueAt();
    const known = dueCache.lookup(busy);
    if (known !== undefined && (known.dueAt === null || known.dueAt > now())) return known.dueAt;
    const dueAt = await outbox.nextDueAt(busy);
    dueCache.remember(busy, dueAt);
    return dueAt;
  }

  function disarm(): void {
    if (timer !== null) clearTimer(timer.handle);
    timer = null;
  }

  function setWake(dueAt: number): void {
    if (timer !== null && timer.dueAt === dueAt) return;
    disarm();
    timer = { handle: setTimer(() => ((timer = null), pump()), Math.max(0, dueAt - now())), dueAt };
  }

  /** One timer for the earliest delivery a free slot could take; completions re-pump anyway. */
  async function arm(): Promise<void> {
    if (!running) return;
    const sequence = ++armSequence;
    const dueAt = await nextDueAt(slots.busyEndpoints());
    if (!running || sequence !== armSequence) return;
    if (dueAt === null || (dueAt <= now() && slots.isFull())) return disarm();
    setWake(dueAt);
  }

  /**
   * New rows due now: a pump is needed if one of them could take a free slot, and no outbox read
   * can tell more. Otherwise (slots full, or only busy endpoints) an attempt in flight completes,
   * re-pumps and sees them. The pump runs on a timer tick, as before, so that events arriving one
   * request at a time are claimed together rather than one claim each. Bumping the sequence keeps
   * an older arm() still reading (from before these rows existed) from cancelling or delaying it.
   */
  function wakeFor(endpoints: readonly string[] | undefined): void {
    if (!running || slots.isFull()) return;
    const busy = slots.busyEndpoints();
    if (endpoints !== undefined && busy.length > 0 && endpoints.every((endpoint) => busy.includes(endpoint))) return;
    ++armSequence;
    if (timer !== null && timer.dueAt <= now()) return;
    setWake(now());
  }

  /** Arms without waiting; an outbox failure becomes a retry, never an unhandled rejection. */
  function armSoon(): void {
    arm().catch((error: unknown) => storeFailed('could not read the next due time', error));
  }

  function storeFailed(what: string, error: unknown): void {
    options.log?.error(
      `webhook outbox: ${what}: ${(error as Error).message}; retrying in ${RETRY_AFTER_STORE_ERROR_MS} ms`,
    );
    if (running) setWake(now() + RETRY_AFTER_STORE_ERROR_MS);
  }

  async function claimAndLaunch(): Promise<void> {
    while (running && !slots.isFull()) {
      const busy = slots.busyEndpoints();
      if (busy.length > 0) {
        const dueAt = await nextDueAt(busy);
        if (dueAt === null || dueAt > now()) break;
      }
      const request = { limit: slots.free(), perEndpoint: slots.perEndpoint, room: slots.room(), leaseMs };
      // A store that can returns the batch's secrets with the claim (one round trip, not two).
      const signed = outbox.claimDueSigned === undefined ? undefined : await outbox.claimDueSigned(now(), request);
      const claimed = signed === undefined ? await outbox.claimDue(now(), request) : signed.claimed;
      // What was queued here counting on the room is claimed now (or was, by another host).
      slots.clearReserved();
      // Claimed rows are attempted even if stop() came meanwhile: stop() waits for them. Their slots are
      // taken before the batch's secrets are read, so nothing else counts them free meanwhile.
      for (const delivery of claimed) slots.take(endpointOf(delivery.url));
      const secrets = signed === undefined ? await signingSecretsOf(claimed) : signed.secrets;
      for (const delivery of claimed) launch(delivery, secrets.get(delivery.installationId) ?? []);
      if (claimed.length === 0) break;
    }
  }

  function pump(): void {
    if (!running) return;
    if (pumping !== null) {
      pumpAgain = true;
      return;
    }
    pumping = (async () => {
      do {
        pumpAgain = false;
        try {
          await claimAndLaunch();
          await arm();
        } catch (error) {
          storeFailed('could not claim deliveries', error);
        }
      } while (pumpAgain && running);
    })().finally(() => {
      pumping = null;
    });
  }

  /** The batch's secrets in one read; when it fails every attempt goes unsigned, fails and is retried. */
  async function signingSecretsOf(claimed: readonly DeliveryRecord[]): Promise<ReadonlyMap<string, readonly string[]>> {
    if (claimed.length === 0) return new Map();
    try {
      return await options.signingSecretsFor(claimed.map((delivery) => delivery.installationId));
    } catch (error) {
      options.log?.error(`webhook outbox: could not read signing secrets: ${(error as Error).message}`);
      return new Map();
    }
  }

  function launch(delivery: DeliveryRecord, secrets: readonly string[]): void {
    const task = new Promise<void>((done) => {
      const startedAt = now();
      // Every attempt, retries included, goes to the URL configured now: a URL changed because
      // the old receiver is wrong or compromised must not keep receiving signed events.
      const currentUrl = (options.currentUrl?.(delivery.installationId) ?? Promise.resolve(undefined)).catch(
        () => undefined,
      );
      currentUrl
        .then((url) => deliver({ url: url ?? delivery.url, body: delivery.body, secrets: [...secrets] }))
        .catch(
          (error: unknown): AttemptResult => ({
            error: 'network',
            message: (error as Error).message,
            durationMs: now() - startedAt,
          }),
        )
        .then((result) => {
          const { record, next } = settleAttempt(delivery.attempts + 1, startedAt, result, now(), random);
          finished.push({ delivery, record, next, result, done });
          scheduleFlush();
        });
    });
    active.set(delivery.id, task);
  }

  /**
   * A burst (at least two results, and at least half of the attempts in flight) is written right
   * after the current I/O and its slots refilled while the rest still runs: a timer tick here had
   * left the slots idle for ≥ 1 ms every few deliveries. A lone result, or fewer than half, waits
   * for the timer tick as before, so that results arriving one at a time share a transaction.
   */
  function scheduleFlush(): void {
    const soon = finished.length >= 2 && finished.length * 2 >= active.size;
    if (flushHandle !== null) {
      if (flushIsSoon || !soon) return;
      clearTimer(flushHandle);
    }
    flushIsSoon = soon;
    if (soon) {
      flushHandle = true;
      setImmediate(() => void flush());
    } else {
      flushHandle = setTimer(() => void flush(), TIMER_TICK_MS);
    }
  }

  async function flush(): Promise<void> {
    flushHandle = null;
    const batch = finished;
    finished = [];
    try {
      await outbox.recordAttempts(
        batch.map(({ delivery, record, next }) => ({
          deliveryId: delivery.id,
          attempt: record,
          next,
          ...(delivery.claim !== undefined ? { claim: delivery.claim } : {}),
        })),
      );
    } catch (error) {
      // The rows stay in flight and are resent after a restart: at least once, never lost.
      options.log?.error(`webhook outbox: could not record ${batch.length} attempt(s): ${(error as Error).message}`);
    }
    for (const { delivery, record, next, result, done } of batch) {
      const endpoint = endpointOf(delivery.url);
      slots.release(endpoint);
      active.delete(delivery.id);
      if (next.status === 'pending') dueCache.invalidate([endpoint]);
      // One line per attempt, delivered ones included, so every delivery is visible in the host log.
      if (next.status === 'failed') options.log?.warn(describeAttempt(delivery, record, next, result));
      else options.log?.info(describeAttempt(delivery, record, next, result));
      options.onAttempt?.({ delivery, attempt: record, status: next.status });
      done();
    }
    pump();
  }

  /**
   * The rule for announcing new deliveries to the other hosts of a shared outbox: exactly when this
   * host will not start them all right away, that is when its dispatcher is not running, or when they
   * do not fit its free slots (overall and per receiver origin) beside what it queued since its last
   * claim. A host with room claims them itself and says nothing, so no other host is woken to race it
   * for the same rows. A host without room announces them (debounced by the store, carried by the
   * insert); every other host with room for their origins claims them at once, and one without room
   * stays asleep, since its own next completion looks at the outbox anyway.
   */
  const cannotStart = (endpoints: readonly string[]): boolean => !running || !slots.reserve(endpoints);

  return {
    async enqueue(deliveries) {
      const announce = cannotStart(deliveries.map((delivery) => endpointOf(delivery.url)));
      const records = await outbox.enqueue(deliveries, now(), { announce });
      const endpoints = records.map((record) => endpointOf(record.url));
      dueCache.invalidate(endpoints);
      wakeFor(endpoints);
      return records;
    },
    async redeliver(deliveryId, redeliverOptions = {}) {
      const url = redeliverOptions.url;
      const announce = url === undefined ? !running || slots.isFull() : cannotStart([endpointOf(url)]);
      const record = await outbox.redeliver(deliveryId, now(), { ...redeliverOptions, announce });
      if (record === undefined) return undefined;
      dueCache.invalidate([endpointOf(record.url)]);
      armSoon();
      return record;
    },
    workAnnounced(endpoints) {
      if (!running) return;
      // The other host's rows are unknown to the due cache, whether or not there is room for them now.
      if (endpoints === undefined) dueCache.clear();
      else dueCache.invalidate(endpoints);
      wakeFor(endpoints);
    },
    async start() {
      if (running) return;
      running = true;
      dueCache.clear();
      const resumed = await outbox.resetInFlight();
      if (resumed > 0)
        options.log?.warn(`webhook outbox: resuming ${resumed} delivery(ies) left in flight by a previous run`);
      armSoon();
      poll();
    },
    async stop() {
      running = false;
      disarm();
      if (pollHandle !== null) clearTimer(pollHandle);
      pollHandle = null;
      if (pumping !== null) await pumping;
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
