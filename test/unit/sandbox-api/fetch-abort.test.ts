// Request#signal and an aborted fetch in a real isolate: the request follows the signal it was made
// with (or its source request's), fetch rejects with the signal's reason at once and tells the host
// to stop (fetchCancel), before the answer or while its body is read.
import { afterEach, describe, expect, it } from 'vitest';
import { Harness, type StubBody } from './harness.ts';

let harness: Harness | undefined;
afterEach(() => harness?.dispose());

/** A fetch stub that answers only when the test says so (never, unless released). */
function pendingFetch() {
  let release: () => void = () => undefined;
  const answered = new Promise<void>((resolve) => (release = resolve));
  return {
    release,
    stub: async (request: { url: string }) => {
      await answered;
      return {
        ok: true as const,
        value: {
          status: 200,
          statusText: 'OK',
          headers: [] as [string, string][],
          body: new Uint8Array(0),
          url: request.url,
          redirected: false,
        },
      };
    },
  };
}

describe('Request#signal', () => {
  it('follows the signal it was made with, the one of the request it was made from, and none for null', async () => {
    harness = await Harness.create();
    const seen = await harness.evaluate(`(() => {
      const controller = new AbortController();
      const first = new Request('https://a.example/', { signal: controller.signal });
      const copy = new Request(first);
      const cut = new Request(first, { signal: null });
      const cloned = first.clone();
      const before = [first.signal.aborted, copy.signal.aborted, cloned.signal.aborted];
      controller.abort('stop');
      return { before, after: [first.signal.aborted, copy.signal.aborted, cut.signal.aborted, cloned.signal.aborted],
        reason: copy.signal.reason, type: Object.prototype.toString.call(first.signal),
        plain: new Request('https://a.example/').signal.aborted };
    })()`);
    expect(seen).toEqual({
      before: [false, false, false],
      after: [true, true, false, true],
      reason: 'stop',
      type: '[object AbortSignal]',
      plain: false,
    });
  });

  it('refuses a signal that is not an AbortSignal', async () => {
    harness = await Harness.create();
    expect(
      await harness.evaluate(
        `(() => { try { new Request('https://a.example/', { signal: {} }); return 'made'; } catch (error) { ` +
          `return error.name; } })()`,
      ),
    ).toBe('TypeError');
    expect(
      await harness.evaluate(
        `(() => { new AbortController(); try { new Request('https://a.example/', { signal: ` +
          `Object.create(AbortSignal.prototype) }); return 'made'; } catch (error) { return error.name; } })()`,
      ),
    ).toBe('TypeError');
  });
});

describe('an aborted fetch', () => {
  it('rejects at once with the reason of a signal aborted before it started, and never reaches the host', async () => {
    harness = await Harness.create();
    const outcome = await harness.evaluate(`(async () => {
      try { await fetch('https://a.example/', { signal: AbortSignal.abort() }); return 'fetched'; } catch (error) {
        return error.name; }
    })()`);
    expect(outcome).toBe('AbortError');
    expect(harness.fetchCalls).toHaveLength(0);
  });

  it('rejects with the reason when aborted before the answer, and tells the host to stop that fetch', async () => {
    const pending = pendingFetch();
    harness = await Harness.create({ fetch: pending.stub });
    const outcome = await harness.evaluate(`(async () => {
      const controller = new AbortController();
      const fetching = fetch('https://a.example/slow', { signal: controller.signal });
      await null;
      controller.abort(new Error('gave up'));
      try { await fetching; return 'fetched'; } catch (error) { return error.message; }
    })()`);
    expect(outcome).toBe('gave up');
    expect(harness.fetchCancels).toEqual([harness.fetchCalls[0].id]);
    pending.release();
  });

  it(
    'fails the body’s next read with the reason when aborted ' + 'while the body is read, and closes it on the host',
    async () => {
      let cancelled = false;
      const rest: StubBody = {
        read: () => new Promise(() => undefined),
        cancel: () => {
          cancelled = true;
        },
      };
      harness = await Harness.create({
        fetch: (request) => ({
          ok: true,
          value: {
            status: 200,
            statusText: 'OK',
            headers: [],
            body: new Uint8Array(0),
            url: request.url,
            redirected: false,
          },
          rest,
        }),
      });
      const outcome = await harness.evaluate(`(async () => {
      const controller = new AbortController();
      const response = await fetch('https://a.example/stream', { signal: controller.signal });
      const reading = response.text();
      controller.abort();
      try { await reading; return 'read'; } catch (error) { return error.name; }
    })()`);
      expect(outcome).toBe('AbortError');
      expect(cancelled).toBe(true);
    },
  );

  it('is named and sized as the standard says', async () => {
    harness = await Harness.create();
    expect(await harness.evaluate(`[fetch.name, fetch.length]`)).toEqual(['fetch', 1]);
  });
});
