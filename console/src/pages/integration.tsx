// One integration: what it is, its problems, scopes, visibility, blocks, configuration schema,
// its installations, and the form to install it.
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, segment } from '../api/client.ts';
import {
  BUILTIN_PREFIX,
  BUILTIN_WEBHOOK,
  type Installation,
  type IntegrationDetail,
  type Page,
  type Target,
} from '../api/types.ts';
import { renderMarkdown } from '../contentkit/markdown.ts';
import { putFlash } from '../flash.ts';
import { BASE, navigate } from '../router.ts';
import { ErrorAlert } from '../ui/alert.tsx';
import { CopyField } from '../ui/copy.tsx';
import { formatTime, targetOf } from '../ui/format.ts';
import { Link } from '../ui/link.tsx';
import { useLoad } from '../ui/use-load.ts';
import { fieldErrors, FieldError } from './field-errors.tsx';
import { propertySchema } from '../ui/configuration.ts';
import { Problems, StatusBadge } from './parts.tsx';
import { VersionsPanel } from './versions.tsx';

const LEVEL_TITLES = {
  account: 'Organization installations',
  space: 'Space installations',
  site: 'Site installations',
} as const;

function Markdown(props: { source: string }) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!box.current) return;
    box.current.replaceChildren(renderMarkdown(props.source));
  }, [props.source]);
  return <div class="markdown" ref={box} />;
}

export function IntegrationPage(props: { name: string }) {
  const { data, error, reload } = useLoad(
    () => api.get<IntegrationDetail>(`/v1/integrations/${segment(props.name)}`),
    [props.name],
  );
  if (error) {
    return (
      <section>
        <h1 tabIndex={-1}>{props.name}</h1>
        <ErrorAlert error={error} context="Could not load this integration" />
      </section>
    );
  }
  if (!data) return <p role="status">Loading…</p>;
  const configurations = data.configurations ?? {};
  const schemaEntries = (['account', 'space', 'site'] as const).flatMap((key) => {
    const schema = propertySchema(configurations[key]);
    return schema === undefined ? [] : [{ key, schema }];
  });
  return (
    <section>
      <p class="crumbs">
        <Link href={`${BASE}/integrations`}>Integrations</Link> / <span class="mono">{data.name}</span>
      </p>
      <h1 tabIndex={-1}>
        {data.title ?? data.name} <StatusBadge status={data.status} />
      </h1>
      {data.description ? <p class="lead">{data.description}</p> : null}
      {data.summary ? <Markdown source={data.summary} /> : null}
      {data.errors?.length ? (
        <Problems title="Problems (the integration cannot run until they are fixed)" items={data.errors} />
      ) : null}
      {data.warnings?.length ? <Problems title="Warnings" items={data.warnings} warning /> : null}

      <dl class="facts">
        <dt>Name</dt>
        <dd class="mono">{data.name}</dd>
        <dt>Organization</dt>
        <dd class="mono">{data.organization ?? '—'}</dd>
        <dt>Visibility</dt>
        <dd>{data.visibility ?? '—'}</dd>
        <dt>Source</dt>
        <dd>
          {data.published
            ? `published version ${data.published.version}, by ${data.published.publishedBy}`
            : 'a folder on this host'}
        </dd>
        <dt>Scopes</dt>
        <dd>
          {data.scopes?.length ? (
            <ul class="tags">
              {data.scopes.map((scope) => (
                <li key={scope} class="mono">
                  {scope}
                </li>
              ))}
            </ul>
          ) : (
            'none'
          )}
        </dd>
        <dt>Categories</dt>
        <dd>{data.categories?.length ? data.categories.join(', ') : '—'}</dd>
        <dt>Blocks</dt>
        <dd>
          {data.blocks?.length ? (
            <ul class="plain">
              {data.blocks.map((block) => (
                <li key={block.id}>
                  <span class="mono">{block.id}</span> — {block.title}
                  {block.description ? <span class="sub"> {block.description}</span> : null}
                </li>
              ))}
            </ul>
          ) : (
            'none'
          )}
        </dd>
        <dt>Components</dt>
        <dd>
          The blocks above are the components the manifest declares. A script may define more with{' '}
          <code>createComponent</code>; preview any of them by id from an installation’s Preview page.
        </dd>
        {data.externalLinks?.length ? (
          <>
            <dt>Links</dt>
            <dd>
              <ul class="plain">
                {data.externalLinks.map((link, index) => (
                  <li key={index}>
                    {link.label}: <span class="mono">{link.url}</span>
                  </li>
                ))}
              </ul>
            </dd>
          </>
        ) : null}
      </dl>

      {data.installLink ? (
        <section class="panel">
          <h2>Install link</h2>
          <p>
            This integration is unlisted: an organization other than {data.organization ?? 'its own'} installs it only
            with this link.
          </p>
          <CopyField label="Install link" value={data.installLink} />
        </section>
      ) : null}

      {schemaEntries.length > 0 ? (
        <section class="panel">
          <h2>Configuration schema</h2>
          {schemaEntries.map(({ key, schema }) => {
            return (
              <div key={key}>
                <h3>{LEVEL_TITLES[key]}</h3>
                <ul class="plain">
                  {Object.entries(schema.properties).map(([name, property]) => (
                    <li key={name}>
                      <span class="mono">{name}</span> ({property.type}
                      {schema.required?.includes(name) ? ', required' : ''}) — {property.title}
                      {property.type === 'string' && property.enum ? (
                        <span class="sub">{` one of: ${property.enum.join(', ')}`}</span>
                      ) : null}
                      {property.type === 'string' && property.completion_url ? (
                        <span class="sub">{` options from ${property.completion_url}`}</span>
                      ) : null}
                      {property.type === 'button' ? (
                        <span class="sub">{` a “${property.button_text}” flow at ${property.callback_url}`}</span>
                      ) : null}
                    </li>
                  ))}
                </ul>
              </div>
            );
          })}
        </section>
      ) : null}

      {/* Built-ins (`host:…`) read no manifest secrets, so the host stores none for them. */}
      {data.name.startsWith(BUILTIN_PREFIX) ? null : (
        <section class="panel">
          <h2>Secrets</h2>
          <p>
            Values the integration reads as <code>environment.secrets</code>, stored encrypted for every host:{' '}
            <Link href={`${BASE}/integrations/${encodeURIComponent(data.name)}/secrets`}>
              Manage the secrets of {data.name}
            </Link>
          </p>
        </section>
      )}
      {data.published ? <VersionsPanel name={data.name} onChanged={() => void reload()} /> : null}
      <IntegrationInstallations name={data.name} />
      {data.status === 'ready' ? (
        <InstallForm integration={data} />
      ) : (
        <p>Fix the problems above to install this integration.</p>
      )}
      <p>
        <Link href={`${BASE}/events?integration=${encodeURIComponent(data.name)}`}>
          Open the event log of {data.name}
        </Link>
      </p>
    </section>
  );
}

