// Turns one attempt's result into the attempt record and the delivery's next state. Pure: the
// clock reading and the random source are passed in, so the exact retry time is testable.

import type { AttemptResult } from './deliver.ts';
import { nextStep } from './schedule.ts';
import { endpointOf, type AttemptRecord, type DeliveryRecord, type NextState } from './outbox.ts';

export function settleAttempt(
  attempt: number,
  startedAt: number,
  result: AttemptResult,
  finishedAt: number,
  random: () => number,
): { record: AttemptRecord; next: NextState } {
  const step = nextStep(attempt, result, random);
  const nextAttemptAt = step.status === 'pending' ? finishedAt + step.delayMs : null;
  const failure = 'error' in result ? result : null;
  return {
    record: {
      attempt,
      startedAt,
      durationMs: Math.max(0, Math.round(result.durationMs)),
      statusCode: 'status' in result ? result.status : null,
      errorKind: failure?.error ?? null,
      errorMessage: failure?.message ?? null,
      nextAttemptAt,
    },
    next:
      nextAttemptAt === null ? { status: step.status as 'succeeded' | 'failed' } : { status: 'pending', nextAttemptAt },
  };
}

export function describeResult(result: AttemptResult): string {
  return 'status' in result ? `HTTP ${result.status}` : `${result.error} (${result.message})`;
}

/**
 * The host-log line of one attempt: delivery, attempt number, receiver origin (never the path or
 * query, which may carry credentials), the outcome and what happens next, with the installation
 * and event it belongs to, so a delivery can be followed from POST /v1/events to the receiver.
 */
export function describeAttempt(
  delivery: DeliveryRecord,
  record: AttemptRecord,
  next: NextState,
  result: AttemptResult,
): string {
  const outcome =
    next.status === 'succeeded'
      ? 'delivered'
      : next.status === 'pending'
        ? `retry at ${new Date(next.nextAttemptAt).toISOString()}`
        : `failed after ${record.attempt} attempt${record.attempt === 1 ? '' : 's'}`;
  return (
    `webhook ${delivery.id} attempt ${record.attempt} to ${endpointOf(delivery.url)}: ${describeResult(result)} ` +
    `in ${record.durationMs} ms; ${outcome} ` +
    `(installation ${delivery.installationId}, ${delivery.eventType} ${delivery.eventId})`
  );
}
