// The event log of an integration, live: the newest page from GET /v1/integrations/:name/events,
// then every new dispatch from the events stream as it happens; filters by type, status and
// installation; each entry opens to its console lines, duration, error code and request id.
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { ApiError, api, segment } from '../api/client.ts';
import { openEventStream } from '../api/sse.ts';
import type { EventEntry, IntegrationSummary, Page } from '../api/types.ts';
import { BASE, navigate } from '../router.ts';
import { ErrorAlert } from '../ui/alert.tsx';
import { formatDuration, formatTime, statusClass } from '../ui/format.ts';
import { Link } from '../ui/link.tsx';
import { useLoad } from '../ui/use-load.ts';

const PAGE_SIZE = 100;
const MAX_KEPT = 1000;

const keyOf = (entry: EventEntry) => `${entry.eventId}\n${entry.installationId}\n${entry.type}`;

type Live =
  | { kind: 'connecting' }
  | { kind: 'live' }
  | { kind: 'retrying'; reason: string }
  | { kind: 'unavailable'; reason: string };

function isEntry(value: unknown): value is EventEntry {
  const entry = value as Partial<EventEntry> | null;
  return (
    typeof entry === 'object' &&
    entry !== null &&
    typeof entry.eventId === 'string' &&
    typeof entry.type === 'string' &&
    typeof entry.status === 'number'
  );
}

/** Newest first, without duplicates, at most MAX_KEPT. */
function merge(fresh: EventEntry[], existing: EventEntry[]): EventEntry[] {
  const seen = new Set<string>();
  const out: EventEntry[] = [];
  for (const entry of [...fresh, ...existing]) {
    const key = keyOf(entry);
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(entry);
  }
  out.sort((a, b) => (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : 0));
  return out.slice(0, MAX_KEPT);
}

function matchesStatus(entry: EventEntry, status: string): boolean {
  if (status === '') return true;
  if (status === 'failed') return entry.errorCode !== undefined;
  return statusClass(entry.status) === status;
}

