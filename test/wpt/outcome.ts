// What one run of one WPT file gave, in either runtime, and how a driver's JSON answer is checked
// into it. Pure: no I/O.

export interface Subtest {
  name: string;
  status: string;
  message: string | null;
}

export interface FileOutcome {
  /**
   * The file could not run at all, or a script of it threw while loading: a stable text (the
   * expectations file compares it), such as `/x.any.js: TypeError: …` or `answered 504 ERR_SANDBOX_TIMEOUT`.
   */
  loadError: string | null;
  /** More about a failure for people (the host's message and log line); never compared. */
  detail?: string;
  harness: { status: string; message: string | null } | null;
  /** Keys are unique: a name the file repeats gets ` (#2)`, ` (#3)`… */
  subtests: Subtest[];
  /** testharness's timeout was called: the run passed the file's deadline. */
  timedOut: boolean;
  durationMs: number;
}

const MAX_SUBTESTS = 100_000;

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function text(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}

/** Distinct keys for repeated names, in order: the second `x` is `x (#2)`. */
export function uniqueNames(subtests: Subtest[]): Subtest[] {
  const seen = new Map<string, number>();
  return subtests.map((subtest) => {
    const count = (seen.get(subtest.name) ?? 0) + 1;
    seen.set(subtest.name, count);
    return count === 1 ? subtest : { ...subtest, name: `${subtest.name} (#${count})` };
  });
}

/** A failure of the whole file (no answer, a host error, an answer that is not the driver's). */
export function failedOutcome(message: string, durationMs: number, detail?: string): FileOutcome {
  return {
    loadError: message,
    ...(detail ? { detail } : {}),
    harness: null,
    subtests: [],
    timedOut: false,
    durationMs,
  };
}

/** Checks the driver's answer (guest-driver.js) and turns it into an outcome. */
export function outcomeFromAnswer(answer: unknown, durationMs: number): FileOutcome {
  if (!isRecord(answer) || !Array.isArray(answer.subtests) || answer.subtests.length > MAX_SUBTESTS) {
    return failedOutcome("the answer is not the driver's results", durationMs);
  }
  const subtests: Subtest[] = [];
  for (const entry of answer.subtests) {
    if (!isRecord(entry) || typeof entry.name !== 'string' || typeof entry.status !== 'string')
      return failedOutcome('a subtest in the answer is malformed', durationMs);
    subtests.push({ name: entry.name, status: entry.status, message: text(entry.message) });
  }
  const load = isRecord(answer.loadError)
    ? `${text(answer.loadError.script) ?? '?'}: ${text(answer.loadError.message) ?? '?'}`
    : null;
  const harness =
    isRecord(answer.harness) && typeof answer.harness.status === 'string'
      ? { status: answer.harness.status, message: text(answer.harness.message) }
      : null;
  return {
    loadError: load,
    harness,
    subtests: uniqueNames(subtests),
    timedOut: typeof answer.timedOutAfterMs === 'number',
    durationMs,
  };
}

export function passedCount(outcome: FileOutcome | undefined): number {
  return outcome === undefined ? 0 : outcome.subtests.filter((subtest) => subtest.status === 'PASS').length;
}
