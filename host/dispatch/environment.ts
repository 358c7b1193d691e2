// Builds the `environment` of an envelope (docs/authoring.md) from the host's own records. Pure: the
// caller supplies the token and secrets; nothing from an incoming request is ever copied in.

import type { Installation } from '../installations/model.ts';
import type { LoadedIntegration } from '../manifest/types.ts';
import { publicEndpointOf } from '../installations/urls.ts';

export interface EnvironmentInput {
  baseUrl: string;
  integration: LoadedIntegration;
  installation: Installation;
  installationToken: string;
}

export function buildEnvironment({ baseUrl, integration, installation, installationToken }: EnvironmentInput): Record<string, unknown> {
  const publicEndpoint = publicEndpointOf(baseUrl, integration.name, installation.id);
  const urls = { publicEndpoint };
  const installationView = {
    id: installation.id,
    target: installation.target,
    organization: installation.organization,
    status: installation.status,
    configuration: installation.configuration,
    externalIds: [],
    urls,
    ...(installation.space ? { space: installation.space } : {}),
    ...(installation.site ? { site: installation.site } : {}),
    ...(installation.target === 'organization' ? { space_selection: installation.spaceSelection === undefined || installation.spaceSelection === 'all' ? { mode: 'all' } : { mode: 'selected', spaces: installation.spaceSelection } } : {}),
  };
  return {
    apiEndpoint: baseUrl,
    apiTokens: { installation: installationToken },
    integration: {
      name: integration.name,
      title: integration.manifest?.title ?? integration.name,
      scopes: integration.manifest?.scopes ?? [],
      // GitBook's spec: "equals publicEndpoint when no separate content origin is configured",
      // which this host never has; webframe pages (mermaid, plantuml) are served from it.
      urls: { publicEndpoint, publicContentEndpoint: publicEndpoint },
    },
    installation: installationView,
    // The platform's environment also carries these at its top level (docs/authoring.md).
    ...installationView,
    secrets: { ...integration.secrets },
  };
}
