// One installation: its status and why, its public endpoint, the configuration form generated
// from the manifest's schema (or the webhook's own form), and uninstalling.
import { useState } from 'preact/hooks';
import { api, segment } from '../api/client.ts';
import { BUILTIN_WEBHOOK, type Installation, type IntegrationDetail } from '../api/types.ts';
import { takeFlash } from '../flash.ts';
import { BASE, navigate } from '../router.ts';
import { ErrorAlert, Notice } from '../ui/alert.tsx';
import { ConfirmButton } from '../ui/confirm.tsx';
import { CopyField } from '../ui/copy.tsx';
import { formatTime, targetOf } from '../ui/format.ts';
import { Link } from '../ui/link.tsx';
import { useLoad } from '../ui/use-load.ts';
import { ConfigForm } from './config-form.tsx';
import { schemaFor } from '../ui/configuration.ts';
import { pendingReasons, StatusBadge } from './parts.tsx';
import { WebhookConfigForm } from './webhook-config-form.tsx';

export interface InstallationContext {
  installation: Installation;
  integration: IntegrationDetail;
}

export async function loadInstallation(id: string): Promise<InstallationContext> {
  const installation = await api.get<Installation>(`/v1/installations/${segment(id)}`);
  const integration = await api.get<IntegrationDetail>(`/v1/integrations/${segment(installation.integration)}`);
  return { installation, integration };
}

export function InstallationTabs(props: {
  context: InstallationContext;
  current: 'configuration' | 'preview' | 'deliveries';
}) {
  const { installation } = props.context;
  const base = `${BASE}/installations/${encodeURIComponent(installation.id)}`;
  const tabs = [
    { key: 'configuration', href: base, label: 'Configuration' },
    ...(installation.integration === BUILTIN_WEBHOOK
      ? [{ key: 'deliveries', href: `${base}/deliveries`, label: 'Deliveries' }]
      : [{ key: 'preview', href: `${base}/preview`, label: 'Component preview' }]),
  ];
  return (
    <nav class="tabs" aria-label="Installation">
      <ul>
        {tabs.map((tab) => (
          <li key={tab.key}>
            <Link href={tab.href} aria-current={tab.key === props.current ? 'page' : undefined}>
              {tab.label}
            </Link>
          </li>
        ))}
        <li>
          <Link
            href={
              `${BASE}/events?integration=${encodeURIComponent(installation.integration)}` +
              `&installation=${encodeURIComponent(installation.id)}`
            }
          >
            Event log
          </Link>
        </li>
      </ul>
    </nav>
  );
}

export function InstallationHeader(props: {
  context: InstallationContext;
  current: 'configuration' | 'preview' | 'deliveries';
}) {
  const { installation, integration } = props.context;
  return (
    <>
      <p class="crumbs">
        <Link href={`${BASE}/integrations`}>Integrations</Link> /{' '}
        <Link href={`${BASE}/integrations/${encodeURIComponent(integration.name)}`}>
          {integration.title ?? integration.name}
        </Link>{' '}
        / <span class="mono">{installation.id}</span>
      </p>
      <h1 tabIndex={-1}>
        {integration.title ?? integration.name}: <span class="mono">{installation.id}</span>
      </h1>
      <InstallationTabs context={props.context} current={props.current} />
    </>
  );
}

function StatusPanel(props: { context: InstallationContext }) {
  const { installation, integration } = props.context;
  const reasons = pendingReasons(
    installation,
    schemaFor(integration.configurations, installation.target),
    installation.integration === BUILTIN_WEBHOOK,
  );
  let why: string;
  if (installation.status === 'active')
    why = 'Every required property has a value, so the installation receives events and dispatches.';
  else if (installation.status === 'pending')
    why = reasons.length > 0 ? `Waiting for: ${reasons.join(', ')}.` : 'Waiting for its required configuration.';
  else why = 'The installation is not active.';
  return (
    <div
      class={`status-panel status-${installation.status === 'active' ? 'active' : 'pending'}`}
      role="status"
      aria-live="polite"
    >
      <p>
        Status: <StatusBadge status={installation.status} />
      </p>
      <p class="why">{why}</p>
    </div>
  );
}

export function InstallationPage(props: { id: string }) {
  const loaded = useLoad(() => loadInstallation(props.id), [props.id]);
  const [secret] = useState(() => takeFlash(`signing-secret:${props.id}`));
  const [uninstallError, setUninstallError] = useState<unknown>(null);
  if (loaded.error) {
    return (
      <section>
        <h1 tabIndex={-1}>Installation {props.id}</h1>
        <ErrorAlert error={loaded.error} context="Could not load this installation" />
        <p>
          <Link href={`${BASE}/installations`}>All installations</Link>
        </p>
      </section>
    );
  }
  if (!loaded.data) return <p role="status">Loading…</p>;
  const context = loaded.data;
  const { installation, integration } = context;
  const update = (next: Installation) => loaded.set({ installation: next, integration });
  const schema = schemaFor(integration.configurations, installation.target);

  const uninstall = async () => {
    setUninstallError(null);
    try {
      await api.delete(`/v1/installations/${segment(installation.id)}`);
      navigate(`${BASE}/integrations/${encodeURIComponent(installation.integration)}`);
    } catch (caught) {
      setUninstallError(caught);
    }
  };

  return (
    <section>
      <InstallationHeader context={context} current="configuration" />
      <StatusPanel context={context} />
      {secret ? (
        <section class="panel secret-once">
          <h2>Signing secret</h2>
          <Notice tone="warning">
            This is the only time the host shows this secret. Copy it into your receiver now; later you can only rotate
            it.
          </Notice>
          <CopyField label="Signing secret" value={secret} secret />
        </section>
      ) : null}
      <dl class="facts">
        <dt>Integration</dt>
        <dd>
          <Link href={`${BASE}/integrations/${encodeURIComponent(integration.name)}`}>{integration.name}</Link>
        </dd>
        <dt>Organization</dt>
        <dd class="mono">{installation.organization}</dd>
        <dt>Target</dt>
        <dd>{targetOf(installation)}</dd>
        <dt>Installed</dt>
        <dd>{formatTime(installation.createdAt)}</dd>
      </dl>
      <CopyField label="Public endpoint" value={installation.urls.publicEndpoint} />

      <section class="panel">
        <h2>Configuration</h2>
        {installation.integration === BUILTIN_WEBHOOK ? (
          <WebhookConfigForm installation={installation} onSaved={update} />
        ) : schema && Object.keys(schema.properties).length > 0 ? (
          <ConfigForm installation={installation} schema={schema} onSaved={update} />
        ) : (
          <p>
            This integration declares no configuration for{' '}
            {installation.target === 'organization' ? 'organization' : 'space and site'} installations.
          </p>
        )}
      </section>

      <section class="panel danger-zone">
        <h2>Uninstall</h2>
        <p>Removes the installation and revokes its API token. Its configuration is deleted.</p>
        <ErrorAlert error={uninstallError} context="Could not uninstall" />
        <ConfirmButton
          label="Uninstall…"
          title={`Uninstall ${installation.id}?`}
          confirmLabel="Uninstall"
          danger
          onConfirm={uninstall}
        >
          <p>
            {integration.title ?? integration.name} stops receiving events for {targetOf(installation)} in{' '}
            {installation.organization}. This cannot be undone.
          </p>
        </ConfirmButton>
      </section>
    </section>
  );
}
