// The dispatcher's options and public interface: what host/index.ts wires and HTTP routes call.
// Types only; the behaviour lives in dispatcher.ts.

import type { LookupFunction } from 'node:net';
import type { Logger } from '../common/logger.ts';
import type { EgressOptions } from '../bridge/egress-policy.ts';
import type { DeliverFn } from './deliver.ts';
import type { Outbox } from './outbox.ts';
import type { AttemptRecord, DeliveryRecord, NewDelivery } from './outbox.ts';

export interface WebhookDispatcherOptions {
  outbox: Outbox;
  /** The same `--allow-egress` exceptions as guest fetch. */
  policyOptions: EgressOptions;
  /**
   * Active signing secrets of each installation of a claimed batch (one read), current first; empty once it is gone
   * (its delivery then fails). Not asked when the outbox offers claimDueSigned: its claim reads them from the same
   * store, so both must be the signing secrets' store (host/assembly/step-webhooks.ts wires them so).
   */
  signingSecretsFor(installationIds: readonly string[]): Promise<ReadonlyMap<string, readonly string[]>>;
  /** The URL the installation is configured with now (each attempt goes there); undefined keeps the queued one. */
  currentUrl?(installationId: string): Promise<string | undefined>;
  now?: () => number;
  random?: () => number;
  /** Timers for due times and the batching tick; writing a burst of results right away uses setImmediate. */
  setTimer?: (callback: () => void, delayMs: number) => unknown;
  clearTimer?: (handle: unknown) => void;
  log?: Logger;
  /** Attempts in flight overall (default 32) and per receiver origin (default 8). */
  concurrency?: number;
  perEndpointConcurrency?: number;
  /** Per-attempt timeout (default 10 s) and how long stop() waits for in-flight attempts (default timeout + 1 s). */
  timeoutMs?: number;
  stopTimeoutMs?: number;
  /**
   * How long a claim holds on a shared store before another host may take the delivery over (default timeout + 20 s).
   */
  leaseMs?: number;
  /**
   * Shared stores: how often to look for work other hosts queued or abandoned (default: never,
   * for a store only this process writes). Their announcements (workAnnounced) come sooner; this
   * look catches a lost one and a lapsed lease.
   */
  pollIntervalMs?: number;
  /** One attempt; defaults to deliverAttempt through the egress policy with keep-alive agents. Tests inject fakes. */
  deliver?: DeliverFn;
  lookup?: LookupFunction;
  userAgent?: string;
  /** Called after every recorded attempt (metrics, tests). */
  onAttempt?: (event: {
    delivery: DeliveryRecord;
    attempt: AttemptRecord;
    status: 'pending' | 'succeeded' | 'failed';
  }) => void;
}

export interface WebhookDispatcher {
  /**
   * Writes the deliveries to the outbox in one transaction (durable when it resolves, before the caller answers), then
   * schedules them.
   */
  enqueue(deliveries: readonly NewDelivery[]): Promise<DeliveryRecord[]>;
  /** Queues a new delivery of the same event (optionally to the installation's current URL); undefined when unknown. */
  redeliver(deliveryId: string, options?: { url?: string }): Promise<DeliveryRecord | undefined>;
  /** Resumes what a previous process left in flight, then sends everything due. */
  start(): Promise<void>;
  /**
   * Another host sharing the outbox queued deliveries it will not start now, for these receiver
   * origins (undefined: any): claim them now if there is room for them.
   */
  workAnnounced(endpoints: readonly string[] | undefined): void;
  /** Stops scheduling and waits (bounded) for in-flight attempts to be recorded. */
  stop(): Promise<void>;
  activeCount(): number;
}
