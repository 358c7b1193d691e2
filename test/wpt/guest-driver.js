// The WPT driver that runs INSIDE the runtime under test (an isolate of ours, or a workerd worker),
// appended by worker-script.ts to `const WPT = {...}` and `const CHAIN = "..."`. It provides only
// WPT's own test environment (the test's location, GLOBAL, META_TITLE, its JSON resources); it
// never defines, replaces or repairs anything the runtime is measured on.

// Captured at startup, before any test can replace them.
const startupFetch = globalThis.fetch;
const { stringify } = JSON;
const {
  setTimeout: startTimer,
  clearTimeout: stopTimer,
  Response: StartupResponse,
  Request: StartupRequest,
} = globalThis;

/** Parsed by hand, not by the runtime's URL (which is measured): `https://host:port/path?query`. */
function locationOf(href) {
  const match = /^([a-z]+:)\/\/([^/:]+)(?::(\d+))?(\/[^?#]*)(\?[^#]*)?(#.*)?$/.exec(href);
  const [, protocol, hostname, port = '', pathname, search = '', hash = ''] = match;
  const host = port ? `${hostname}:${port}` : hostname;
  const origin = `${protocol}//${host}`;
  return { href, protocol, host, hostname, port, pathname, search, hash, origin, toString: () => href };
}

const LOCATION = locationOf(WPT.url);

/** `ref` resolved against the test's URL: absolute URLs as they are, paths joined and normalised. */
function resolveUrl(ref) {
  if (/^[a-z][a-z0-9+.-]*:/i.test(ref)) return ref;
  if (ref.startsWith('//')) return LOCATION.protocol + ref;
  const [pathPart, ...rest] = ref.split(/(?=[?#])/);
  const base = pathPart.startsWith('/') ? [] : LOCATION.pathname.split('/').slice(1, -1);
  for (const segment of pathPart.split('/')) {
    if (segment === '..') base.pop();
    else if (segment !== '.' && segment !== '') base.push(segment);
  }
  const trailing = pathPart.endsWith('/') && base.length > 0 ? '/' : '';
  return `${LOCATION.origin}/${base.join('/')}${trailing}${rest.join('')}`;
}

/**
 * The test's fetch: its JSON resources come from memory, `data:` URLs go to the runtime's own
 * fetch, and anything else would need a WPT server, which is not there: after the runtime's own
 * Request has judged the arguments (as its fetch would), that is a network error, a TypeError.
 */
async function wptFetch(input, init) {
  const raw =
    typeof input === 'string'
      ? input
      : input !== null && typeof input === 'object' && typeof input.url === 'string'
        ? input.url
        : String(input);
  const url = resolveUrl(raw);
  if (/^data:/i.test(url)) return startupFetch(typeof input === 'string' ? url : input, init);
  const resourcePath = url.startsWith(LOCATION.origin + '/')
    ? url.slice(LOCATION.origin.length).split(/[?#]/)[0]
    : null;
  const resource = resourcePath === null ? undefined : WPT.resources.find((entry) => entry.path === resourcePath);
  if (resource !== undefined && init === undefined)
    return new StartupResponse(resource.text, { headers: { 'content-type': resource.type } });
  new StartupRequest(url, init);
  throw new TypeError(`fetch failed: no WPT server answers ${url}`);
}

const STATUS = ['PASS', 'FAIL', 'TIMEOUT', 'NOTRUN', 'PRECONDITION_FAILED'];
const HARNESS_STATUS = ['OK', 'ERROR', 'TIMEOUT', 'PRECONDITION_FAILED'];
const MESSAGE_CHARS = 300;

function describe(error) {
  try {
    if (error !== null && typeof error === 'object' && 'message' in error)
      return `${error.name}: ${error.message}`.slice(0, MESSAGE_CHARS);
    return String(error).slice(0, MESSAGE_CHARS);
  } catch {
    return 'an error that cannot be described';
  }
}

function textOf(message) {
  return message ? String(message).slice(0, MESSAGE_CHARS) : null;
}

function subtestOf(test) {
  return { name: String(test.name), status: STATUS[test.status] ?? String(test.status), message: textOf(test.message) };
}

let compiled = null;
let compileError = null;
try {
  // Compiled at startup (workerd allows code generation only then), run on the first request.
  compiled = new Function('location', 'fetch', CHAIN);
} catch (error) {
  // Which script: the first that does not compile on its own (else the chain as a whole).
  const index = WPT.spans.findIndex(([start, end]) => {
    try {
      new Function(CHAIN.slice(start, end));
      return false;
    } catch {
      return true;
    }
  });
  compileError = {
    script: index < 0 ? 'the chained scripts' : WPT.scripts[index],
    message: `does not compile: ${describe(error)}`,
  };
}

/** The whole run: the harness, the META scripts and the test in order, then testharness's results. */
async function runTests() {
  const out = { loadError: null, harness: null, subtests: [] };
  if (compiled === null) {
    out.loadError = compileError;
    return out;
  }
  // WPT's worker wrapper sets these before the harness loads (tools/serve: `.any.worker.js`).
  globalThis.GLOBAL = { isWindow: () => false, isWorker: () => true, isShadowRealm: () => false };
  if (WPT.title !== undefined) globalThis.META_TITLE = WPT.title;

  let finish;
  const finished = new Promise((resolve) => (finish = resolve));
  const partial = [];
  let step = compiled;
  let index = 0;
  let harness = null;
  try {
    while (typeof step === 'function') {
      step = index === 0 ? step.call(globalThis, LOCATION, wptFetch) : step.call(globalThis);
      index++;
      if (index === 1) {
        const { add_result_callback: onResult, add_completion_callback: onComplete, timeout, done } = globalThis;
        if (typeof onComplete !== 'function' || typeof onResult !== 'function')
          throw new Error('testharness.js defined no add_completion_callback');
        harness = { timeout, done };
        onResult((test) => partial.push(subtestOf(test)));
        onComplete((tests, status) => {
          out.subtests = Array.from(tests, subtestOf);
          out.harness = {
            status: HARNESS_STATUS[status.status] ?? String(status.status),
            message: textOf(status.message),
          };
          finish();
        });
      }
    }
  } catch (error) {
    // Until the harness is in place, any failure is the harness's.
    out.loadError = { script: WPT.scripts[harness === null ? 0 : index], message: describe(error) };
  }
  if (harness === null) return out;
  // As the worker wrapper does once the test script ran (or threw): no more tests will be defined.
  try {
    harness.done();
  } catch (error) {
    out.loadError ??= { script: WPT.scripts[0], message: `done() threw ${describe(error)}` };
  }
  let timedOut = false;
  const deadline = startTimer(() => {
    timedOut = true;
    try {
      harness.timeout();
    } catch {
      // the harness is broken: answer with what there is
    }
    startTimer(finish, 1_000);
  }, WPT.timeoutMs);
  await finished;
  stopTimer(deadline);
  if (timedOut) out.timedOutAfterMs = WPT.timeoutMs;
  if (out.harness === null) {
    out.subtests = partial;
    out.harness = { status: 'INCOMPLETE', message: 'testharness did not complete after its timeout' };
  }
  return out;
}

/** JSON with every non-ASCII character escaped: the answer's bytes do not depend on the runtime's encoder. */
function asciiJson(value) {
  return stringify(value).replace(
    /[\u007f-\uffff]/g,
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

let run = null;

export default {
  async fetch() {
    run ??= runTests();
    const out = await run;
    return new StartupResponse(asciiJson(out), { headers: { 'content-type': 'application/json' } });
  },
};
