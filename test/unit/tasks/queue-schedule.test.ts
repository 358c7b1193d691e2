// `schedule` of a queued task: any number of seconds from 0 to 86,400 as GitBook's API declares it
// (a number, fractions included, kept to the millisecond); anything else is refused naming the field.
import { describe, it, expect } from 'vitest';
import { createTaskQueue } from '../../../host/tasks/queue.ts';
import type { NewTask, TaskStore } from '../../../host/tasks/model.ts';
import { HostError } from '../../../host/common/errors.ts';

const NOW = 1_700_000_000_000;

function queueWithStore() {
  const stored: NewTask[] = [];
  const store = {
    enqueue: async (task: NewTask) => {
      stored.push(task);
      return true;
    },
  } as unknown as TaskStore;
  const queue = createTaskQueue({
    store,
    limits: { maxPendingTasksPerIntegration: 10, taskMaxAttempts: 5, taskRetryBaseMs: 10_000 },
    now: () => NOW,
    queued: () => {},
  });
  return { queue, stored };
}

async function refusal(body: unknown): Promise<HostError> {
  const { queue, stored } = queueWithStore();
  const error = await queue('demo', undefined, body).then(
    () => null,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(HostError);
  expect(stored).toEqual([]);
  return error as HostError;
}

describe('task schedule', () => {
  it('runs a fractional schedule that many milliseconds later', async () => {
    const { queue, stored } = queueWithStore();
    await queue('demo', undefined, { task: { key: 'a' }, schedule: 0.5 });
    await queue('demo', undefined, { task: { key: 'b' }, schedule: 1.25 });
    expect(stored.map((task) => task.runAt - NOW)).toEqual([500, 1_250]);
  });

  it('accepts both bounds and defaults to now', async () => {
    const { queue, stored } = queueWithStore();
    await queue('demo', undefined, { task: {} });
    await queue('demo', undefined, { task: {}, schedule: 0 });
    await queue('demo', undefined, { task: {}, schedule: 86_400 });
    expect(stored.map((task) => task.runAt - NOW)).toEqual([0, 0, 86_400_000]);
  });

  for (const [label, schedule] of [
    ['negative', -0.5],
    ['past a day', 86_400.5],
    ['a string', '0.5'],
    ['null', null],
    ['a boolean', true],
  ] as const) {
    it(`refuses a schedule that is ${label}, naming the field and what it expects`, async () => {
      const error = await refusal({ task: {}, schedule });
      expect(error.code).toBe('ERR_VALIDATION');
      expect(error.message).toBe(
        'schedule must be a number of seconds from 0 to 86400 (fractions allowed, kept to the millisecond)',
      );
      expect(error.details?.[0]?.pointer).toBe('/schedule');
    });
  }

  it('refuses a task that is not an object, naming the field', async () => {
    const error = await refusal({ task: 'run', schedule: 1 });
    expect([error.code, error.details?.[0]?.pointer]).toEqual(['ERR_VALIDATION', '/task']);
    expect(error.message).toBe('task must be a JSON object (the payload the task event carries)');
  });
});