export function EventsPage(props: { query: URLSearchParams }) {
  const integrations = useLoad(() => api.get<{ items: IntegrationSummary[] }>('/v1/integrations'), []);
  const names = (integrations.data?.items ?? []).map((item) => item.name);
  const integration = props.query.get('integration') ?? names[0] ?? '';
  const type = props.query.get('type') ?? '';
  const status = props.query.get('status') ?? '';
  const installation = props.query.get('installation') ?? '';

  const [entries, setEntries] = useState<EventEntry[]>([]);
  const [cursor, setCursor] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [loading, setLoading] = useState(false);
  const [live, setLive] = useState<Live>({ kind: 'connecting' });
  const [fresh, setFresh] = useState<Set<string>>(new Set());
  const [announce, setAnnounce] = useState('');
  const newCount = useRef(0);

  const setQuery = (changes: Record<string, string>) => {
    const params = new URLSearchParams(props.query);
    if (!params.has('integration') && integration) params.set('integration', integration);
    for (const [key, value] of Object.entries(changes)) {
      if (value === '') params.delete(key);
      else params.set(key, value);
    }
    navigate(`${BASE}/events?${params}`, { replace: true });
  };

  const loadFirst = async (name: string) => {
    const page = await api.get<Page<EventEntry>>(`/v1/integrations/${segment(name)}/events?limit=${PAGE_SIZE}`);
    setEntries((previous) => merge(page.items, previous));
    setCursor((previous) => previous ?? page.nextCursor);
  };

  useEffect(() => {
    if (integration === '') return;
    setEntries([]);
    setCursor(null);
    setFresh(new Set());
    setError(null);
    setLoading(true);
    loadFirst(integration)
      .catch((caught: unknown) => setError(caught))
      .finally(() => setLoading(false));
  }, [integration]);

  useEffect(() => {
    if (integration === '') return;
    setLive({ kind: 'connecting' });
    const query = installation ? `?installation=${encodeURIComponent(installation)}` : '';
    const stream = `/v1/integrations/${segment(integration)}/events/stream${query}`;
    let opened = false;
    const stop = openEventStream(stream, {
      onOpen() {
        setLive({ kind: 'live' });
        // After a reconnect, fetch what arrived while the stream was down.
        if (opened) void loadFirst(integration).catch((caught: unknown) => setError(caught));
        opened = true;
      },
      onMessage(message) {
        if (message.event !== 'dispatch') return;
        let entry: unknown;
        try {
          entry = JSON.parse(message.data);
        } catch {
          return;
        }
        if (!isEntry(entry)) return;
        const arrived = entry;
        setEntries((previous) => merge([arrived], previous));
        setFresh((previous) => new Set(previous).add(keyOf(arrived)));
        newCount.current += 1;
        setAnnounce(
          `${newCount.current} new ` +
            `event${newCount.current === 1 ? '' : 's'}; ` +
            `latest: ${arrived.type}, status ${arrived.status}`,
        );
      },
      onError(failure: ApiError, retrying) {
        const reason =
          failure.status === 404 || failure.status === 405
            ? `this host has no event stream (GET ${stream} answered ${failure.status}); use Refresh`
            : failure.message;
        setLive(retrying ? { kind: 'retrying', reason } : { kind: 'unavailable', reason });
      },
    });
    return stop;
  }, [integration, installation]);

  const loadOlder = async () => {
    if (!cursor) return;
    setLoading(true);
    try {
      const page = await api.get<Page<EventEntry>>(
        `/v1/integrations/${segment(integration)}/events?limit=${PAGE_SIZE}&cursor=${encodeURIComponent(cursor)}`,
      );
      setEntries((previous) => merge(previous, page.items));
      setCursor(page.nextCursor);
    } catch (caught) {
      setError(caught);
    } finally {
      setLoading(false);
    }
  };

  const refresh = async () => {
    setLoading(true);
    try {
      await loadFirst(integration);
      setError(null);
    } catch (caught) {
      setError(caught);
    } finally {
      setLoading(false);
    }
  };

  const types = useMemo(
    () => [...new Set([...entries.map((entry) => entry.type), ...(type ? [type] : [])])].sort(),
    [entries, type],
  );
  const installations = useMemo(
    () =>
      [...new Set([...entries.map((entry) => entry.installationId), ...(installation ? [installation] : [])])].sort(),
    [entries, installation],
  );
  const shown = entries.filter(
    (entry) =>
      (type === '' || entry.type === type) &&
      matchesStatus(entry, status) &&
      (installation === '' || entry.installationId === installation),
  );

  return (
    <section>
      <h1 tabIndex={-1}>Event log</h1>
      <p class="lead">
        Every dispatch into an integration: public endpoint requests, platform events, setup events, renders,
        completions and OAuth callbacks.
      </p>
      <form class="filters" aria-label="Filter the event log" onSubmit={(event) => event.preventDefault()}>
        <div class="field">
          <label for="events-integration">Integration</label>
          <select
            id="events-integration"
            value={integration}
            onChange={(event) =>
              navigate(
                `${BASE}/events?integration=${encodeURIComponent((event.currentTarget as HTMLSelectElement).value)}`,
                { replace: true },
              )
            }
          >
            {names.map((name) => (
              <option key={name} value={name}>
                {name}
              </option>
            ))}
          </select>
        </div>
        <div class="field">
          <label for="events-type">Type</label>
          <select
            id="events-type"
            value={type}
            onChange={(event) => setQuery({ type: (event.currentTarget as HTMLSelectElement).value })}
          >
            <option value="">All types</option>
            {types.map((value) => (
              <option key={value} value={value}>
                {value}
              </option>
            ))}
          </select>
        </div>
        <div class="field">
          <label for="events-status">Status</label>
          <select
            id="events-status"
            value={status}
            onChange={(event) => setQuery({ status: (event.currentTarget as HTMLSelectElement).value })}
          >
            <option value="">All</option>
            <option value="ok">Succeeded (1xx–3xx)</option>
            <option value="client">Client errors (4xx)</option>
            <option value="server">Server errors (5xx)</option>
            <option value="failed">Failed in the host (error code)</option>
          </select>
        </div>
        <div class="field">
          <label for="events-installation">Installation</label>
          <select
            id="events-installation"
            value={installation}
            onChange={(event) => setQuery({ installation: (event.currentTarget as HTMLSelectElement).value })}
          >
            <option value="">All installations</option>
            {installations.map((value) => (
              <option key={value} value={value}>
                {value}
              </option>
            ))}
          </select>
        </div>
        <button type="button" onClick={refresh} disabled={loading || integration === ''}>
          Refresh
        </button>
      </form>
      <p class={`live live-${live.kind}`} role="status">
        {live.kind === 'live'
          ? 'Live: new dispatches appear as they happen.'
          : live.kind === 'connecting'
            ? 'Connecting to the live stream…'
            : live.kind === 'retrying'
              ? `Live updates interrupted (${live.reason}); reconnecting…`
              : `Live updates unavailable: ${live.reason}.`}
      </p>
      <p class="visually-hidden" aria-live="polite">
        {announce}
      </p>
      <ErrorAlert error={error} context="Could not read the event log" />
      {integrations.error ? <ErrorAlert error={integrations.error} context="Could not list the integrations" /> : null}
      {!loading && shown.length === 0 && !error ? (
        <p>No dispatch matches{entries.length > 0 ? ' these filters' : ' yet'}.</p>
      ) : null}
      <ol class="events" aria-label={`Dispatches of ${integration}`}>
        {shown.map((entry) => (
          <EventRow key={keyOf(entry)} entry={entry} fresh={fresh.has(keyOf(entry))} />
        ))}
      </ol>
      {cursor ? (
        <button type="button" onClick={loadOlder} disabled={loading}>
          {loading ? 'Loading…' : 'Load older entries'}
        </button>
      ) : null}
    </section>
  );
}

