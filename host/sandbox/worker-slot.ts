// One sandbox worker process as the supervisor holds it: the forked child (--no-node-snapshot),
// what is in flight on it, which integrations still work after their response, and how to stop
// it. Owns process plumbing only; it never decides placement, strikes or quarantine.

import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { SandboxResponse } from '../../sandbox-api/runtime/contract.ts';
import { HostError } from '../common/errors.ts';
import { importFlags } from '../common/import-flags.ts';
import type { CapturedLog, FromWorker, ToWorker } from './messages.ts';
import { batchedSender, unbatch, type MessageBatch } from './ipc-batch.ts';
import { WORKER_V8_FLAGS } from './v8-flags.ts';
import type { StreamedBody } from './streamed-body.ts';
import type { Duplex } from 'node:stream';
import { BODY_CHANNEL_FD, readFrames, type Frame } from './body-channel.ts';
import { HeldEnvironments } from './held-environments.ts';
import { loweringProblem, type WorkerPriority } from '../offenders/index.ts';

const WORKER_ENTRY = fileURLToPath(new URL('./worker.ts', import.meta.url));
// An installed package loads its TypeScript through a hook (bin/load-typescript.js): workers too.
const INHERITED_IMPORTS = importFlags(process.execArgv);

export interface SupervisedOutcome {
  response: SandboxResponse;
  logs: CapturedLog[];
  durationMs: number;
  /** The body, when it follows the answer as it is produced (`response.body` is then empty). */
  body?: StreamedBody;
}

/**
 * What a dispatch answered by the host at its deadline (Supervisor.answerAtDeadline) still gets
 * from its worker: the lines the guest logged and the worker's measure, when it said one.
 */
export interface LateVerdict {
  logs: CapturedLog[];
  durationMs?: number;
}

export interface Pending {
  integration: string;
  eventId: string;
  resolve(outcome: SupervisedOutcome): void;
  reject(error: HostError): void;
  /** The supervisor's backstop: answers for the worker if it stays silent (see Supervisor.dispatch). */
  backstop?: NodeJS.Timeout;
  /** On the offenders' workers, the host's own deadline (see Supervisor.answerAtDeadline). */
  deadline?: NodeJS.Timeout;
  /** Set once the host answered at that deadline: the entry now only waits for the worker's verdict. */
  answered?: boolean;
}

export interface Slot {
  index: number;
  /** At what priority its guest threads run: anything but 'normal' is an offenders' worker. */
  priority: WorkerPriority;
  child: ChildProcess;
  /** The environment texts this worker process holds (a restarted worker starts empty). */
  heldEnvironments: HeldEnvironments;
  ready: Promise<void>;
  /** Settles `ready`; also called when the process dies first, so waiters move to its replacement. */
  markReady(): void;
  pending: Map<number, Pending>;
  /** Integrations whose waitUntil work still runs here after their response (crash suspects too). */
  draining: Set<string>;
  /** Bodies of its answered dispatches still arriving, by dispatch id. */
  bodies: Map<number, StreamedBody>;
  /** The byte channel that carries those bodies (body-channel.ts): the worker's fd 4. */
  channel: Duplex;
  stopping: boolean;
  /** The worker said it is ready and has not exited since (the readiness route counts these). */
  up: boolean;
  /** Sends to this worker, coalescing what one turn of the event loop sends (ipc-batch.ts). */
  send(message: ToWorker): void;
}

export type { WorkerPriority };

export interface SlotHandlers {
  onMessage(slot: Slot, message: Exclude<FromWorker, { type: 'ready' }>): void;
  onExit(slot: Slot, code: number | null, signal: NodeJS.Signals | null): void;
  onError(slot: Slot, error: Error): void;
  /** A frame of the body channel (body-channel.ts). */
  onBodyFrame(slot: Slot, kind: Frame, id: number, value: number, payload: Buffer | null): void;
  /** A `sched-idle` worker's guest threads were lowered (`problem` null) or could not be (why, in words). */
  onSchedIdle?(slot: Slot, problem: string | null): void;
}

/**
 * Forks a worker whose guest threads run at `priority` (see WorkerPriority). The worker lowers them
 * itself (guest-threads.ts: every thread but its main thread, those it creates later too, from its
 * init on) and says in its ready message whether it could; for a `sched-idle` worker the host then
 * reads the policies back from /proc as well and reports the outcome through onSchedIdle.
 */
