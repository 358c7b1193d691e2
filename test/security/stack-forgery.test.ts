// A guest cannot choose the frames the host logs for its errors: it sets Error.prepareStackTrace
// (so every `error.stack` says what it likes) and Error.stackTraceLimit, or replaces an error's
// stack, then throws at dispatch or at its top level. The host's lines show the frames V8 captured,
// mapped to the integration's sources; frames the guest set itself are marked as its own.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FRAMES_SET_BY_INTEGRATION } from '../../sandbox-api/runtime/contract.ts';
import { endpointOf, startTestHost, type TestHost } from '../helpers/host.ts';
import { expectHostHealthy } from '../helpers/host-health.ts';

let host: TestHost;

beforeAll(async () => {
  host = await startTestHost({ dirs: ['fixtures/integrations', 'fixtures/hostile'] });
}, 60_000);
afterAll(() => host?.close());

/** The log lines of the integration's event `predicate` finds, polling until it is recorded. */
async function logsOf(
  integration: string,
  predicate: (entry: { type: string; logs: { text: string }[] }) => boolean,
): Promise<string[]> {
  for (;;) {
    const page = await (await host.admin(`/v1/integrations/${integration}/events`)).json();
    const found = page.items.find(predicate);
    if (found !== undefined) return found.logs.map((log: { text: string }) => log.text);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const FORGERY = /forged|hostSecrets|\/srv\/host|integration:hello/;

describe('stack forgery', () => {
  it('logs an unhandled error with the frames V8 captured, mapped to the source, not the forged ones', async () => {
    const response = await fetch(endpointOf(host, 'stack-forgery'));
    expect(response.status).toBe(500);
    const logs = await logsOf('stack-forgery', (entry) =>
      entry.logs.some((log) => log.text.includes('boom from the guest')),
    );
    const line = logs.find((text) => text.includes('boom from the guest'))!;
    expect(line).toMatch(
      new RegExp(
        String.raw`^Unhandled error while handling "fetch": Error: boom from the guest\n` +
          String.raw`    at failDeepInside \(index\.ts:\d+:\d+\)\n    at Object\.fetch \(index\.ts:\d+:\d+\)`,
      ),
    );
    expect(line).not.toMatch(FORGERY);
    const hostLine = host.logs.find((text) => text.includes('boom from the guest'))!;
    expect(hostLine).toContain('at failDeepInside (index.ts:');
    expect(hostLine).not.toMatch(FORGERY);
  });

  it('marks frames the guest wrote into an error it threw as the integration\u2019s own', async () => {
    const response = await fetch(`${endpointOf(host, 'stack-forgery')}?mode=replaced`);
    expect(response.status).toBe(500);
    const logs = await logsOf('stack-forgery', (entry) =>
      entry.logs.some((log) => log.text.includes('stack replaced')),
    );
    const line = logs.find((text) => text.includes('stack replaced'))!;
    expect(line).toBe(
      `Unhandled error while handling "fetch": Error: stack replaced\n${FRAMES_SET_BY_INTEGRATION}\n    at ` +
        `hostSecrets (/srv/host/secret.ts:1:1)\n    at other (integration:hello:1:1)`,
    );
  });

  it('logs a start failure with the frames V8 captured at the top level', async () => {
    const response = await fetch(endpointOf(host, 'stack-forgery-start'));
    expect(response.status).toBe(502);
    const logs = await logsOf('stack-forgery-start', (entry) => entry.type === 'fetch');
    expect(logs[0]).toMatch(
      new RegExp(
        String.raw`^integration failed to start: Error: cannot start\n` +
          String.raw`    at startUp \(index\.ts:\d+:\d+\)\n    at index\.ts:\d+:\d+$`,
      ),
    );
    expect(logs.join('\n')).not.toMatch(FORGERY);
  });

  it('leaves the host healthy', async () => {
    await expectHostHealthy(host);
  });
});
