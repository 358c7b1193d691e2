// The secrets of one integration: where each manifest secret's value comes from, the values stored
// for it (names, when and how set, the key; never a value), storing one and removing one. A value
// typed here goes to the host once and is cleared from the form; nothing shows it again.
import { useState } from 'preact/hooks';
import { api, segment } from '../api/client.ts';
import type { IntegrationSecrets, StoredSecret } from '../api/types.ts';
import { BASE } from '../router.ts';
import { ErrorAlert, Notice } from '../ui/alert.tsx';
import { ConfirmButton } from '../ui/confirm.tsx';
import { formatTime } from '../ui/format.ts';
import { Link } from '../ui/link.tsx';
import { useLoad } from '../ui/use-load.ts';
import { FieldError, fieldErrors } from './field-errors.tsx';
import { StatusBadge } from './parts.tsx';

const SOURCES = new Map<string, string>([
  ['store', 'stored here'],
  ['environment', 'the host’s environment'],
  ['manifest', 'written in the manifest'],
  ['missing', 'missing'],
]);

const SET_BY = new Map<string, string>([
  ['cli', 'npm run secrets'],
  ['api', 'admin API'],
  ['console', 'console'],
]);

/** Puts a name into the form and the focus on its value, where the next keystrokes belong. */
function chooseName(setName: (name: string) => void, name: string): void {
  setName(name);
  requestAnimationFrame(() => document.getElementById('secret-value')?.focus());
}