export function spawnSlot(index: number, priority: WorkerPriority, handlers: SlotHandlers): Slot {
  const child = fork(WORKER_ENTRY, [], {
    execArgv: ['--no-node-snapshot', '--disable-warning=ExperimentalWarning', ...INHERITED_IMPORTS, ...WORKER_V8_FLAGS],
    serialization: 'advanced',
    // The fifth: the byte channel for streamed response bodies (body-channel.ts BODY_CHANNEL_FD).
    stdio: ['ignore', 'inherit', 'inherit', 'ipc', 'pipe'],
  });
  const channel = child.stdio[BODY_CHANNEL_FD] as Duplex;
  // A worker that dies closes its end; whatever the channel then reports is the exit's business.
  channel.on('error', () => undefined);
  let markReady: () => void = () => undefined;
  const ready = new Promise<void>((resolve) => (markReady = resolve));
  const send = batchedSender<ToWorker>((message) => {
    if (child.connected) child.send(message);
  });
  const slot: Slot = {
    index,
    priority,
    child,
    ready,
    markReady,
    pending: new Map(),
    draining: new Set(),
    bodies: new Map(),
    channel,
    stopping: false,
    heldEnvironments: new HeldEnvironments(),
    up: false,
    send,
  };
  const checkLowered = (reported: string | undefined) => {
    if (priority !== 'sched-idle' || child.pid === undefined) return;
    handlers.onSchedIdle?.(slot, reported ?? loweringProblem(child.pid, priority));
  };
  const receive = (message: FromWorker): void => {
    if (message.type === 'ready') {
      slot.up = true;
      checkLowered(message.loweringProblem);
      return markReady();
    }
    handlers.onMessage(slot, message);
  };
  child.on('message', (message: FromWorker | MessageBatch<FromWorker>) => unbatch(message, receive));
  readFrames(channel, (kind, id, value, payload) => handlers.onBodyFrame(slot, kind, id, value, payload));
  child.on('exit', (code, signal) => {
    slot.up = false;
    handlers.onExit(slot, code, signal);
  });
  child.on('error', (error) => handlers.onError(slot, error));
  return slot;
}

export function post(slot: Slot, message: ToWorker): void {
  slot.send(message);
}

/**
 * Stops a worker: what is in flight is failed with `reason` (nothing would answer it), the
 * process gets a second to exit on its own after the channel closes, then it is killed.
 */
export function stopSlot(slot: Slot, reason: string): Promise<void> {
  return new Promise<void>((resolve) => {
    slot.stopping = true;
    for (const id of [...slot.pending.keys()])
      takePending(slot, id)?.reject(new HostError('ERR_SANDBOX_UNAVAILABLE', reason));
    // Bodies still arriving end with the worker (their clients' answers are cut, not left hanging).
    for (const body of slot.bodies.values()) body.end(reason);
    slot.bodies.clear();
    slot.markReady();
    if (slot.child.exitCode !== null || slot.child.signalCode !== null) return resolve();
    const kill = setTimeout(() => slot.child.kill('SIGKILL'), 1_000);
    slot.child.once('exit', () => {
      clearTimeout(kill);
      resolve();
    });
    if (slot.child.connected) slot.child.disconnect();
    else slot.child.kill('SIGKILL');
  });
}

/** Removes a pending dispatch and its timers; undefined when it was settled already. */
export function takePending(slot: Slot, id: number): Pending | undefined {
  const pending = slot.pending.get(id);
  if (pending === undefined) return undefined;
  slot.pending.delete(id);
  clearTimeout(pending.backstop);
  clearTimeout(pending.deadline);
  return pending;
}

/**
 * Waits for a worker to be ready, or fails with 503 once the host has waited until `answerBy`
 * (performance.now() time): a request never waits for a restarting worker without end.
 */
export function readyBy(slot: Slot, answerBy: number): Promise<void> {
  // The usual case on every dispatch: the worker is up, so no timer is armed.
  if (slot.up) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () =>
        reject(
          new HostError(
            'ERR_SANDBOX_UNAVAILABLE',
            'the sandbox worker running this integration did not become ready in time; try again',
          ),
        ),
      Math.max(0, answerBy - performance.now()),
    );
    void slot.ready.then(() => {
      clearTimeout(timer);
      resolve();
    });
  });
}
