// The runtime reports an integration's errors (unhandled, in a timer, at start) with the frames V8
// captured, whatever the guest made Error.prepareStackTrace, Error.stackTraceLimit or an error's
// `stack` say; and the stack-trace habits of common npm libraries keep working.
import { afterEach, describe, expect, it } from 'vitest';
import { Harness, envelope } from './harness.ts';
import { FRAMES_SET_BY_INTEGRATION } from '../../../sandbox-api/runtime/contract.ts';

let harness: Harness;
afterEach(() => harness?.dispose());

const FETCH = envelope({ type: 'fetch', request: { method: 'GET', url: 'https://a.example/', headers: [] } });
const FORGED = 'Error: forged\n    at hostInternals (/srv/host/secret.ts:1:1)\n    at other (integration:hello:1:1)';

const HANDLER = 'Unhandled error while handling "fetch":';
const RUNTIME = 'Unhandled error in the integration:';

async function reportOf(source: string, prefix = HANDLER): Promise<string> {
  await harness.loadSource(source);
  const response = await harness.dispatch(FETCH);
  expect(response.status).toBe(500);
  const line = harness.logs.find((entry) => entry.text.startsWith(prefix));
  expect(line, JSON.stringify(harness.logs)).toBeDefined();
  return line!.text;
}

