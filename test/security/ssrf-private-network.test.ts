// Server-side request forgery to cloud metadata, private, link-local and unique-local destinations,
// through the real host: literal addresses in every spelling, host names that resolve to them (an
// injected DNS answer, so the test sends nothing off loopback), and redirects to them from an
// allowed loopback receiver are all refused. The connect audit proves the only socket ever opened
// went to the allowed receiver; a name answering both a private and the allowed address is pinned
// to the allowed one.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { startTestHost, endpointOf, type TestHost } from '../helpers/host.ts';
import { expectHostHealthy } from '../helpers/host-health.ts';
import { redirectVia, startReceiver, type Receiver } from '../helpers/receivers.ts';

let host: TestHost;
let allowed: Receiver;
const connects: string[] = [];

const REFUSED = new RegExp(
  '^TypeError: fetch failed: destination .* is ' +
    String.raw`(link-local \(cloud metadata\)|private|carrier-grade NAT|unique-local|link-local)` +
    ' and not allowed by --allow-egress',
);

async function attack(urls: string[]): Promise<Map<string, string>> {
  const query = new URLSearchParams(urls.map((url) => ['target', url]));
  const response = await fetch(`${endpointOf(host, 'ssrf-private-network')}?${query}`);
  expect(response.status).toBe(200);
  return new Map(
    ((await response.json()) as { target: string; outcome: string }[]).map((entry) => [entry.target, entry.outcome]),
  );
}

function expectRefused(outcomes: Map<string, string>): void {
  for (const [target, outcome] of outcomes)
    expect(`${target} → ${outcome}`).toMatch(new RegExp(` → ${REFUSED.source.slice(1)}`));
}

beforeAll(async () => {
  allowed = await startReceiver('allowed receiver');
  host = await startTestHost({
    dirs: ['fixtures/integrations', 'fixtures/hostile'],
    allowEgress: [`127.0.0.1:${allowed.port}`],
    // Testing aid: these names never reach a real resolver.
    egressResolve: {
      'metadata.test': ['169.254.169.254'],
      'intranet.test': ['10.0.0.1'],
      'ula.test': ['fd00:ec2::254'],
      'mixed.test': ['10.0.0.1', '192.168.0.1', 'fe80::1'],
      'rebind.test': ['10.0.0.1', '127.0.0.1'],
    },
    onEgressConnect: ({ integration, address, port }) => connects.push(`${integration} ${address}:${port}`),
  });
});
afterAll(async () => {
  await host?.close();
  await allowed?.close();
});

describe('SSRF to metadata, private and link-local destinations', () => {
  it('refuses literal addresses in every spelling', async () => {
    const outcomes = await attack([
      'http://169.254.169.254/latest/meta-data/',
      'http://169.254.170.2/v2/credentials',
      'http://0xa9fea9fe/latest/meta-data/',
      'http://2852039166/latest/meta-data/',
      'http://[::ffff:169.254.169.254]/latest/meta-data/',
      'http://[64:ff9b::a9fe:a9fe]/latest/meta-data/',
      'http://[fd00:ec2::254]/latest/meta-data/',
      'http://100.100.100.200/latest/meta-data/',
      'http://10.0.0.1/',
      'http://172.16.0.1/',
      'http://192.168.1.1/',
      'http://[fe80::1]/',
      'http://[fd12:3456::1]/',
    ]);
    expect(outcomes.size).toBe(13);
    expectRefused(outcomes);
  });

  it('refuses host names that resolve to them', async () => {
    const outcomes = await attack([
      'http://metadata.test/latest/meta-data/',
      'http://intranet.test:8080/',
      'https://ula.test/',
      'http://mixed.test/',
    ]);
    expectRefused(outcomes);
    expect(outcomes.get('http://metadata.test/latest/meta-data/')).toMatch(/metadata\.test \(169\.254\.169\.254\)/);
  });

  it('refuses redirects to them from an allowed receiver', async () => {
    const outcomes = await attack([
      redirectVia(allowed, 'http://169.254.169.254/latest/meta-data/iam/security-credentials/'),
      redirectVia(allowed, 'http://metadata.test/latest/meta-data/', 307),
      redirectVia(allowed, 'http://10.0.0.1/admin', 301),
      redirectVia(allowed, 'http://intranet.test/', 303),
    ]);
    expectRefused(outcomes);
  });

  it('pins a name with a private and an allowed answer to the allowed address', async () => {
    const outcomes = await attack([`http://rebind.test:${allowed.port}/ok`]);
    expect(outcomes.get(`http://rebind.test:${allowed.port}/ok`)).toBe('status 200: allowed receiver');
  });

  it('never opened a socket to anything but the allowed receiver', () => {
    expect(connects.length).toBeGreaterThan(0);
    expect(new Set(connects)).toEqual(new Set([`ssrf-private-network 127.0.0.1:${allowed.port}`]));
    // Four redirects and the pinned name, nothing else.
    expect(allowed.hits).toHaveLength(5);
  });

  it('leaves the host and its neighbour answering', async () => {
    await expectHostHealthy(host);
  });
});
