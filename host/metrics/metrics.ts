// The host's Prometheus metrics (prom-client): dispatches by integration, type and status with a
// latency histogram, sandbox events (isolate starts and evictions, worker restarts, quarantines,
// throttles, demotions, egress refusals), webhook attempts by result and the outbox depth, owed
// setup events' attempts and queue, plus Node's process metrics. Counts only what the host did; labels are bounded
// (integration names, event types, status codes), never ids, URLs or anything a guest chose.

import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export type SandboxCount =
  | 'isolate_start'
  | 'warm_isolate_start'
  | 'bundle_precompiled'
  | 'isolate_eviction'
  | 'egress_refusal'
  | 'worker_restart'
  | 'quarantine'
  | 'throttle'
  | 'demotion'
  | 'sched_idle_demotion'
  | 'sched_idle_return'
  | 'start_timeout';
export type AttemptResultLabel = 'succeeded' | 'retry' | 'failed';
export type OwedAttemptResult = 'delivered' | 'retry' | 'failed';

export interface HostMetrics {
  readonly contentType: string;
  dispatched(event: { integration: string; type: string; status: number; durationMs: number }): void;
  counted(name: SandboxCount, integration?: string): void;
  attempted(result: AttemptResultLabel): void;
  /** Read at every scrape: deliveries waiting and in flight in the outbox. */
  outboxDepthFrom(read: () => Promise<{ pending: number; inFlight: number }>): void;
  /** An attempt of an owed setup event settled. */
  owedAttempted(result: OwedAttemptResult): void;
  /** Read at every scrape: owed setup events waiting and being delivered. */
  owedDepthFrom(read: () => Promise<{ pending: number; running: number }>): void;
  /** Read at every scrape: round trips and statements this host has asked of its database. */
  storeTrafficFrom(read: () => { roundTrips: number; statements: number }): void;
  render(): Promise<string>;
}

const PREFIX = 'integration_host_';