function EventRow(props: { entry: EventEntry; fresh: boolean }) {
  const { entry } = props;
  return (
    <li class={`event ${props.fresh ? 'fresh' : ''} status-${statusClass(entry.status)}`} data-event-id={entry.eventId}>
      <details>
        <summary>
          <span class="event-type mono">{entry.type}</span>
          <span class={`event-status badge badge-${statusClass(entry.status) === 'ok' ? 'good' : 'bad'}`}>
            {entry.status}
          </span>
          {entry.errorCode ? <span class="mono event-code">{entry.errorCode}</span> : null}
          <span class="event-duration">{formatDuration(entry.durationMs)}</span>
          <span class="mono sub">{entry.installationId}</span>
          {entry.version !== undefined ? <span class="badge event-version">v{entry.version}</span> : null}
          <span class="sub">{formatTime(entry.createdAt)}</span>
          {props.fresh ? <span class="badge badge-new">new</span> : null}
        </summary>
        <dl class="facts">
          <dt>Event id</dt>
          <dd class="mono">{entry.eventId}</dd>
          <dt>Installation</dt>
          <dd>
            <Link href={`${BASE}/installations/${encodeURIComponent(entry.installationId)}`}>
              <span class="mono">{entry.installationId}</span>
            </Link>
          </dd>
          <dt>Status</dt>
          <dd>{entry.status}</dd>
          <dt>Duration</dt>
          <dd>{formatDuration(entry.durationMs)}</dd>
          <dt>Error code</dt>
          <dd class="mono">{entry.errorCode ?? 'none'}</dd>
          <dt>Request id</dt>
          <dd class="mono">{entry.requestId ?? '—'}</dd>
          <dt>Version</dt>
          <dd>{entry.version !== undefined ? `published version ${entry.version}` : 'from a folder'}</dd>
          <dt>Recorded</dt>
          <dd>{formatTime(entry.createdAt)}</dd>
        </dl>
        <h3 class="logs-title">Console</h3>
        {entry.logs.length === 0 ? (
          <p class="sub">No console output.</p>
        ) : (
          <pre class="logs">
            {entry.logs.map((line, index) => (
              <div
                key={index}
                class={`log log-${line.level === 'error' ? 'error' : line.level === 'warn' ? 'warn' : 'info'}`}
              >
                <span class="log-level">{line.level}</span> {line.text}
              </div>
            ))}
          </pre>
        )}
      </details>
    </li>
  );
}
