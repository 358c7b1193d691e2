// Integration tasks (GitBook's queueIntegrationTask) through the real host: queued with the
// integration token, run later as `task` events valid against GitBook's TaskEvent, `schedule`
// honoured, retried after a 5xx and failed for good after a 4xx or the last attempt (each attempt
// in the event log, retries and failures in the host log), bounded per integration, and kept
// across a restart of the host on the same store.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestHost, waitFor, type TestHost } from '../helpers/host.ts';
import { callApi, installationToken, integrationToken } from '../helpers/platform-api.ts';
import { installationOf } from '../helpers/host.ts';
import { expectValidAgainstSpec } from '../helpers/gitbook-spec.ts';

const PATH = '/v1/integrations/wire-echo/tasks';

interface TaskView {
  id: string;
  eventId: string;
  status: string;
  attempts: number;
  runAt: string;
  lastStatus?: number;
  lastError?: string;
}

async function tasksOf(host: TestHost, integration = 'wire-echo'): Promise<TaskView[]> {
  const response = await host.admin(`/v1/integrations/${integration}/tasks?limit=200`);
  expect(response.status).toBe(200);
  return (await response.json()).items;
}

async function taskEvents(host: TestHost): Promise<{ eventId: string; status: number; logs: { text: string }[] }[]> {
  const response = await host.admin('/v1/integrations/wire-echo/events?limit=200');
  return (await response.json()).items.filter((entry: { type: string }) => entry.type === 'task');
}

async function queue(host: TestHost, body: unknown): Promise<{ status: number; body: any }> {
  return callApi(host, await integrationToken(host, 'wire-echo'), 'POST', PATH, body);
}

describe('queued tasks', () => {
  let host: TestHost;
  // Real time, moved ahead by the test to reach a scheduled task.
  let offset = 0;
  const now = () => Date.now() + offset;
  beforeAll(async () => {
    host = await startTestHost({
      dirs: ['test/fixtures/gitbook-probe'],
      clock: now,
      limits: { taskRetryBaseMs: 20, taskMaxAttempts: 3, maxPendingTasksPerIntegration: 5 },
    });
  });
  afterAll(() => host?.close());

  it("runs a queued task as a `task` event valid against GitBook's TaskEvent", async () => {
    const answer = await queue(host, { task: { key: 'hello', n: 1 } });
    expect(answer.status).toBe(204);
    await waitFor(async () => (await tasksOf(host)).some((task) => task.status === 'succeeded'));
    const [entry] = await taskEvents(host);
    expect(entry.status).toBe(200);
    const event = JSON.parse(entry.logs[0].text.slice('event '.length));
    expectValidAgainstSpec('TaskEvent', event);
    expectValidAgainstSpec('Event', event);
    expect(event).toEqual({ type: 'task', eventId: entry.eventId, task: { key: 'hello', n: 1 } });
  });

  it('accepts only the integration token, for its own integration, with a valid body', async () => {
    const installation = await installationToken(host, installationOf(host, 'wire-echo'));
    expect((await callApi(host, installation, 'POST', PATH, { task: {} })).status).toBe(403);
    expect(
      (await callApi(host, await integrationToken(host, 'wire-echo-two'), 'POST', PATH, { task: {} })).status,
    ).toBe(404);
    const missing = await queue(host, { schedule: 5 });
    expect([missing.status, missing.body.error.details[0].pointer]).toEqual([400, '/task']);
    const tooLate = await queue(host, { task: {}, schedule: 86_401 });
    expect([tooLate.status, tooLate.body.error.details[0].pointer]).toEqual([400, '/schedule']);
  });

  it('honours schedule: the task waits until its time', async () => {
    expect((await queue(host, { task: { key: 'later' }, schedule: 3600 })).status).toBe(204);
    const waiting = (await tasksOf(host)).find((task) => task.status === 'pending')!;
    expect(Date.parse(waiting.runAt) - now()).toBeGreaterThan(3_590_000);
    expect(waiting.attempts).toBe(0);
    offset += 3_600_000;
    host.tasks.poke();
    await waitFor(async () => (await tasksOf(host)).find((task) => task.id === waiting.id)?.status === 'succeeded');
  });

  it('retries after a 5xx and then succeeds; each attempt is in the event log', async () => {
    await queue(host, { task: { key: 'flaky', failures: 2 } });
    await waitFor(async () => (await tasksOf(host))[0]?.status === 'succeeded', 10_000);
    const [task] = await tasksOf(host);
    expect(task).toMatchObject({ status: 'succeeded', attempts: 3, lastStatus: 200 });
    const attempts = (await taskEvents(host)).filter((entry) => entry.eventId === task.eventId);
    expect(attempts.map((entry) => entry.status)).toEqual([200, 500, 500]);
    expect(host.logs.join('\n')).toMatch(
      /task task_\w+ of wire-echo \(attempt 1\/3\) failed: it answered 500; retrying at/,
    );
  });

  it('fails for good after its last attempt, and at once after a 4xx', async () => {
    await queue(host, { task: { key: 'broken', failures: 99 } });
    await waitFor(async () => (await tasksOf(host))[0]?.status === 'failed', 10_000);
    expect((await tasksOf(host))[0]).toMatchObject({
      status: 'failed',
      attempts: 3,
      lastStatus: 500,
      lastError: 'it answered 500',
    });
    expect(host.logs.join('\n')).toMatch(/\(attempt 3\/3\) failed for good: it answered 500/);

    await queue(host, { task: { key: 'refused', status: 418 } });
    await waitFor(async () => (await tasksOf(host))[0]?.status === 'failed');
    expect((await tasksOf(host))[0]).toMatchObject({ status: 'failed', attempts: 1, lastStatus: 418 });
  });

  it('bounds the tasks one integration may have waiting', async () => {
    for (let i = 0; i < 5; i++)
      expect((await queue(host, { task: { key: `bound-${i}` }, schedule: 86_400 })).status).toBe(204);
    const full = await queue(host, { task: { key: 'one-too-many' } });
    expect([full.status, full.body.error.code]).toEqual([507, 'ERR_QUOTA_EXCEEDED']);
    // Another integration's queue is its own.
    expect(
      (
        await callApi(
          host,
          await integrationToken(host, 'wire-echo-two'),
          'POST',
          '/v1/integrations/wire-echo-two/tasks',
          { task: {} },
        )
      ).status,
    ).toBe(204);
  });
});

describe('tasks across a restart', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it('runs after the restart a task queued before it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ih-tasks-'));
    dirs.push(dir);
    const dataPath = join(dir, 'host.db');
    let now = Date.now();
    const first = await startTestHost({ dirs: ['test/fixtures/gitbook-probe'], dataPath, clock: () => now });
    expect((await queue(first, { task: { key: 'survivor' }, schedule: 60 })).status).toBe(204);
    await first.close();

    now += 61_000;
    const second = await startTestHost({ dirs: ['test/fixtures/gitbook-probe'], dataPath, clock: () => now });
    try {
      await waitFor(async () => (await tasksOf(second))[0]?.status === 'succeeded');
      const [entry] = await taskEvents(second);
      expect(JSON.parse(entry.logs[0].text.slice('event '.length)).task).toEqual({ key: 'survivor' });
    } finally {
      await second.close();
    }
  });
});
