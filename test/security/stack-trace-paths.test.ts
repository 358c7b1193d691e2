// Source-mapped stack traces must not open a way to host details: the guest's own stack shows
// only bundle positions (the map stays in the worker), a forged position of another integration
// is never mapped with that integration's map, mapped names are relative to the folder, and a
// line flooded with positions costs the worker a bounded number of lookups.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_MAPPED_POSITIONS } from '../../host/sandbox/stack-map.ts';
import { endpointOf, startTestHost, type TestHost } from '../helpers/host.ts';
import { expectHostHealthy } from '../helpers/host-health.ts';

const HOST_DETAIL = /\/work\/|\/home\/|\/tmp\/|node_modules|node:internal|host\/|isolated-vm|file:/;
let host: TestHost;
let report: Record<string, any>;
let logs: { level: string; text: string }[];

beforeAll(async () => {
  host = await startTestHost({ dirs: ['fixtures/integrations', 'fixtures/hostile'] });
  const response = await fetch(endpointOf(host, 'stack-trace-paths'));
  expect(response.status).toBe(200);
  report = await response.json();
  const page = await (await host.admin('/v1/integrations/stack-trace-paths/events')).json();
  logs = page.items.find((item: { type: string }) => item.type === 'fetch').logs;
}, 60_000);
afterAll(() => host?.close());

describe('stack traces and host details', () => {
  it('shows the guest only bundle positions, never a host path or the source map', () => {
    expect(report.stack).toMatch(/integration:stack-trace-paths:\d+:\d+/);
    expect(JSON.stringify(report)).not.toMatch(HOST_DETAIL);
    expect(JSON.stringify(report)).not.toMatch(/src\/|sandbox-api\/index\.ts/);
    expect(report.sourceMapGlobals).toEqual([]);
  });

  it('never maps another integration’s positions, and maps its own only to folder-relative names', () => {
    const forged = logs.find((log) => log.text.startsWith('forged:'))!;
    expect(forged.text).toBe('forged: at other (integration:hello:1:1)');
    const own = logs.find((log) => log.text.startsWith('own:'))!;
    expect(own.text).toMatch(/^own: at mine \((index\.ts|sandbox-api\/[\w/.-]+):\d+:\d+\)$/);
    expect(JSON.stringify(logs)).not.toMatch(HOST_DETAIL);
  });

  it('maps at most a bounded number of positions in one line', () => {
    const flood = logs.find((log) => log.text.startsWith('flood:'))!;
    const left = flood.text.match(/integration:stack-trace-paths:40:5/g)?.length ?? 0;
    expect(left).toBe(200 - MAX_MAPPED_POSITIONS);
  });

  it('leaves the host healthy', async () => {
    await expectHostHealthy(host);
  });
});
