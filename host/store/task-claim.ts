// The order in which every SQL store claims due tasks: fair between integrations, so one that
// fills its queue with slow tasks cannot hold back another's. Pure: it builds the statement text;
// `now` and `limit` are the spellings of two parameters (`?1`/`?2` or `$1`/`$3`).

/**
 * The `seq` of up to `limit` tasks due at `now` (pending and due, or running with a lapsed lease),
 * in claim order: each integration's tasks take turns (its k-th due task waits behind every
 * integration's (k−1)-th), and an integration's turns start after the tasks it has running, so a
 * new integration's first task goes ahead of one whose tasks fill the runner. Ties: oldest first.
 */
export function fairDueTasksQuery(now: string, limit: string): string {
  return `WITH due AS (
    SELECT seq, integration, run_at, ROW_NUMBER() OVER (PARTITION BY integration ORDER BY run_at, seq) AS turn
    FROM tasks WHERE (status = 'pending' AND run_at <= ${now}) OR (status = 'running' AND lease_until <= ${now})
  ), busy AS (
    SELECT integration, COUNT(*) AS running FROM tasks WHERE status = 'running' AND lease_until > ${now} GROUP BY
      integration
  )
  SELECT due.seq FROM due LEFT JOIN busy ON busy.integration = due.integration
  ORDER BY due.turn + COALESCE(busy.running, 0), due.run_at, due.seq
  LIMIT ${limit}`;
}