export function createHostMetrics(): HostMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: PREFIX });
  const dispatches = new Counter({
    name: `${PREFIX}dispatches_total`,
    help: 'Events dispatched into integrations, by integration, event type and answer status.',
    labelNames: ['integration', 'type', 'status'],
    registers: [registry],
  });
  const latency = new Histogram({
    name: `${PREFIX}dispatch_duration_seconds`,
    help: 'Wall-clock time of a dispatch into an integration, isolate start-up included.',
    labelNames: ['integration', 'type'],
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  const perIntegration = (name: string, help: string) =>
    new Counter({ name: `${PREFIX}${name}`, help, labelNames: ['integration'], registers: [registry] });
  const counters: Record<SandboxCount, Counter<string>> = {
    isolate_start: perIntegration(
      'isolate_starts_total',
      'V8 isolates started (first dispatch, after a reset or an eviction).',
    ),
    warm_isolate_start: perIntegration(
      'warm_isolate_starts_total',
      "Isolate starts that claimed a realm from a worker's warm pool (made and bootstrapped ahead of time).",
    ),
    bundle_precompiled: perIntegration(
      'precompiled_bundles_total',
      "Bundles compiled by their worker ahead of their first start, for V8's " +
        'code cache (made in an isolate that only compiles; nothing runs).',
    ),
    isolate_eviction: perIntegration(
      'isolate_evictions_total',
      'Idle isolates disposed to stay under the per-worker cap.',
    ),
    egress_refusal: perIntegration('egress_refusals_total', 'Guest fetches refused by the egress policy.'),
    quarantine: perIntegration(
      'quarantines_total',
      'Integrations quarantined after crashing their sandbox repeatedly.',
    ),
    throttle: perIntegration('throttles_total', 'Integrations paused after running past their deadline repeatedly.'),
    demotion: perIntegration(
      'demotions_total',
      'Offenders moved to the low-priority (nice 19) sandbox worker: a timeout, memory kill, crash or CPU hog.',
    ),
    sched_idle_demotion: perIntegration(
      'sched_idle_demotions_total',
      'Offenders moved on to the SCHED_IDLE sandbox worker after burning CPU again on the low-priority one.',
    ),
    start_timeout: perIntegration(
      'start_timeouts_total',
      "Dispatches answered 504 at their deadline on an offenders' sandbox worker before any of the " +
        "integration's code ran (its isolate was still being prepared): not counted as the integration's " +
        'timeouts.',
    ),
    sched_idle_return: perIntegration(
      'sched_idle_returns_total',
      'Offenders moved back from the SCHED_IDLE sandbox worker to the low-priority ' +
        'one because that worker starved (the machine had no CPU to spare).',
    ),
    worker_restart: new Counter({
      name: `${PREFIX}worker_restarts_total`,
      help: 'Sandbox worker processes that died and were restarted.',
      registers: [registry],
    }),
  };
  const attempts = new Counter({
    name: `${PREFIX}webhook_attempts_total`,
    help: 'Webhook delivery attempts, by result: succeeded, retry (failed, will be retried), failed (given up).',
    labelNames: ['result'],
    registers: [registry],
  });
  for (const result of ['succeeded', 'retry', 'failed']) attempts.inc({ result }, 0);
  counters.worker_restart.inc(0);
  let readDepth: (() => Promise<{ pending: number; inFlight: number }>) | undefined;
  new Gauge({
    name: `${PREFIX}outbox_depth`,
    help: 'Webhook deliveries in the outbox (shared by every host on the database), by status.',
    labelNames: ['status'],
    registers: [registry],
    async collect() {
      if (readDepth === undefined) return;
      const depth = await readDepth();
      this.set({ status: 'pending' }, depth.pending);
      this.set({ status: 'in_flight' }, depth.inFlight);
    },
  });
  const owedAttempts = new Counter({
    name: `${PREFIX}owed_event_attempts_total`,
    help:
      'Attempts to deliver owed setup events (installation_setup, …), by result: ' +
      'delivered, retry (failed, will be retried), failed (given up or refused).',
    labelNames: ['result'],
    registers: [registry],
  });
  for (const result of ['delivered', 'retry', 'failed']) owedAttempts.inc({ result }, 0);
  let readOwedDepth: (() => Promise<{ pending: number; running: number }>) | undefined;
  new Gauge({
    name: `${PREFIX}owed_events`,
    help: 'Owed setup events not yet delivered or failed (shared by every host on the database), by status.',
    labelNames: ['status'],
    registers: [registry],
    async collect() {
      if (readOwedDepth === undefined) return;
      const depth = await readOwedDepth();
      this.set({ status: 'pending' }, depth.pending);
      this.set({ status: 'running' }, depth.running);
    },
  });
  // Counted by the store itself (store/traffic.ts); read after the gauges above, so a scrape's own
  // depth queries show in the next scrape.
  let readTraffic: (() => { roundTrips: number; statements: number }) | undefined;
  const trafficCounter = (
    name: string,
    help: string,
    pick: (traffic: { roundTrips: number; statements: number }) => number,
  ) =>
    new Counter({
      name: `${PREFIX}${name}`,
      help,
      registers: [registry],
      collect() {
        if (readTraffic === undefined) return;
        this.reset();
        this.inc(pick(readTraffic()));
      },
    });
  trafficCounter(
    'store_round_trips_total',
    'Calls this host made to its database and waited on (PostgreSQL: queries, BEGIN and COMMIT included; ' +
      'SQLite: statements run).',
    (traffic) => traffic.roundTrips,
  );
  trafficCounter('store_statements_total', 'SQL statements this host ran on its database.', (t) => t.statements);
  return {
    contentType: registry.contentType,
    dispatched({ integration, type, status, durationMs }) {
      dispatches.inc({ integration, type, status: String(status) });
      latency.observe({ integration, type }, durationMs / 1000);
    },
    counted(name, integration) {
      const counter = counters[name];
      if (name === 'worker_restart') counter.inc();
      else counter.inc({ integration: integration ?? '' });
    },
    attempted: (result) => attempts.inc({ result }),
    outboxDepthFrom(read) {
      readDepth = read;
    },
    owedAttempted: (result) => owedAttempts.inc({ result }),
    owedDepthFrom(read) {
      readOwedDepth = read;
    },
    storeTrafficFrom(read) {
      readTraffic = read;
    },
    render: () => registry.metrics(),
  };
}
