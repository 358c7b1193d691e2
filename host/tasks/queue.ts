// Queuing an integration task (GitBook's `POST /v1/integrations/:name/tasks`): validates the body
// (`{ task, schedule? }`), bounds the queue per integration, stores the task durably and wakes the
// runner. Never runs anything itself.

import { randomUUID } from 'node:crypto';
import { HostError } from '../common/errors.ts';
import { compileBodyValidator } from '../common/validate-body.ts';
import { newEventId } from '../dispatch/event-dispatcher.ts';
import { MAX_SCHEDULE_SECONDS, MAX_TASK_PAYLOAD_CHARS, type TaskLimits, type TaskStore } from './model.ts';

const validateTaskBody = compileBodyValidator<{ task: Record<string, unknown>; schedule?: number }>({
  type: 'object',
  additionalProperties: false,
  required: ['task'],
  properties: {
    task: { type: 'object', failureMessage: 'must be a JSON object (the payload the task event carries)' },
    // GitBook's API declares `schedule` a number of seconds, not an integer: a fraction is kept to the millisecond.
    schedule: {
      type: 'number',
      minimum: 0,
      maximum: MAX_SCHEDULE_SECONDS,
      failureMessage:
        `must be a number of seconds from 0 to ${MAX_SCHEDULE_SECONDS} ` +
        `(fractions allowed, kept to the millisecond)`,
    },
  },
});

export interface TaskQueueDeps {
  store: TaskStore;
  limits: TaskLimits;
  now(): number;
  /** Tells the runner a task due at `runAt` was queued. */
  queued(runAt: number): void;
}

export type QueueTask = (integration: string, installationId: string | undefined, body: unknown) => Promise<void>;

export function createTaskQueue(deps: TaskQueueDeps): QueueTask {
  return async (integration, installationId, body) => {
    const { task, schedule } = validateTaskBody(body ?? {});
    if (JSON.stringify(task).length > MAX_TASK_PAYLOAD_CHARS) {
      throw new HostError('ERR_VALIDATION', `task must be at most ${MAX_TASK_PAYLOAD_CHARS} characters of JSON`, [
        { pointer: '/task', message: `is larger than ${MAX_TASK_PAYLOAD_CHARS} characters of JSON` },
      ]);
    }
    const now = deps.now();
    const runAt = now + Math.round((schedule ?? 0) * 1000);
    const queued = await deps.store.enqueue(
      {
        id: `task_${randomUUID().replaceAll('-', '')}`,
        integration,
        ...(installationId !== undefined ? { installationId } : {}),
        eventId: newEventId(),
        payload: task,
        runAt,
        createdAt: now,
      },
      deps.limits.maxPendingTasksPerIntegration,
    );
    if (!queued)
      throw new HostError(
        'ERR_QUOTA_EXCEEDED',
        `integration "${integration}" already has ${deps.limits.maxPendingTasksPerIntegration} ` +
          `tasks waiting, the most it may`,
      );
    deps.queued(runAt);
  };
}
