// Every loaded integration with its status, visibility, scopes, blocks and problems.
import { api } from '../api/client.ts';
import type { IntegrationSummary } from '../api/types.ts';
import { BASE } from '../router.ts';
import { ErrorAlert } from '../ui/alert.tsx';
import { Link } from '../ui/link.tsx';
import { useLoad } from '../ui/use-load.ts';
import { Problems, StatusBadge } from './parts.tsx';

export function IntegrationsPage() {
  const { data, error, loading } = useLoad(() => api.get<{ items: IntegrationSummary[] }>('/v1/integrations'), []);
  return (
    <section>
      <h1 tabIndex={-1}>Integrations</h1>
      <p class="lead">
        Everything the host loaded from its integration folders, plus the built-in webhook integration.
      </p>
      <ErrorAlert error={error} context="Could not list the integrations" />
      {loading && !data ? <p role="status">Loading…</p> : null}
      {data ? (
        <table class="list">
          <caption class="visually-hidden">Integrations</caption>
          <thead>
            <tr>
              <th scope="col">Integration</th>
              <th scope="col">Status</th>
              <th scope="col">Visibility</th>
              <th scope="col">Scopes</th>
              <th scope="col">Blocks</th>
            </tr>
          </thead>
          <tbody>
            {data.items.map((integration) => (
              <tr key={integration.name}>
                <td>
                  <Link href={`${BASE}/integrations/${encodeURIComponent(integration.name)}`}>
                    {integration.title ?? integration.name}
                  </Link>
                  <div class="sub mono">{integration.name}</div>
                  {integration.description ? <div class="sub">{integration.description}</div> : null}
                  {integration.errors?.length ? (
                    <Problems
                      title={`${integration.errors.length} problem${integration.errors.length === 1 ? '' : 's'}`}
                      items={integration.errors}
                      compact
                    />
                  ) : null}
                </td>
                <td>
                  <StatusBadge status={integration.status} />
                </td>
                <td>{integration.visibility ?? '—'}</td>
                <td>
                  {integration.scopes?.length ? (
                    <ul class="tags">
                      {integration.scopes.map((scope) => (
                        <li key={scope} class="mono">
                          {scope}
                        </li>
                      ))}
                    </ul>
                  ) : (
                    'none'
                  )}
                </td>
                <td>
                  {integration.blocks?.length
                    ? integration.blocks.map((block) => block.title || block.id).join(', ')
                    : '—'}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </section>
  );
}
