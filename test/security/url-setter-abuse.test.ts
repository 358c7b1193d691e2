// The URL setters cross to the host: each is a call of the setUrlComponent primitive, which applies
// Node's own WHATWG setter to a copy of the href. A guest feeds them values of the wrong type and
// strings of many megabytes, and calls the primitive's host side with anything but what it takes.
// Wrong types behave exactly as in Node (WebIDL conversion in the isolate); inputs past the cap are
// refused in the isolate before they are copied (and again by the host), so the host's memory stays
// flat; the primitive answers null to malformed calls (an unlisted component is never assigned).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseUrl, setUrlComponent } from '../../host/bridge/primitives.ts';
import { MAX_URL_INPUT_LENGTH, type UrlComponent } from '../../sandbox-api/runtime/contract.ts';
import { endpointOf, startTestHost, type TestHost } from '../helpers/host.ts';
import { expectHostHealthy, neighbourAnswers } from '../helpers/host-health.ts';
import { COMPONENTS, START, wrongTypeOutcomes } from '../../fixtures/hostile/url-setter-abuse/setter-values.ts';

let host: TestHost;

const hostBytes = () => {
  const usage = process.memoryUsage();
  return usage.heapUsed + usage.arrayBuffers;
};

beforeAll(async () => {
  // One regular worker: the attacker and its neighbour `hello` share it.
  host = await startTestHost({ dirs: ['fixtures/integrations', 'fixtures/hostile'], workers: 1 });
});
afterAll(() => host?.close());

describe('URL setter abuse', () => {
  it(
    'treats values of the wrong type exactly as Node does (symbols and throwing toString are TypeErrors in the ' +
      'guest)',
    async () => {
      const answer = await fetch(`${endpointOf(host, 'url-setter-abuse')}?mode=types`);
      expect(answer.status).toBe(200);
      const outcomes = (await answer.json()) as Record<string, string>;
      expect(outcomes).toEqual(wrongTypeOutcomes(URL));
      expect(outcomes['host symbol']).toBe('throws TypeError');
      expect(outcomes['search throwingToString']).toBe('throws Error');
    },
  );

  it('refuses every setter and parse of an input past the cap before it is copied out, three times over', async () => {
    const pids = host.supervisor.workerPids();
    const before = hostBytes();
    for (let round = 0; round < 3; round++) {
      const [attack, neighbour] = await Promise.all([
        fetch(`${endpointOf(host, 'url-setter-abuse')}?mode=huge&mb=8`),
        neighbourAnswers(host),
      ]);
      expect(attack.status).toBe(200);
      const outcomes = (await attack.json()) as Record<string, string>;
      for (const component of COMPONENTS.filter((name) => name !== 'href'))
        expect(`${component}: ${outcomes[component]}`).toBe(`${component}: ${START}`);
      expect([outcomes.href, outcomes.parse, outcomes.base, outcomes.searchParams]).toEqual([
        'throws TypeError',
        'throws TypeError',
        'throws TypeError',
        START,
      ]);
      expect(neighbour.status).toBe(200);
    }
    // Had the inputs crossed, this process would have held copies of 8 MiB strings (and their hrefs) many times.
    expect(hostBytes() - before).toBeLessThan(16 * 1024 * 1024);
    expect(host.supervisor.workerPids()).toEqual(pids);
    expect(host.supervisor.isQuarantined('url-setter-abuse')).toBe(false);
  });

  it('still sets a search just under the cap', async () => {
    const answer = await fetch(`${endpointOf(host, 'url-setter-abuse')}?mode=near-cap`);
    expect(await answer.json()).toEqual({ searchLength: 3 * 1024 * 1024 + 1, host: 'example.com' });
  });

  it('answers null on the host side to anything but a string href, a listed component and a string value', () => {
    const wrong: unknown[][] = [
      [undefined, 'host', 'x'],
      [42, 'host', 'x'],
      [START, 'host', 42],
      [START, 'host', { toString: () => 'x' }],
      [START, 42, 'x'],
      [START, '__proto__', 'x'],
      [START, 'constructor', 'x'],
      [START, 'href', 'https://other.example/'],
      [START, 'origin', 'x'],
      [START, 'searchParams', 'x'],
      [START, 'toString', 'x'],
      [START, 'toJSON', 'x'],
      ['not a url', 'host', 'x'],
      [START, 'search', 'x'.repeat(MAX_URL_INPUT_LENGTH)],
      ['x'.repeat(MAX_URL_INPUT_LENGTH + 1), 'host', ''],
    ];
    const set = setUrlComponent as (...args: unknown[]) => unknown;
    for (const args of wrong)
      expect(
        set(...args),
        JSON.stringify(args.map((arg) => (typeof arg === 'string' ? arg.slice(0, 20) : String(arg)))),
      ).toBeNull();
    expect(parseUrl(`https://example.com/?${'x'.repeat(MAX_URL_INPUT_LENGTH)}`, undefined)).toBeNull();
    expect((parseUrl as (...args: unknown[]) => unknown)({ toString: () => START }, undefined)).toBeNull();
    expect(setUrlComponent(START, 'host' as UrlComponent, 'example.org:65536')?.href).toBe(
      'https://user:pw@example.org:8443/path?q=1#h',
    );
  });

  it('leaves the host healthy', async () => {
    await expectHostHealthy(host);
  });
});