function IntegrationInstallations(props: { name: string }) {
  const { data, error } = useLoad(
    () => api.get<Page<Installation>>(`/v1/installations?integration=${encodeURIComponent(props.name)}&limit=50`),
    [props.name],
  );
  return (
    <section class="panel">
      <h2>Installations</h2>
      <ErrorAlert error={error} context="Could not list the installations" />
      {data && data.items.length === 0 ? <p>Not installed anywhere yet.</p> : null}
      {data && data.items.length > 0 ? <InstallationTable items={data.items} /> : null}
    </section>
  );
}

export function InstallationTable(props: { items: Installation[]; showIntegration?: boolean }) {
  return (
    <table class="list">
      <thead>
        <tr>
          <th scope="col">Installation</th>
          {props.showIntegration ? <th scope="col">Integration</th> : null}
          <th scope="col">Organization</th>
          <th scope="col">Target</th>
          <th scope="col">Status</th>
          <th scope="col">Created</th>
        </tr>
      </thead>
      <tbody>
        {props.items.map((installation) => (
          <tr key={installation.id}>
            <td>
              <Link href={`${BASE}/installations/${encodeURIComponent(installation.id)}`}>
                <span class="mono">{installation.id}</span>
              </Link>
            </td>
            {props.showIntegration ? <td class="mono">{installation.integration}</td> : null}
            <td class="mono">{installation.organization}</td>
            <td>{targetOf(installation)}</td>
            <td>
              <StatusBadge status={installation.status} />
            </td>
            <td>{formatTime(installation.createdAt)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function InstallForm(props: { integration: IntegrationDetail }) {
  const integration = props.integration;
  const [organization, setOrganization] = useState(integration.organization ?? '');
  const [target, setTarget] = useState<Target>(integration.name === BUILTIN_WEBHOOK ? 'space' : 'organization');
  const [space, setSpace] = useState('');
  const [site, setSite] = useState('');
  const [selection, setSelection] = useState<'all' | 'list'>('all');
  const [spaces, setSpaces] = useState('');
  const [installLink, setInstallLink] = useState(integration.installLink ?? '');
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const errors = fieldErrors(error, ['organization', 'target', 'space', 'site', 'space_selection', 'installLink']);

  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    const body: Record<string, unknown> = { organization: organization.trim(), target };
    if (target === 'space') body.space = space.trim();
    if (target === 'site') body.site = site.trim();
    if (target === 'organization' && selection === 'list') {
      body.space_selection = spaces
        .split(/[\s,]+/)
        .map((value) => value.trim())
        .filter(Boolean);
    }
    if (integration.visibility === 'unlisted' && installLink.trim() !== '') body.installLink = installLink.trim();
    try {
      const created = await api.post<Installation>(`/v1/integrations/${segment(integration.name)}/installations`, body);
      if (created.signingSecret) putFlash(`signing-secret:${created.id}`, created.signingSecret);
      navigate(`${BASE}/installations/${encodeURIComponent(created.id)}`);
    } catch (caught) {
      setError(caught);
    } finally {
      setBusy(false);
    }
  };

  const input = (
    id: string,
    label: string,
    value: string,
    set: (value: string) => void,
    field: string,
    hint?: string,
  ) => (
    <div class="field">
      <label for={id}>{label}</label>
      <input
        id={id}
        type="text"
        value={value}
        required
        aria-invalid={errors.has(field) ? 'true' : undefined}
        aria-describedby={
          [hint ? `${id}-hint` : '', errors.has(field) ? `${id}-error` : ''].filter(Boolean).join(' ') || undefined
        }
        onInput={(event) => set((event.currentTarget as HTMLInputElement).value)}
      />
      {hint ? (
        <p class="hint" id={`${id}-hint`}>
          {hint}
        </p>
      ) : null}
      <FieldError id={`${id}-error`} messages={errors.get(field)} />
    </div>
  );

  return (
    <section class="panel">
      <h2>Install {integration.title ?? integration.name}</h2>
      <form onSubmit={submit} noValidate>
        {input(
          'install-organization',
          'Organization',
          organization,
          setOrganization,
          'organization',
          'An organization id or subdomain of the platform data (for example acme).',
        )}
        <fieldset>
          <legend>Install into</legend>
          {(['organization', 'space', 'site'] as const).map((value) => (
            <label key={value} class="inline">
              <input
                type="radio"
                name="target"
                value={value}
                checked={target === value}
                onChange={() => setTarget(value)}
              />{' '}
              {value === 'organization' ? 'The whole organization' : value === 'space' ? 'A space' : 'A site'}
            </label>
          ))}
          <FieldError id="install-target-error" messages={errors.get('target')} />
        </fieldset>
        {target === 'space'
          ? input('install-space', 'Space id', space, setSpace, 'space', 'For example space_acme_docs.')
          : null}
        {target === 'site' ? input('install-site', 'Site id', site, setSite, 'site', 'For example site_acme.') : null}
        {target === 'organization' ? (
          <fieldset>
            <legend>Spaces it may reach</legend>
            <label class="inline">
              <input type="radio" name="selection" checked={selection === 'all'} onChange={() => setSelection('all')} />
              {' All spaces of the organization'}
            </label>
            <label class="inline">
              <input
                type="radio"
                name="selection"
                checked={selection === 'list'}
                onChange={() => setSelection('list')}
              />{' '}
              Only these spaces
            </label>
            {selection === 'list'
              ? input('install-spaces', 'Space ids (comma-separated)', spaces, setSpaces, 'space_selection')
              : null}
          </fieldset>
        ) : null}
        {integration.visibility === 'unlisted'
          ? input(
              'install-link',
              'Install link',
              installLink,
              setInstallLink,
              'installLink',
              'Needed when the organization is not the one that publishes the integration.',
            )
          : null}
        <ErrorAlert error={error} context="Could not install" />
        <button type="submit" class="primary" disabled={busy}>
          {busy ? 'Installing…' : 'Install'}
        </button>
      </form>
    </section>
  );
}