for (const runtime of ['snapshot', 'install'] as const) {
  describe(`runtime reports of guest errors (realm from ${runtime})`, () => {
    it('shows the frames V8 captured when a guest hook forges error.stack', async () => {
      harness = await Harness.create({ runtime });
      const report = await reportOf(`
        import { createIntegration } from 'sandbox-api';
        function deepInTheGuest() { throw new Error('boom'); }
        export default createIntegration({ async fetch() {
          Error.prepareStackTrace = () => ${JSON.stringify(FORGED)};
          const error = new Error('probe');
          if (error.stack !== ${JSON.stringify(FORGED)}) throw new Error('the guest hook did not run');
          deepInTheGuest();
        } });`);
      expect(report).toMatch(
        /^Unhandled error while handling "fetch": Error: boom\n\s+at deepInTheGuest \(integration\.js:\d+:\d+\)/,
      );
      expect(report).not.toMatch(/forged|secret|hostInternals|integration:hello/);
    });

    it('shows the frames V8 captured when a guest hook returns call sites or throws', async () => {
      harness = await Harness.create({ runtime });
      const sites = await reportOf(`
        import { createIntegration } from 'sandbox-api';
        export default createIntegration({ async fetch() { Error.prepareStackTrace = (_e, s) => s;
          throw new Error('sites'); } });`);
      expect(sites).toMatch(
        /^Unhandled error while handling "fetch": Error: sites\n\s+at Object\.fetch \(integration\.js:\d+:\d+\)/,
      );
      harness.dispose();
      harness = await Harness.create({ runtime });
      const throwing = await reportOf(`
        import { createIntegration } from 'sandbox-api';
        export default createIntegration({ async fetch() { Error.prepareStackTrace = () => {
          throw new Error('no stack for you'); }; throw new TypeError('thrown'); } });`);
      expect(throwing).toMatch(
        /^Unhandled error while handling "fetch": TypeError: thrown\n\s+at Object\.fetch \(integration\.js:\d+:\d+\)/,
      );
    });

    it('reports a module worker\u2019s unhandled error with the frames V8 captured', async () => {
      harness = await Harness.create({ runtime });
      const report = await reportOf(
        `
        function fromTheWorker() { throw new RangeError('worker'); }
        export default { async fetch() { Error.prepareStackTrace = () => ${JSON.stringify(FORGED)}; fromTheWorker();
          } };`,
        RUNTIME,
      );
      expect(report).toMatch(
        /^Unhandled error in the integration: RangeError: worker\n\s+at fromTheWorker \(integration\.js:\d+:\d+\)/,
      );
      expect(report).not.toMatch(/forged|secret/);
    });

    it('marks frames an error\u2019s own stack gave when V8 holds no trace for it', async () => {
      harness = await Harness.create({ runtime });
      const report = await reportOf(`
        import { createIntegration } from 'sandbox-api';
        export default createIntegration({ async fetch() {
          const error = new Error('replaced');
          error.stack = ${JSON.stringify(FORGED)};
          throw error;
        } });`);
      expect(report).toBe(
        `${HANDLER} Error: replaced\n${FRAMES_SET_BY_INTEGRATION}\n    at hostInternals ` +
          `(/srv/host/secret.ts:1:1)\n    at other (integration:hello:1:1)`,
      );
    });

    it('cannot be fed call sites of another error through the hook it reads', async () => {
      harness = await Harness.create({ runtime });
      const report = await reportOf(`
        import { createIntegration } from 'sandbox-api';
        export default createIntegration({ async fetch() {
          const runtimeHook = Error.prepareStackTrace;
          const error = new Error('victim');
          runtimeHook(error, [{ toString: () => 'forged (/srv/host/secret.ts:1:1)' }]);
          throw error;
        } });`);
      expect(report).toMatch(
        /^Unhandled error while handling "fetch": Error: victim\n\s+at Object\.fetch \(integration\.js:\d+:\d+\)/,
      );
      expect(report).not.toMatch(/secret/);
    });

    it('cannot be fed real call sites its hook handed out before', async () => {
      harness = await Harness.create({ runtime });
      const report = await reportOf(`
        import { createIntegration } from 'sandbox-api';
        function hostLikeFrame() { return new Error('elsewhere').stack; }
        export default createIntegration({ async fetch() {
          let kept;
          Error.prepareStackTrace = (_e, sites) => { kept = sites; return 'x'; };
          hostLikeFrame();
          Error.prepareStackTrace = undefined;
          const error = new Error('victim');
          Error.prepareStackTrace(error, kept);
          throw error;
        } });`);
      expect(report).toMatch(
        /^Unhandled error while handling "fetch": Error: victim\n\s+at Object\.fetch \(integration\.js:\d+:\d+\)/,
      );
      expect(report).not.toMatch(/hostLikeFrame/);
    });

    it('keeps a message or a function name from adding a frame line', async () => {
      harness = await Harness.create({ runtime });
      const report = await reportOf(`
        import { createIntegration } from 'sandbox-api';
        const named = { ['thrower\\n    at forgedName (/srv/host/secret.ts:2:2)']() {
          throw new Error('boom\\n    at forgedMessage (/srv/host/secret.ts:1:1)'); } };
        export default createIntegration({ async fetch() { Object.values(named)[0](); } });`);
      const lines = report.split('\n');
      expect(lines[0]).toContain('boom\\n    at forgedMessage');
      expect(lines.slice(1).every((line) => !/^\s+at forged/.test(line))).toBe(true);
    });

    it('gives back the hook it was given, so a saved hook is restored', async () => {
      harness = await Harness.create({ runtime });
      const result = await harness.evaluate<string>(`(() => {
        Error.prepareStackTrace = (e) => 'A:' + e.message;
        const saved = Error.prepareStackTrace;
        Error.prepareStackTrace = (e) => 'B:' + e.message;
        const during = new Error('1').stack;
        Error.prepareStackTrace = saved;
        const after = new Error('2').stack;
        Error.prepareStackTrace = undefined;
        return JSON.stringify([during, after, saved === Error.prepareStackTrace]);
      })()`);
      expect(JSON.parse(result)).toEqual(['B:1', 'A:2', false]);
    });

    it('keeps console.trace to V8\u2019s frames and a timer\u2019s failure too', async () => {
      harness = await Harness.create({ runtime });
      await harness.evaluate(
        `Error.prepareStackTrace = () => ${JSON.stringify(FORGED)}; Error.stackTraceLimit = 10; (function ` +
          `traced() { console.trace('here'); })(); setTimeout(function late() { throw new Error('in timer'); }, 1); ` +
          `undefined`,
      );
      const trace = harness.logs.find((entry) => entry.text.startsWith('Trace: here'))!;
      expect(trace.text).toMatch(/^Trace: here\n(\s+at .*\n)*\s+at traced \(guest-test\.js:\d+:\d+\)/);
      expect(trace.text).not.toMatch(/forged|secret/);
      for (const started = Date.now(); !harness.logs.some((entry) => entry.text.includes('in timer')); ) {
        if (Date.now() - started > 30_000) throw new Error('the timer callback never ran');
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      const timer = harness.logs.find((entry) => entry.text.includes('in timer'))!;
      expect(timer.text).toMatch(
        new RegExp(
          String.raw`^Uncaught exception in a timer callback: Error: in timer\n` +
            String.raw`\s+at Object\.late \[as callback\] \(guest-test\.js:`,
        ),
      );
      expect(timer.text).not.toMatch(/forged|secret/);
    });

    it('keeps the stack habits of common libraries working', async () => {
      harness = await Harness.create({ runtime });
      const result = await harness.evaluate<string>(`(() => {
        "use strict";
        const out = {};
        // callsites / get-caller-file: swap the hook for one returning call sites, then restore it.
        const saved = Error.prepareStackTrace;
        Error.prepareStackTrace = (_e, sites) => sites;
        const sites = new Error().stack;
        Error.prepareStackTrace = saved;
        out.callSites = Array.isArray(sites) && typeof sites[0].getLineNumber() === 'number';
        out.restored = typeof new Error('x').stack === 'string' &&
          new Error('x').stack.startsWith('Error: x\\n    at ');
        // depd: a longer limit and captureStackTrace on a plain object.
        const limit = Error.stackTraceLimit;
        Error.stackTraceLimit = Math.max(10, limit);
        Error.prepareStackTrace = (_e, s) => s;
        const holder = {};
        Error.captureStackTrace(holder);
        out.captured = Array.isArray(holder.stack) && holder.stack.length >= 1;
        Error.prepareStackTrace = saved;
        Error.stackTraceLimit = limit;
        // A library hiding its frames for a moment.
        Error.stackTraceLimit = 0;
        out.noFrames = new Error('bare').stack;
        Error.stackTraceLimit = limit;
        // source-map-support style: a hook that wraps the previous one.
        const previous = Error.prepareStackTrace;
        Error.prepareStackTrace = (e, s) => 'wrapped: ' + previous(e, s);
        out.wrapped = new Error('w').stack.split('\\n')[0];
        Error.prepareStackTrace = undefined;
        out.unset = new Error('u').stack.split('\\n')[0];
        out.reads = typeof Error.prepareStackTrace;
        return JSON.stringify(out);
      })()`);
      expect(JSON.parse(result)).toEqual({
        callSites: true,
        restored: true,
        captured: true,
        noFrames: 'Error: bare',
        wrapped: 'wrapped: Error: w',
        unset: 'Error: u',
        reads: 'function',
      });
    });
  });
}