export function SecretsPage(props: { name: string }) {
  const loaded = useLoad(
    () => api.get<IntegrationSecrets>(`/v1/integrations/${segment(props.name)}/secrets`),
    [props.name],
  );
  const [name, setName] = useState('');
  const [notice, setNotice] = useState<string | null>(null);
  const [actionError, setActionError] = useState<unknown>(null);
  const data = loaded.data;

  const crumbs = (
    <p class="crumbs">
      <Link href={`${BASE}/integrations`}>Integrations</Link> /{' '}
      <Link href={`${BASE}/integrations/${encodeURIComponent(props.name)}`}>{props.name}</Link> / Secrets
    </p>
  );
  if (loaded.error && !data) {
    return (
      <section>
        {crumbs}
        <h1 tabIndex={-1}>Secrets of {props.name}</h1>
        <ErrorAlert error={loaded.error} context="Could not load the secrets" />
      </section>
    );
  }
  if (!data) return <p role="status">Loading…</p>;

  const remove = async (secret: StoredSecret) => {
    setActionError(null);
    setNotice(null);
    try {
      await api.delete(`/v1/integrations/${segment(props.name)}/secrets/${segment(secret.name)}`);
      await loaded.reload();
      setNotice(`Removed ${secret.name}.`);
    } catch (caught) {
      setActionError(caught);
    }
  };

  return (
    <section>
      {crumbs}
      <h1 tabIndex={-1}>
        Secrets of {data.integration} <StatusBadge status={data.status} />
      </h1>
      <p class="lead">
        A value stored here is encrypted in the host’s database, shared by every host on it, and used in place of the
        environment variable the manifest names. It is write-only: nothing shows it again. A change reaches the
        integration’s next request, without a restart.
      </p>
      {data.key.configured ? null : (
        <Notice tone="warning">
          This host has no secrets key, so it cannot store a value. Set <code>HOST_SECRETS_KEYS</code> (
          <code>npm run secrets -- new-key</code> prints one) for every host and restart them.
        </Notice>
      )}
      {notice ? <Notice tone="success">{notice}</Notice> : null}
      <ErrorAlert error={actionError} context="Could not remove the secret" />

      <section class="panel">
        <h2>What the manifest reads</h2>
        {data.manifest.length === 0 ? (
          <p>The manifest declares no secrets.</p>
        ) : (
          <table class="list">
            <thead>
              <tr>
                <th scope="col">Secret</th>
                <th scope="col">Variable</th>
                <th scope="col">Value from</th>
              </tr>
            </thead>
            <tbody>
              {data.manifest.map((entry) => (
                <tr key={entry.secret}>
                  <td class="mono">{entry.secret}</td>
                  <td class="mono">{entry.variable ?? '—'}</td>
                  <td>
                    {SOURCES.get(entry.source) ?? entry.source}
                    {entry.source === 'missing' && entry.variable !== undefined && data.key.configured ? (
                      <>
                        {' '}
                        <button type="button" onClick={() => chooseName(setName, entry.variable!)}>
                          Store {entry.variable}
                        </button>
                      </>
                    ) : null}
                    {entry.command ? (
                      <p class="hint">
                        or on the host: <code>{entry.command}</code>
                      </p>
                    ) : null}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>

      <section class="panel">
        <h2>Stored</h2>
        {data.items.length === 0 ? (
          <p>Nothing stored for {data.integration} yet.</p>
        ) : (
          <table class="list">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Set</th>
                <th scope="col">By</th>
                <th scope="col">Key</th>
                <th scope="col">Used by</th>
                <th scope="col">
                  <span class="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {data.items.map((secret) => (
                <tr key={secret.name}>
                  <td class="mono">{secret.name}</td>
                  <td>{formatTime(secret.setAt)}</td>
                  <td>{SET_BY.get(secret.setBy) ?? secret.setBy}</td>
                  <td>
                    {secret.keyId}
                    {secret.readable ? null : <p class="field-error">cannot be decrypted here: {secret.problem}</p>}
                  </td>
                  <td class="mono">
                    {secret.usedBy.length > 0 ? secret.usedBy.join(', ') : <span class="sub">no manifest secret</span>}
                  </td>
                  <td>
                    {data.key.configured ? (
                      <button type="button" onClick={() => chooseName(setName, secret.name)}>
                        Replace
                      </button>
                    ) : null}{' '}
                    <ConfirmButton
                      label="Remove"
                      title={`Remove ${secret.name}?`}
                      confirmLabel="Remove"
                      danger
                      onConfirm={() => void remove(secret)}
                    >
                      <p>
                        {data.integration} loses this value on its next request; if the manifest reads it and the host’s
                        environment does not provide it, the integration stops serving until it is stored again.
                      </p>
                    </ConfirmButton>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>

      {data.key.configured ? (
        <StoreForm
          integration={data.integration}
          name={name}
          onName={setName}
          onStored={async (message) => {
            setActionError(null);
            await loaded.reload();
            setNotice(message);
          }}
        />
      ) : null}
    </section>
  );
}

function StoreForm(props: {
  integration: string;
  name: string;
  onName(name: string): void;
  onStored(message: string): Promise<void>;
}) {
  const [value, setValue] = useState('');
  const [multiline, setMultiline] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const errors = fieldErrors(error, ['name', 'value']);

  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const stored = await api.put<StoredSecret & { integrationStatus: string }>(
        `/v1/integrations/${segment(props.integration)}/secrets/${segment(props.name.trim())}`,
        { value },
      );
      // The value leaves the page with the request: nothing keeps it.
      setValue('');
      await props.onStored(
        `Stored ${stored.name} (key ${stored.keyId}). ${props.integration} ` +
          `is ${stored.integrationStatus}; its next request uses the new value.`,
      );
    } catch (caught) {
      setError(caught);
    } finally {
      setBusy(false);
    }
  };

  const described = (id: string, field: string) =>
    [`${id}-hint`, errors.has(field) ? `${id}-error` : ''].filter(Boolean).join(' ');
  return (
    <section class="panel">
      <h2>Store a secret</h2>
      <form onSubmit={submit} noValidate autocomplete="off">
        <div class="field">
          <label for="secret-name">Name</label>
          <input
            id="secret-name"
            type="text"
            class="mono"
            value={props.name}
            required
            spellcheck={false}
            aria-invalid={errors.has('name') ? 'true' : undefined}
            aria-describedby={described('secret-name', 'name')}
            onInput={(event) => props.onName((event.currentTarget as HTMLInputElement).value)}
          />
          <p class="hint" id="secret-name-hint">
            The variable the manifest names in <code>{'${{ env.NAME }}'}</code>, for example{' '}
            <code>GITHUBCOPILOT_APP_ID</code>.
          </p>
          <FieldError id="secret-name-error" messages={errors.get('name')} />
        </div>
        <div class="field">
          <label for="secret-value">Value</label>
          {multiline ? (
            <textarea
              id="secret-value"
              rows={6}
              value={value}
              spellcheck={false}
              aria-invalid={errors.has('value') ? 'true' : undefined}
              aria-describedby={described('secret-value', 'value')}
              onInput={(event) => setValue((event.currentTarget as HTMLTextAreaElement).value)}
            />
          ) : (
            <input
              id="secret-value"
              type="password"
              value={value}
              autocomplete="new-password"
              aria-invalid={errors.has('value') ? 'true' : undefined}
              aria-describedby={described('secret-value', 'value')}
              onInput={(event) => setValue((event.currentTarget as HTMLInputElement).value)}
            />
          )}
          <p class="hint" id="secret-value-hint">
            Sent once to the host and cleared from this form; it is never shown again. At most 64 KiB.
          </p>
          <FieldError id="secret-value-error" messages={errors.get('value')} />
        </div>
        <div class="field field-checkbox">
          <input
            id="secret-multiline"
            type="checkbox"
            checked={multiline}
            onChange={(event) => setMultiline((event.currentTarget as HTMLInputElement).checked)}
          />
          <label for="secret-multiline">
            Multi-line value (a PEM key); the text you type is shown while you type it
          </label>
        </div>
        <ErrorAlert
          error={errors.unmatched.length > 0 || errors.size === 0 ? error : null}
          context="Could not store the secret"
        />
        <button type="submit" class="primary" disabled={busy}>
          {busy ? 'Storing…' : 'Store'}
        </button>
      </form>
    </section>
  );
}
