// The event log through the real host: every dispatch is recorded (status or host error code,
// duration, console lines), listed newest first with limit + opaque cursor, and readable by id.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { startTestHost, endpointOf, installationOf, type TestHost } from '../helpers/host.ts';
import { eventsOf, eventually, type LoggedEvent } from '../helpers/lifecycle.ts';

let host: TestHost;

beforeAll(async () => {
  // The timeout below would move `flaky` to the lowest-priority worker, which a busy machine starves;
  // what is recorded is the subject here, not where it runs (demotion has its own test).
  host = await startTestHost({
    dirs: ['test/fixtures/lifecycle'],
    env: { ...process.env, SETTINGS_DEMO_API_KEY: 'x' },
    demoteOffenders: false,
    limits: { dispatchTimeoutMs: 1_000 },
  });
  // The dev installation's installation_setup (406: flaky has no handler) lands first.
  await eventually(async () => expect(await eventsOf(host, 'flaky')).toHaveLength(1));
  for (let n = 1; n <= 5; n++) expect((await fetch(`${endpointOf(host, 'flaky')}?mode=log&n=${n}`)).status).toBe(200);
});
afterAll(() => host?.close());

async function page(query: string): Promise<{ status: number; json: any }> {
  const response = await host.admin(`/v1/integrations/flaky/events${query}`);
  return { status: response.status, json: await response.json() };
}

describe('GET /v1/integrations/:name/events', () => {
  it('records each dispatch with its event id, installation, type, status, duration and console lines', async () => {
    const [newest] = (await page('?limit=1')).json.items as LoggedEvent[];
    expect(newest).toMatchObject({
      integration: 'flaky',
      installationId: installationOf(host, 'flaky'),
      type: 'fetch',
      status: 200,
    });
    expect(newest.eventId).toMatch(/^evt_/);
    expect(newest.durationMs).toBeGreaterThanOrEqual(0);
    expect(newest.logs).toEqual([{ level: 'log', text: 'request 5' }]);
    expect(Date.parse(newest.createdAt)).not.toBeNaN();
    expect(newest).not.toHaveProperty('errorCode');
  });

  it('lists newest first and pages with limit and cursor without overlap', async () => {
    const first = await page('?limit=2');
    expect(first.json.items.map((event: LoggedEvent) => event.logs[0]?.text)).toEqual(['request 5', 'request 4']);
    expect(typeof first.json.nextCursor).toBe('string');
    const second = await page(`?limit=2&cursor=${encodeURIComponent(first.json.nextCursor)}`);
    expect(second.json.items.map((event: LoggedEvent) => event.logs[0]?.text)).toEqual(['request 3', 'request 2']);
    const third = await page(`?limit=2&cursor=${encodeURIComponent(second.json.nextCursor)}`);
    expect(third.json.items.map((event: LoggedEvent) => event.type)).toEqual(['fetch', 'installation_setup']);
    expect(third.json.items[1].status).toBe(406);
    expect(third.json.nextCursor).toBeNull();
    const ids = [...first.json.items, ...second.json.items, ...third.json.items].map(
      (event: LoggedEvent) => event.eventId,
    );
    expect(new Set(ids).size).toBe(6);
  });

  it('defaults to 50 per page and refuses a limit outside 1..200 or a forged cursor', async () => {
    const all = await page('');
    expect(all.json.items.length).toBeGreaterThanOrEqual(6);
    expect(all.json.items.length).toBeLessThanOrEqual(50);
    for (const bad of ['?limit=0', '?limit=201', '?limit=abc', '?cursor=bm9wZQ']) {
      const refused = await page(bad);
      expect(refused.status, bad).toBe(400);
      expect(refused.json.error.code).toBe('ERR_VALIDATION');
    }
  });

  it('answers 404 for an unknown integration and needs the admin token', async () => {
    expect((await host.admin('/v1/integrations/nope/events')).status).toBe(404);
    expect((await fetch(`${host.url}/v1/integrations/flaky/events`)).status).toBe(401);
  });
});

describe('GET /v1/integrations/:name/events/:eventId', () => {
  it('returns one recorded dispatch', async () => {
    const [newest] = (await page('?limit=1')).json.items as LoggedEvent[];
    const response = await host.admin(`/v1/integrations/flaky/events/${newest.eventId}`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual(newest);
  });

  it('answers 404 for an unknown event or an event of another integration', async () => {
    expect((await host.admin('/v1/integrations/flaky/events/evt_unknown')).status).toBe(404);
    const [other] = await eventsOf(host, 'settings-demo');
    expect((await host.admin(`/v1/integrations/flaky/events/${other.eventId}`)).status).toBe(404);
    expect((await host.admin(`/v1/integrations/settings-demo/events/${other.eventId}`)).status).toBe(200);
  });
});

describe('failing dispatches', () => {
  it('records a sandbox timeout with its status, error code and the lines logged before it', async () => {
    const response = await fetch(`${endpointOf(host, 'flaky')}?mode=loop`);
    expect(response.status).toBe(504);
    const [newest] = (await page('?limit=1')).json.items as LoggedEvent[];
    expect(newest).toMatchObject({ type: 'fetch', status: 504, errorCode: 'ERR_SANDBOX_TIMEOUT' });
    expect(newest.durationMs).toBeGreaterThanOrEqual(900);
    expect(newest.logs.map((line) => line.text)).toContain('about to spin');
  });

  it('records a guest exception as the 500 the integration answered', async () => {
    expect((await fetch(`${endpointOf(host, 'flaky')}?mode=throw`)).status).toBe(500);
    const [newest] = (await page('?limit=1')).json.items as LoggedEvent[];
    expect(newest.status).toBe(500);
    expect(newest).not.toHaveProperty('errorCode');
    expect(newest.logs.some((line) => line.level === 'error' && line.text.includes('flaky failure'))).toBe(true);
  });
});
