// What being one of the offenders' workers changes inside a worker: its guest threads lowered
// (GuestThreads, host/offenders/) and its deadlines counted from a dispatch's arrival. It never
// decides which worker is lowered: the supervisor's init message says so.

import { GuestThreads } from '../../offenders/index.ts';
import type { WorkerInit } from '../messages.ts';
import type { SendToSupervisor } from './send.ts';

/** Whether this is one of the offenders' workers (its guest threads lowered, its deadline from arrival). */
export function lowered(settings: WorkerInit): settings is WorkerInit & { priority: 'nice19' | 'sched-idle' } {
  return settings.priority !== undefined && settings.priority !== 'normal';
}

/**
 * When a dispatch's deadline starts (isolate.ts IsolateOptions): at its arrival on the offenders'
 * workers, whose guest threads (where realms are built) are lowered and held by the offenders' CPU
 * quota, so a realm built there can take hundreds of ms and the answer must not wait for it; once
 * the realm is built on regular workers, where a slow build is only a busy machine's.
 */
export function deadlineFrom(settings: WorkerInit): 'realm' | 'arrival' {
  return lowered(settings) ? 'arrival' : 'realm';
}

/**
 * A lowered worker's guest threads (every thread but this one, see sched-policy.ts): this main
 * thread stays above them (nice 10), so that the deadline timer, the 504 and the IPC of an
 * offender's worker never wait behind its own spinning isolate. Later trouble is logged once.
 */
export function lowerGuestThreads(settings: WorkerInit, send: SendToSupervisor): GuestThreads | null {
  if (!lowered(settings)) return null;
  return new GuestThreads({
    priority: settings.priority,
    ...(settings.schedIdleCommand !== undefined ? { command: settings.schedIdleCommand } : {}),
    ...(settings.offenderCpuQuotaTasks !== undefined ? { quotaTasks: settings.offenderCpuQuotaTasks } : {}),
    onProblem: (problem) =>
      send({
        type: 'log',
        integration: '(sandbox worker)',
        eventIds: [],
        level: 'warn',
        text: `this low-priority worker could not lower all of its guest threads: ${problem}`,
      }),
    onQuotaProblem: (problem) =>
      send({
        type: 'log',
        integration: '(sandbox worker)',
        eventIds: [],
        level: 'warn',
        text:
          `this offenders' worker could not put all of its guest ` +
          `threads under the offenders' CPU quota: ${problem}`,
      }),
  });
}
