// Every installation, filtered by integration, organization and target, a page at a time
// (GET /v1/installations).
import { useEffect, useState } from 'preact/hooks';
import { api } from '../api/client.ts';
import type { Installation, IntegrationSummary, Page } from '../api/types.ts';
import { BASE, navigate } from '../router.ts';
import { ErrorAlert } from '../ui/alert.tsx';
import { InstallationTable } from './integration.tsx';
import { useLoad } from '../ui/use-load.ts';

const PAGE_SIZE = 50;

export function InstallationsPage(props: { query: URLSearchParams }) {
  const integration = props.query.get('integration') ?? '';
  const organization = props.query.get('organization') ?? '';
  const target = props.query.get('target') ?? '';
  const integrations = useLoad(() => api.get<{ items: IntegrationSummary[] }>('/v1/integrations'), []);
  const [items, setItems] = useState<Installation[]>([]);
  const [cursor, setCursor] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [loading, setLoading] = useState(true);
  const [draft, setDraft] = useState({ integration, organization, target });

  const query = (after: string | null) => {
    const params = new URLSearchParams();
    if (integration) params.set('integration', integration);
    if (organization) params.set('organization', organization);
    if (target) params.set('target', target);
    params.set('limit', String(PAGE_SIZE));
    if (after) params.set('cursor', after);
    return `/v1/installations?${params}`;
  };

  const load = async (after: string | null) => {
    setLoading(true);
    try {
      const page = await api.get<Page<Installation>>(query(after));
      setItems((previous) => (after ? [...previous, ...page.items] : page.items));
      setCursor(page.nextCursor);
      setError(null);
    } catch (caught) {
      setError(caught);
    } finally {
      setLoading(false);
    }
  };

  useEffect(() => {
    setDraft({ integration, organization, target });
    void load(null);
  }, [integration, organization, target]);

  const apply = (event: Event) => {
    event.preventDefault();
    const params = new URLSearchParams();
    if (draft.integration) params.set('integration', draft.integration);
    if (draft.organization.trim()) params.set('organization', draft.organization.trim());
    if (draft.target) params.set('target', draft.target);
    navigate(`${BASE}/installations${params.size ? `?${params}` : ''}`);
  };

  return (
    <section>
      <h1 tabIndex={-1}>Installations</h1>
      <form class="filters" onSubmit={apply} aria-label="Filter installations">
        <div class="field">
          <label for="filter-integration">Integration</label>
          <select
            id="filter-integration"
            value={draft.integration}
            onChange={(event) => setDraft({ ...draft, integration: (event.currentTarget as HTMLSelectElement).value })}
          >
            <option value="">All</option>
            {(integrations.data?.items ?? []).map((entry) => (
              <option key={entry.name} value={entry.name}>
                {entry.name}
              </option>
            ))}
          </select>
        </div>
        <div class="field">
          <label for="filter-organization">Organization</label>
          <input
            id="filter-organization"
            type="text"
            value={draft.organization}
            onInput={(event) => setDraft({ ...draft, organization: (event.currentTarget as HTMLInputElement).value })}
          />
        </div>
        <div class="field">
          <label for="filter-target">Target</label>
          <select
            id="filter-target"
            value={draft.target}
            onChange={(event) => setDraft({ ...draft, target: (event.currentTarget as HTMLSelectElement).value })}
          >
            <option value="">All</option>
            <option value="organization">Organization</option>
            <option value="space">Space</option>
            <option value="site">Site</option>
          </select>
        </div>
        <button type="submit">Apply filters</button>
      </form>
      <ErrorAlert error={error} context="Could not list the installations" />
      {loading && items.length === 0 ? <p role="status">Loading…</p> : null}
      {!loading && !error && items.length === 0 ? <p>No installation matches.</p> : null}
      {items.length > 0 ? <InstallationTable items={items} showIntegration /> : null}
      {cursor ? (
        <button type="button" disabled={loading} onClick={() => load(cursor)}>
          {loading ? 'Loading…' : 'Load more'}
        </button>
      ) : null}
    </section>
  );
}
