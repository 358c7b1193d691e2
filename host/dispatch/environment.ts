// Builds the `environment` of an envelope (docs/authoring.md) from the host's own records, in
// GitBook's shape (`IntegrationEnvironment` of its spec): the integration, the organization
// installation, the space or site installation the dispatch concerns, tokens and signing secrets,
// plus this host's own view of the dispatched installation at the top level. Pure: the caller
// supplies tokens, secrets and records; nothing from an incoming request is ever copied in.

import type { Installation } from '../installations/model.ts';
import type { LoadedIntegration } from '../manifest/types.ts';
import { publicEndpointOf } from '../installations/urls.ts';
import { gitbookIntegration } from '../gitbook/integration.ts';
import {
  gitbookContentInstallation,
  gitbookInstallation,
  type InstallationShapeContext,
} from '../gitbook/installation.ts';

export interface EnvironmentInput {
  baseUrl: string;
  integration: LoadedIntegration;
  /** GitBook's Organization object of the integration's owner. */
  owner: Record<string, unknown>;
  shapes: InstallationShapeContext;
  tokens: { integration: string; installation?: string };
  signingSecrets: { integration: string; installation?: string; spaceInstallation?: string; siteInstallation?: string };
  /** The installation dispatched to; absent for dispatches to the integration itself (its endpoint, tasks). */
  installation?: Installation;
  /** The organization installation of a space or site installation. */
  parent?: Installation;
}

/**
 * This host's own view of the dispatched installation (the sandbox-api fields of
 * docs/authoring.md), at the top level of the environment: id, target, status, configuration,
 * its public endpoint, its space, site or space selection.
 */
function ownView(baseUrl: string, installation: Installation): Record<string, unknown> {
  return {
    id: installation.id,
    target: installation.target,
    organization: installation.organization,
    status: installation.status,
    configuration: installation.configuration,
    externalIds: installation.externalIds ?? [],
    urls: { publicEndpoint: publicEndpointOf(baseUrl, installation.integration, installation.id) },
    ...(installation.space ? { space: installation.space } : {}),
    ...(installation.site ? { site: installation.site } : {}),
    ...(installation.parent ? { parent: installation.parent } : {}),
    ...(installation.target === 'organization'
      ? {
          space_selection:
            installation.spaceSelection === undefined || installation.spaceSelection === 'all'
              ? { mode: 'all' }
              : { mode: 'selected', spaces: installation.spaceSelection },
        }
      : {}),
  };
}

/**
 * The `integration` object. For a platform-manifest.yaml integration dispatched to an installation,
 * its `urls.publicEndpoint` is that installation's public endpoint, as the specification says (its
 * OAuth sample builds `redirectURL` from it). A gitbook-manifest.yaml integration keeps GitBook's
 * meaning, the integration's own endpoint, which is also what every integration gets when there
 * is no installation (its own endpoint, tasks).
 */
function integrationOf(
  baseUrl: string,
  integration: LoadedIntegration,
  owner: Record<string, unknown>,
  installation: Installation | undefined,
): Record<string, unknown> {
  const shape = gitbookIntegration(baseUrl, integration, owner);
  if (integration.manifestKind === 'gitbook' || installation === undefined) return shape;
  const endpoint = publicEndpointOf(baseUrl, installation.integration, installation.id);
  // No separate content origin here either: the content endpoint stays equal to the endpoint.
  return {
    ...shape,
    urls: { ...(shape.urls as Record<string, unknown>), publicEndpoint: endpoint, publicContentEndpoint: endpoint },
  };
}

export function buildEnvironment(input: EnvironmentInput): Record<string, unknown> {
  const { baseUrl, integration, installation, parent, shapes } = input;
  const organizationInstallation = installation?.target === 'organization' ? installation : parent;
  const content = installation !== undefined && installation.target !== 'organization' ? installation : undefined;
  return {
    apiEndpoint: baseUrl,
    apiTokens: {
      integration: input.tokens.integration,
      ...(input.tokens.installation !== undefined ? { installation: input.tokens.installation } : {}),
    },
    integration: integrationOf(baseUrl, integration, input.owner, installation),
    ...(organizationInstallation !== undefined
      ? { installation: gitbookInstallation(shapes, organizationInstallation) }
      : {}),
    ...(content?.target === 'space' ? { spaceInstallation: gitbookContentInstallation(shapes, content) } : {}),
    ...(content?.target === 'site' ? { siteInstallation: gitbookContentInstallation(shapes, content) } : {}),
    signingSecrets: input.signingSecrets,
    secrets: { ...integration.secrets },
    // The platform's environment also carries the dispatched installation at its top level.
    ...(installation !== undefined ? ownView(baseUrl, installation) : {}),
  };
}
