// The published versions of one integration (docs/console.md#pages): number, content hash,
// publisher, time, which is current, and a rollback to any other after a confirmation. Shown only
// for integrations served from the store; everything on screen is the API's text.
import { useState } from 'preact/hooks';
import { api, segment, type ApiError } from '../api/client.ts';
import type { VersionSummary } from '../api/types.ts';
import { ErrorAlert } from '../ui/alert.tsx';
import { ConfirmButton } from '../ui/confirm.tsx';
import { formatTime } from '../ui/format.ts';
import { useLoad } from '../ui/use-load.ts';

export function VersionsPanel(props: { name: string; onChanged(): void }) {
  const loaded = useLoad(
    () => api.get<{ items: VersionSummary[] }>(`/v1/integrations/${segment(props.name)}/versions`),
    [props.name],
  );
  const [actionError, setActionError] = useState<ApiError | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const rollBack = async (version: number) => {
    setBusy(true);
    setActionError(null);
    setNotice(null);
    try {
      await api.post<VersionSummary>(`/v1/integrations/${segment(props.name)}/versions/${version}/current`);
      await loaded.reload();
      setNotice(`Version ${version} is current: the next request runs it.`);
      props.onChanged();
    } catch (error) {
      setActionError(error as ApiError);
    } finally {
      setBusy(false);
    }
  };
  return (
    <section class="panel" aria-labelledby="versions-title">
      <h2 id="versions-title">Versions</h2>
      <p>
        Published with <code>integration-host publish</code>; every host on this store serves the current one.
      </p>
      <ErrorAlert error={loaded.error} context="Could not list the versions" />
      <ErrorAlert error={actionError} context="Could not roll back" />
      {notice ? <p role="status">{notice}</p> : null}
      {loaded.data ? (
        <table class="list versions">
          <thead>
            <tr>
              <th scope="col">Version</th>
              <th scope="col">Content hash</th>
              <th scope="col">Published by</th>
              <th scope="col">Published</th>
              <th scope="col">
                <span class="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {loaded.data.items.map((item) => (
              <tr key={item.version} data-version={item.version}>
                <td>
                  {item.version} {item.current ? <span class="badge badge-good">current</span> : null}
                </td>
                <td class="mono" title={item.contentHash}>
                  {item.contentHash.slice(0, 12)}
                </td>
                <td class="mono">{item.publishedBy}</td>
                <td>{formatTime(item.publishedAt)}</td>
                <td>
                  {item.current ? null : (
                    <ConfirmButton
                      label={`Roll back to ${item.version}`}
                      title={`Serve version ${item.version} of ${props.name}?`}
                      confirmLabel={`Serve version ${item.version}`}
                      disabled={busy}
                      onConfirm={() => void rollBack(item.version)}
                    >
                      <p>
                        The host starts it in an isolate first; if it starts, every host serves it from the next
                        request, and requests in flight finish on the version serving now.
                      </p>
                    </ConfirmButton>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </section>
  );
}
