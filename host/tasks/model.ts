// Integration tasks (GitBook's `queueIntegrationTask`): the record, the store interface that keeps
// them durably, and the rules of the queue. Types and constants only; the runner runs them
// (runner.ts), store/ persists them.

export type TaskStatus = 'pending' | 'running' | 'succeeded' | 'failed';

export interface TaskRecord {
  id: string;
  integration: string;
  /** The installation whose token queued it; absent when the integration token did (as GitBook's runtime does). */
  installationId?: string;
  /** The event id every attempt is dispatched (and logged) with. */
  eventId: string;
  /** What the integration asked to run: delivered as the `task` event's `task`. */
  payload: Record<string, unknown>;
  status: TaskStatus;
  /** Attempts started so far. */
  attempts: number;
  /** When the next attempt may start (ms since the epoch). */
  runAt: number;
  /** While running: when the host that claimed it is presumed dead and another may take it. */
  leaseUntil?: number;
  /** The status the last attempt answered (or the host's, for a failed dispatch). */
  lastStatus?: number;
  /** Why the last attempt failed. */
  lastError?: string;
  createdAt: number;
  updatedAt: number;
}

export interface NewTask {
  id: string;
  integration: string;
  installationId?: string;
  eventId: string;
  payload: Record<string, unknown>;
  runAt: number;
  createdAt: number;
}

/** Durable tasks; every method is atomic by itself (it may cross a network). */
export interface TaskStore {
  /** Stores the task unless its integration already has `maxPending` waiting; false when full. */
  enqueue(task: NewTask, maxPending: number): Promise<boolean>;
  /**
   * Claims up to `limit` tasks to run now: pending ones due at `now`, and running ones whose lease
   * lapsed (their host died). Each claimed task is running, its attempts counted, leased until `now + leaseMs`.
   */
  claimDue(now: number, leaseMs: number, limit: number): Promise<TaskRecord[]>;
  /** When the earliest pending task is due, or the earliest lease lapses; undefined when nothing waits. */
  nextDueAt(): Promise<number | undefined>;
  /**
   * Ends attempt number `attempt.number`: `pending` again at `runAt` (a retry), `succeeded` or
   * `failed`. Only while that attempt still holds the task (a host whose lease lapsed, and whose task
   * another host took over, writes nothing). Keeps the newest finished tasks only.
   */
  settle(
    id: string,
    outcome: { status: 'pending'; runAt: number } | { status: 'succeeded' | 'failed' },
    attempt: { number: number; lastStatus: number; lastError?: string; now: number },
  ): Promise<void>;
  /** Newest first; `cursor` is a previous page's nextCursor. */
  list(
    integration: string,
    page: { limit: number; cursor?: string },
  ): Promise<{ items: TaskRecord[]; nextCursor: string | null }>;
}

/** The bounds of the queue (docs/limits.md). */
export interface TaskLimits {
  /** Tasks one integration may have waiting (pending or running); more are refused with 507. */
  maxPendingTasksPerIntegration: number;
  /** Attempts of one task before it is failed for good. */
  taskMaxAttempts: number;
  /** The delay before the first retry; each later one is six times the previous. */
  taskRetryBaseMs: number;
}

/** GitBook's bound on `schedule`: at most a day ahead. */
export const MAX_SCHEDULE_SECONDS = 86_400;
/** Finished tasks kept per integration for the admin listing (older ones are forgotten). */
export const FINISHED_TASKS_KEPT = 1_000;
/** Characters of a task payload's JSON. */
export const MAX_TASK_PAYLOAD_CHARS = 100_000;
