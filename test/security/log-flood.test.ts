// A guest flooding the host's logs: thousands of lines in one event, one multi-megabyte line, and
// the same again from waitUntil work after the response. Lines are cut at the line cap and each
// event keeps at most the line-count cap plus one "dropped" notice, in the event log and in the
// host log alike; the host and a neighbour keep answering.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { startTestHost, endpointOf, waitFor, type TestHost } from '../helpers/host.ts';
import { expectHostHealthy } from '../helpers/host-health.ts';
import { eventsOf, eventually } from '../helpers/lifecycle.ts';

const MAX_LINES = 100;
const MAX_LINE_BYTES = 1024;
let host: TestHost;

const fetchEvents = async () => (await eventsOf(host, 'log-flood')).filter((event) => event.type === 'fetch');

/** Runs one flood and returns its entry in the event log (written asynchronously, in batches). */
async function floodAndGetEvent(query: string) {
  const before = (await fetchEvents()).length;
  const response = await fetch(`${endpointOf(host, 'log-flood')}?${query}`);
  expect(response.status).toBe(200);
  return eventually(async () => {
    const events = await fetchEvents();
    expect(events.length).toBe(before + 1);
    return events[0];
  });
}

const hostLines = (marker: string) => host.logs.filter((line) => line.includes('[log-flood') && line.includes(marker));

beforeAll(async () => {
  host = await startTestHost({
    dirs: ['fixtures/integrations', 'fixtures/hostile'],
    limits: { maxLogLinesPerDispatch: MAX_LINES, maxLogLineBytes: MAX_LINE_BYTES },
  });
});
afterAll(() => host?.close());

describe('enormous log output', () => {
  it('keeps at most the line cap per event, plus one notice of how many were dropped', async () => {
    const event = await floodAndGetEvent('lines=5000');
    expect(event.logs).toHaveLength(MAX_LINES + 1);
    expect(event.logs.at(-1)).toEqual({
      level: 'warn',
      text: `… 4900 more log lines dropped (limits: ${MAX_LINES} lines, 65536 bytes per event)`,
    });
    expect(hostLines('during line').length).toBe(MAX_LINES);
  });

  it('cuts a multi-megabyte line at the line cap', async () => {
    const event = await floodAndGetEvent('huge=4');
    expect(event.logs).toHaveLength(1);
    expect(event.logs[0].text.length).toBeLessThanOrEqual(MAX_LINE_BYTES + 32);
    expect(event.logs[0].text).toMatch(/^during huge x+… \[truncated\]$/);
    for (const line of hostLines('during huge')) expect(line.length).toBeLessThan(MAX_LINE_BYTES + 200);
  });

  it('caps output after the response (waitUntil) the same way, with one notice', async () => {
    await floodAndGetEvent('lines=5000&huge=4&late=1');
    await waitFor(() => hostLines('more log lines dropped after the response').length === 1);
    expect(hostLines('late line').length).toBeLessThanOrEqual(MAX_LINES);
    expect(hostLines('late huge')).toEqual([]);
    expect(hostLines('more log lines dropped after the response')[0]).toMatch(
      /… 4901 more log lines dropped after the response \(limits: 100 lines, 65536 bytes per event\)/,
    );
  });

  it('keeps at most 64 KiB of log text per event however the lines are made, escaping control characters', async () => {
    // 1,000 lines of control characters: stored JSON-escaped, each once cost six bytes per character.
    const event = await floodAndGetEvent('control=1000&width=1000');
    const stored = event.logs.filter((line: { text: string }) => line.text.startsWith('control'));
    const text = stored.map((line: { text: string }) => line.text).join('');
    expect(text.length).toBeLessThanOrEqual(64 * 1024);
    expect(text).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f]/);
    expect(text).toContain('\\x1b\\x00');
    expect(event.logs.at(-1)?.text).toMatch(/more log lines dropped \(limits: 100 lines, 65536 bytes per event\)/);
    // A page of the event log stays small: entries of at most 64 KiB of text (the escapes' own
    // backslashes cost at most a quarter more in JSON).
    for (let round = 0; round < 9; round++) await floodAndGetEvent('control=1000&width=1000');
    const page = await host.admin('/v1/integrations/log-flood/events?limit=10');
    expect(page.status).toBe(200);
    expect((await page.text()).length).toBeLessThan(10 * 96 * 1024);
  });

  it('leaves the host and its neighbour answering', async () => {
    await expectHostHealthy(host);
  });
});
