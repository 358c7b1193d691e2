// An integration that burns CPU for just under its deadline on every request is never demoted for
// a timeout, yet starves its worker's neighbours. Busy isolates are sampled: past `hogCpuMs` of
// execution in one busy period the integration is moved to the low-priority worker while its
// request still runs (before any deadline), and that request still gets its answer.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { endpointOf, startTestHost, waitFor, type TestHost } from '../helpers/host.ts';
import { expectHostHealthy } from '../helpers/host-health.ts';

let host: TestHost;

beforeAll(async () => {
  // One regular worker, so the hog shares it with every neighbour until it is moved.
  host = await startTestHost({
    dirs: ['fixtures/integrations', 'fixtures/hostile'],
    workers: 1,
    limits: { hogCpuMs: 300 },
  });
});
afterAll(() => host?.close());

describe('a CPU hog under the deadline', () => {
  it('is moved to the low-priority worker while its first long request still runs', async () => {
    const offender = host.supervisor.offenderWorker!;
    const endpoint = endpointOf(host, 'cpu-hog');
    // Warm the isolate with a short request, so start-up is not part of what is measured.
    expect((await fetch(`${endpoint}?ms=1`)).status).toBe(200);
    expect(host.supervisor.workerOf('cpu-hog')).not.toBe(offender);
    let finished = false;
    const spinning = fetch(`${endpoint}?ms=4000`).then(async (response) => {
      finished = true;
      return { status: response.status, body: await response.json() };
    });
    await waitFor(() => host.supervisor.workerOf('cpu-hog') === offender, 30_000);
    expect(finished).toBe(false);
    const answer = await spinning;
    expect(answer.status).toBe(200);
    expect(answer.body.spun).toBe(4000);
    expect(
      host.logs.some(
        (line) =>
          line.includes('integration "cpu-hog" executed') && line.includes('moved to the low-priority sandbox worker'),
      ),
    ).toBe(true);
  });

  it('keeps serving the hog from there, and its neighbours from the regular worker', async () => {
    expect((await fetch(`${endpointOf(host, 'cpu-hog')}?ms=1`)).status).toBe(200);
    expect(host.supervisor.workerOf('hello')).not.toBe(host.supervisor.offenderWorker);
    await expectHostHealthy(host);
  });
});
