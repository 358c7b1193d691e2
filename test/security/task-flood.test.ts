// One integration keeps the task runner busy: it queues 40 tasks that each wait about a second
// (no CPU, under the deadline). Another integration's task, queued after them, must not wait for
// the whole queue: claims take turns between integrations, so it runs within one round of the
// runner (4 at a time), not after the 40.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { startTestHost, waitFor, type TestHost } from '../helpers/host.ts';
import { callApi, integrationToken } from '../helpers/platform-api.ts';
import { expectHostHealthy } from '../helpers/host-health.ts';

let host: TestHost;

async function tasksOf(integration: string): Promise<{ status: string }[]> {
  return (await (await host.admin(`/v1/integrations/${integration}/tasks?limit=200`)).json()).items;
}

beforeAll(async () => {
  host = await startTestHost({
    dirs: ['fixtures/integrations', 'fixtures/hostile/task-flood', 'test/fixtures/gitbook-probe/wire-echo'],
  });
});
afterAll(() => host?.close());

describe('a task queue flooded with slow tasks', () => {
  it("holds back another integration's task by one round of the runner at most", async () => {
    const flood = await integrationToken(host, 'task-flood');
    for (let i = 0; i < 40; i++)
      expect(
        (await callApi(host, flood, 'POST', '/v1/integrations/task-flood/tasks', { task: { waitMs: 1_000, i } }))
          .status,
      ).toBe(204);
    // The runner is busy with the flood before the other task arrives.
    await waitFor(async () => (await tasksOf('task-flood')).some((task) => task.status === 'running'), 30_000);
    const victim = await integrationToken(host, 'wire-echo');
    const done = async () => (await tasksOf('task-flood')).filter((task) => task.status === 'succeeded').length;
    const doneBefore = await done();
    expect(
      (await callApi(host, victim, 'POST', '/v1/integrations/wire-echo/tasks', { task: { key: 'victim' } })).status,
    ).toBe(204);
    await waitFor(async () => (await tasksOf('wire-echo')).some((task) => task.status === 'succeeded'), 60_000);
    // In order of arrival it would have waited for every flood task still queued (ten rounds at
    // first); fairly, only for the round in flight (4), with room for a slow machine's polling.
    expect(doneBefore).toBeLessThan(30);
    expect((await done()) - doneBefore).toBeLessThanOrEqual(8);
  }, 90_000);

  it('leaves the host and its neighbour answering', async () => {
    await expectHostHealthy(host);
  });
});
