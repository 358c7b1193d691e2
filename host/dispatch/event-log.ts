// The event log's records and interface: one entry per dispatch into an integration (event id,
// installation, type, status or error code, duration, captured console lines). Types only; the
// implementations live in store/.

export interface EventLogEntry {
  eventId: string;
  integration: string;
  installationId: string;
  type: string;
  /** The HTTP status the integration answered, or the host's status for a failed dispatch. */
  status: number;
  /** Set when the dispatch failed in the host (ERR_SANDBOX_TIMEOUT, ERR_SANDBOX_CRASHED, …). */
  errorCode?: string;
  durationMs: number;
  logs: { level: string; text: string }[];
  createdAt: string;
  /** The `x-request-id` of the HTTP request that caused this dispatch, when there was one. */
  requestId?: string;
  /** The published version that served it (host/publish/); absent for an integration loaded from a folder. */
  version?: number;
}

export interface EventLogPage {
  items: EventLogEntry[];
  nextCursor: string | null;
}

export interface EventLog {
  /** Queues the entry; it is written with others in one batch shortly after (reads and close() flush first). */
  record(entry: EventLogEntry): void;
  /**
   * Records the entry `entry` resolves to (an entry of `integration`), once it does; until then
   * reads of that integration's log, and flush(), wait for it (a dispatch answered before its
   * worker's verdict: record.ts). A log without it is given the entry to record() when it resolves.
   */
  recordLater?(integration: string, entry: Promise<EventLogEntry>): void;
  /** Writes queued entries now (reads do this themselves; close() should too). */
  flush(): Promise<void>;
  /** Newest first; `cursor` is a previous page's nextCursor (opaque to callers). */
  list(integration: string, page: { limit: number; cursor?: string }): Promise<EventLogPage>;
  /** The first dispatch recorded for this event id (an event reaching several installations has one row each). */
  get(integration: string, eventId: string): Promise<EventLogEntry | undefined>;
}
