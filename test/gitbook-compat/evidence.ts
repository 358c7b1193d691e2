// How one exercised integration is classified, from what the host answered and what its dispatches
// logged: works, cannot be built, fails in its own code, or broken by the host, the last only on
// evidence (a load refusal, a host ERR_* answer, a missing platform route or runtime global). Pure.

export type Outcome = 'works' | 'cannot be built' | 'fails in its own code' | 'broken by the host';

/** One thing the exercise did, as the host answered it. */
export interface Step {
  /** What was exercised, short: `render embed`, `GET installation endpoint`, `site_view`. */
  what: string;
  status: number;
  /** The host's own error code when the answer is the host's (`{ error: { code: "ERR_…" } }`). */
  code?: string;
  /** The host's message, or the start of the integration's answer when it failed. */
  message?: string;
  /** Set when the step failed for a reason the answer alone does not show (a connection not stored). */
  problem?: string;
}

/** An event-log entry of one of the integration's dispatches. */
export interface Dispatch {
  type: string;
  status: number;
  errorCode?: string;
  logs: { level: string; text: string }[];
}

export interface Verdict {
  outcome: Outcome;
  /** Why, one line each: for "broken by the host" the host evidence first, then the other failures. */
  evidence: string[];
}

/**
 * Host answers that report the integration's own failure (its code threw, answered something that is
 * not a response, rendered what GitBook's own ContentKit schema refuses, ran out of time or memory):
 * the logs of the dispatch decide whose fault it was. Every other ERR_* code is the host refusing or
 * lacking something.
 */
export const INTEGRATION_FAILURE_CODES = new Set([
  'ERR_SANDBOX_BAD_RESPONSE',
  'ERR_CONTENTKIT_INVALID',
  'ERR_SANDBOX_CRASHED',
  'ERR_SANDBOX_TIMEOUT',
  'ERR_INTEGRATION_QUARANTINED',
  'ERR_INTEGRATION_THROTTLED',
]);

/** The host's error code in an answer body, if the answer is the host's. */
export function hostErrorCode(body: unknown): { code: string; message: string } | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const error = (body as { error?: unknown }).error;
  if (typeof error !== 'object' || error === null) return undefined;
  const { code, message } = error as { code?: unknown; message?: unknown };
  return typeof code === 'string' && /^ERR_[A-Z_]+$/.test(code)
    ? { code, message: typeof message === 'string' ? message : '' }
    : undefined;
}

/** Lines of a dispatch's logs that show the host lacking what GitBook's platform gives. */
export function hostEvidenceIn(lines: string[], runtimeGlobals: ReadonlySet<string>): string[] {
  const found: string[] = [];
  for (const line of lines) {
    const route = /no platform API route for [A-Z]+ \S+/.exec(line);
    if (route) found.push(route[0]);
    const unbacked = /GitBook API failed with \[(405|500|501)\] (\S+?):? /.exec(line);
    if (unbacked && !route) found.push(`platform API answered ${unbacked[1]} to ${unbacked[2]}`);
    const missing = /ReferenceError: ([A-Za-z_$][\w$]*) is not defined/.exec(line);
    if (missing && runtimeGlobals.has(missing[1]))
      found.push(`ReferenceError: ${missing[1]} is not defined (a global of GitBook's runtime)`);
    const notCallable = /TypeError: ([A-Za-z_$][\w$]*)((?:\.[\w$]+)*) is not a (function|constructor)/.exec(line);
    if (notCallable && runtimeGlobals.has(notCallable[1]))
      found.push(
        `TypeError: ${notCallable[1]}${notCallable[2]} is not a ${notCallable[3]} (a global of GitBook's runtime)`,
      );
  }
  return [...new Set(found)];
}

/** The first line of a failed dispatch's logs worth showing (its error, else its last line). */
function firstError(dispatch: Dispatch): string {
  const line = dispatch.logs.find((entry) => entry.level === 'error') ?? dispatch.logs.at(-1);
  return (line?.text ?? '').split('\n')[0].slice(0, 200);
}

/**
 * Why an integration the host refused to load did not load: a module its own build generates (a
 * relative import that does not exist, in a folder with a `build` script or one the host's check
 * calls generated) or the host's refusal.
 */
export function judgeLoad(errors: string[], build: string | undefined): Verdict {
  const generated = errors.filter(
    (error) =>
      /\/script: .*imports "\.{1,2}\/[^"]*".*(cannot be resolved|does not exist)/.test(error) &&
      (build !== undefined || error.includes('probably generated')),
  );
  if (generated.length > 0 && generated.length === errors.length) {
    const messages = generated.map((error) => error.replace(/^.*?\/script: /, ''));
    // The host's check names the build script itself; the folder's is added only where it does not.
    const named = build === undefined || messages.some((message) => message.includes(build));
    return { outcome: 'cannot be built', evidence: named ? messages : [...messages, `its build step: ${build}`] };
  }
  return {
    outcome: 'broken by the host',
    evidence: errors.map((error) => `refused at load: ${error.replace(/^.*?gitbook-manifest\.yaml: /, '')}`),
  };
}

/**
 * The verdict on a loaded integration from its steps and its dispatches' event-log entries.
 * `beforeConfiguration` are the setup events of the install itself, dispatched before anyone could
 * configure it: a failure there is how the integration greets an empty configuration (as on GitBook),
 * so only host evidence in them counts.
 */
export function judgeExercise(
  steps: Step[],
  dispatches: Dispatch[],
  runtimeGlobals: ReadonlySet<string>,
  beforeConfiguration: Dispatch[] = [],
): Verdict {
  const host: string[] = [];
  const failures: string[] = [];
  for (const step of steps) {
    if (step.code !== undefined && !INTEGRATION_FAILURE_CODES.has(step.code)) {
      const detail = step.message ? ` (${step.message.slice(0, 160)})` : '';
      host.push(`${step.what}: host answered ${step.status} ${step.code}${detail}`);
    } else if (step.code !== undefined || step.status >= 500 || step.problem !== undefined) {
      const code = step.code ? ` ${step.code}` : '';
      const message = step.message ? ` ${step.message.slice(0, 160)}` : '';
      failures.push(`${step.what}: ${step.problem ?? `${step.status}${code}${message}`}`);
    }
  }
  for (const dispatch of beforeConfiguration) {
    host.push(
      ...hostEvidenceIn(
        dispatch.logs.map((line) => line.text),
        runtimeGlobals,
      ).map((evidence) => `${dispatch.type}: ${evidence}`),
    );
  }
  for (const dispatch of dispatches) {
    host.push(
      ...hostEvidenceIn(
        dispatch.logs.map((line) => line.text),
        runtimeGlobals,
      ).map((evidence) => `${dispatch.type}: ${evidence}`),
    );
    if (dispatch.status >= 500 || dispatch.errorCode !== undefined)
      failures.push(
        `${dispatch.type} ` +
          `dispatch ${dispatch.status}${dispatch.errorCode ? ` ${dispatch.errorCode}` : ''}: ${firstError(dispatch)}`,
      );
  }
  if (host.length > 0) return { outcome: 'broken by the host', evidence: [...new Set([...host, ...failures])] };
  if (failures.length > 0) return { outcome: 'fails in its own code', evidence: [...new Set(failures)] };
  return { outcome: 'works', evidence: [] };
}
