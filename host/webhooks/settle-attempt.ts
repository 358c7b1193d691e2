// Turns one attempt's result into the attempt record and the delivery's next state. Pure: the
// clock reading and the random source are passed in, so the exact retry time is testable.

import type { AttemptResult } from './deliver.ts';
import { nextStep } from './schedule.ts';
import type { AttemptRecord, NextState } from './outbox.ts';

export function settleAttempt(attempt: number, startedAt: number, result: AttemptResult, finishedAt: number, random: () => number): { record: AttemptRecord; next: NextState } {
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
    next: nextAttemptAt === null ? { status: step.status as 'succeeded' | 'failed' } : { status: 'pending', nextAttemptAt },
  };
}

export function describeResult(result: AttemptResult): string {
  return 'status' in result ? `HTTP ${result.status}` : `${result.error} (${result.message})`;
}
