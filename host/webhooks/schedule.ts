// The retry schedule and outcome classes of webhook delivery (docs/webhooks.md).
// Pure: randomness is passed in. One initial attempt plus 3 retries after 1 s, 2 s, 4 s, each
// delay jittered within [base, 1.1 × base] (inside both the documented ±10 % and its range table).

const RETRY_BASE_DELAYS_MS = [1_000, 2_000, 4_000] as const;
const MAX_RETRIES = RETRY_BASE_DELAYS_MS.length;
export const MAX_ATTEMPTS = 1 + MAX_RETRIES;
const JITTER_FRACTION = 0.1;

/** Network-level failure kinds of one attempt; `blocked` is an egress-policy refusal, not the network. */
export type AttemptErrorKind = 'timeout' | 'refused' | 'reset' | 'dns' | 'network' | 'blocked' | 'unsigned';

export type AttemptOutcome = { status: number } | { error: AttemptErrorKind | (string & {}) };

export type OutcomeClass = 'success' | 'retry' | 'fail';

/** Errors that retrying cannot fix: a destination the policy refuses, or no secret left to sign with. */
const PERMANENT_ERRORS = new Set<string>(['blocked', 'unsigned']);

/**
 * Delay before retry number `retry` (1..MAX_RETRIES): base × (1 + 0.1 × random()), floored to whole
 * milliseconds so it never leaves [base, 1.1 × base] whatever `random` returns in [0, 1).
 */
export function retryDelayMs(retry: number, random: () => number): number {
  if (!Number.isInteger(retry) || retry < 1 || retry > MAX_RETRIES)
    throw new RangeError(`retry must be 1..${MAX_RETRIES} (got ${retry})`);
  const base = RETRY_BASE_DELAYS_MS[retry - 1];
  const fraction = Math.min(Math.max(random(), 0), 1);
  return Math.floor(base * (1 + JITTER_FRACTION * fraction));
}

/** 2xx succeeds; 429, every 5xx and network errors are retried; everything else (incl. 3xx) fails at once. */
export function classifyOutcome(outcome: AttemptOutcome): OutcomeClass {
  if ('status' in outcome) {
    const { status } = outcome;
    if (status >= 200 && status <= 299) return 'success';
    if (status === 429 || (status >= 500 && status <= 599)) return 'retry';
    return 'fail';
  }
  return PERMANENT_ERRORS.has(outcome.error) ? 'fail' : 'retry';
}

export type NextStep = { status: 'succeeded' } | { status: 'failed' } | { status: 'pending'; delayMs: number };

/** What follows attempt number `attempt` (1-based) with this outcome. */
export function nextStep(attempt: number, outcome: AttemptOutcome, random: () => number): NextStep {
  const verdict = classifyOutcome(outcome);
  if (verdict === 'success') return { status: 'succeeded' };
  if (verdict === 'fail' || attempt >= MAX_ATTEMPTS) return { status: 'failed' };
  return { status: 'pending', delayMs: retryDelayMs(attempt, random) };
}
