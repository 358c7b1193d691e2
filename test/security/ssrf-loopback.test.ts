// Server-side request forgery to the host's own loopback, through the real host: every spelling of
// 127.0.0.1, ::1 and localhost is refused without --allow-egress, and with only one receiver's port
// allowed, its redirects to another loopback port are refused too. The connect audit (every
// destination a guest fetch points a socket at) proves no socket ever went to the forbidden port,
// and the forbidden receiver counts zero requests.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { startTestHost, endpointOf, type TestHost } from '../helpers/host.ts';
import { expectHostHealthy } from '../helpers/host-health.ts';
import { redirectVia, startReceiver, type Receiver } from '../helpers/receivers.ts';

interface Audited {
  host: TestHost;
  connects: string[];
}

let allowed: Receiver;
let forbidden: Receiver;
let strict: Audited;
let open: Audited;

async function auditedHost(
  allowEgress: string[],
  listeners: { consolePort?: number; metricsListen?: string } = {},
): Promise<Audited> {
  const connects: string[] = [];
  const host = await startTestHost({
    dirs: ['fixtures/integrations', 'fixtures/hostile'],
    allowEgress,
    ...listeners,
    onEgressConnect: ({ integration, address, port }) => connects.push(`${integration} ${address}:${port}`),
  });
  return { host, connects };
}

async function attack(target: Audited, urls: string[]): Promise<Map<string, string>> {
  const query = new URLSearchParams(urls.map((url) => ['target', url]));
  const response = await fetch(`${endpointOf(target.host, 'ssrf-loopback')}?${query}`);
  expect(response.status).toBe(200);
  return new Map(
    ((await response.json()) as { target: string; outcome: string }[]).map((entry) => [entry.target, entry.outcome]),
  );
}

beforeAll(async () => {
  [allowed, forbidden] = await Promise.all([
    startReceiver('allowed receiver'),
    startReceiver('forbidden receiver reached'),
  ]);
  [strict, open] = await Promise.all([auditedHost([]), auditedHost([`127.0.0.1:${allowed.port}`])]);
});
afterAll(async () => {
  await Promise.all([strict?.host.close(), open?.host.close()]);
  await Promise.all([allowed?.close(), forbidden?.close()]);
});

describe('SSRF to loopback without --allow-egress', () => {
  const spellings = (port: number) => [
    `http://127.0.0.1:${port}/`,
    `http://127.1:${port}/`,
    `http://127.0.0.2:${port}/`,
    `http://2130706433:${port}/`,
    `http://0x7f000001:${port}/`,
    `http://0x7f.0.0.1:${port}/`,
    `http://0177.0.0.1:${port}/`,
    `http://127.000.000.001:${port}/`,
    `http://0.0.0.0:${port}/`,
    `http://0:${port}/`,
    `http://[::1]:${port}/`,
    `http://[0:0:0:0:0:0:0:1]:${port}/`,
    `http://[::ffff:127.0.0.1]:${port}/`,
    `http://[::ffff:7f00:1]:${port}/`,
    `http://[::127.0.0.1]:${port}/`,
    `http://[64:ff9b::127.0.0.1]:${port}/`,
    `http://[::]:${port}/`,
    `http://localhost:${port}/`,
    `http://LOCALHOST:${port}/`,
    `https://localhost:${port}/`,
  ];

  it('refuses every spelling with a TypeError naming the reason, before any socket', async () => {
    const outcomes = await attack(strict, spellings(forbidden.port));
    expect(outcomes.size).toBe(spellings(forbidden.port).length);
    for (const [target, outcome] of outcomes) {
      expect(`${target} → ${outcome}`).toMatch(
        / → TypeError: fetch failed: destination .* is (loopback|unspecified) and not allowed by --allow-egress/,
      );
    }
    expect(strict.connects).toEqual([]);
    expect(forbidden.hits).toEqual([]);
  });

  it('logs one host line per refusal', () => {
    const refusals = strict.host.logs.filter(
      (line) => line.includes('[ssrf-loopback]') && line.includes('egress refused for'),
    );
    expect(refusals.length).toBe(spellings(forbidden.port).length);
  });

  it('leaves the host and its neighbour answering', async () => {
    await expectHostHealthy(strict.host);
  });
});

describe('SSRF to the host itself with the whole loopback address allowed', () => {
  it(
    "refuses every spelling of the host's own address and port, so its endpoints are reached only through " +
      'environment.apiEndpoint',
    async () => {
      const wide = await auditedHost(['127.0.0.1', '::1', 'localhost']);
      try {
        const port = wide.host.port;
        const targets = [
          `http://localhost:${port}/health`,
          `http://[::ffff:127.0.0.1]:${port}/health`,
          `http://[::1]:${port}/health`,
        ];
        const outcomes = await attack(wide, targets);
        const refused = / → TypeError: fetch failed: destination .* is this host itself/;
        for (const [target, outcome] of outcomes) expect(`${target} → ${outcome}`).toMatch(refused);
        // The apiEndpoint's own origin (127.1 is 127.0.0.1) goes to the platform API over IPC, which has no /health.
        expect((await attack(wide, [`http://127.1:${port}/health`])).get(`http://127.1:${port}/health`)).toMatch(
          /^status 404/,
        );
        expect(wide.connects.filter((entry) => entry.endsWith(`:${port}`))).toEqual([]);
        // Other loopback ports stay reachable, as the allow list says.
        expect((await attack(wide, [`${allowed.url}/ok`])).get(`${allowed.url}/ok`)).toBe(
          'status 200: allowed receiver',
        );
        await expectHostHealthy(wide.host);
      } finally {
        await wide.host.close();
      }
    },
  );

  it("refuses the host's other listeners too: the console's port and the metrics port", async () => {
    const wide = await auditedHost(['127.0.0.1', '::1', 'localhost'], { consolePort: 0, metricsListen: '127.0.0.1:0' });
    try {
      const consolePort = Number(new URL(wide.host.consoleUrl!).port);
      const metricsPort = Number(new URL(wide.host.metricsUrl!).port);
      const targets = [
        `http://127.0.0.1:${consolePort}/v1/installations`,
        `http://localhost:${consolePort}/console`,
        `http://127.0.0.1:${metricsPort}/metrics`,
        `http://[::ffff:127.0.0.1]:${metricsPort}/metrics`,
      ];
      const outcomes = await attack(wide, targets);
      expect(outcomes.size).toBe(targets.length);
      for (const [target, outcome] of outcomes)
        expect(`${target} → ${outcome}`).toMatch(/ → TypeError: fetch failed: destination .* is this host itself/);
      expect(
        wide.connects.filter((entry) => entry.endsWith(`:${consolePort}`) || entry.endsWith(`:${metricsPort}`)),
      ).toEqual([]);
    } finally {
      await wide.host.close();
    }
  });
});

describe('SSRF through an allowed loopback receiver (only its port allowed)', () => {
  it('reaches the allowed receiver itself (the audit sees that socket)', async () => {
    const outcomes = await attack(open, [`${allowed.url}/ok`]);
    expect(outcomes.get(`${allowed.url}/ok`)).toBe('status 200: allowed receiver');
    expect(open.connects).toContain(`ssrf-loopback 127.0.0.1:${allowed.port}`);
  });

  it('refuses another port of the same address, directly and through redirects of every kind', async () => {
    const targets = [
      `http://127.0.0.1:${forbidden.port}/`,
      redirectVia(allowed, `http://127.0.0.1:${forbidden.port}/`),
      redirectVia(allowed, `http://localhost:${forbidden.port}/`, 301),
      redirectVia(allowed, `http://[::1]:${forbidden.port}/`, 307),
      redirectVia(allowed, `http://127.1:${forbidden.port}/`, 308),
      redirectVia(allowed, `http://0.0.0.0:${forbidden.port}/`, 303),
      redirectVia(allowed, redirectVia(allowed, `http://[::ffff:127.0.0.1]:${forbidden.port}/`)),
    ];
    const outcomes = await attack(open, targets);
    for (const [target, outcome] of outcomes) {
      expect(`${target} → ${outcome}`).toMatch(
        new RegExp(
          ` → TypeError: fetch failed: destination .* is (loopback|unspecified) and not allowed by --allow-egress ` +
            `\\(port ${forbidden.port}\\)`,
        ),
      );
    }
    expect(open.connects.filter((entry) => !entry.endsWith(`:${allowed.port}`))).toEqual([]);
    expect(forbidden.hits).toEqual([]);
  });

  it('leaves the host and its neighbour answering', async () => {
    await expectHostHealthy(open.host);
  });
});
