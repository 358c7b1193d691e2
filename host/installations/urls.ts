// Where integrations and installations are reached: public endpoints, their API locations and the
// integration's assets. Pure; the one place that spells these URLs.

const segment = encodeURIComponent;

/**
 * An installation's public endpoint (organization, space or site installation alike); also its GitBook API location.
 */
export function publicEndpointOf(baseUrl: string, integration: string, installationId: string): string {
  return `${baseUrl}/v1/integrations/${segment(integration)}/installations/${segment(installationId)}`;
}

/**
 * The integration-level public endpoint (GitBook's `integration.urls.publicEndpoint`): one per integration, no
 * installation.
 */
export function integrationEndpointOf(baseUrl: string, integration: string): string {
  return `${baseUrl}/v1/integrations/${segment(integration)}/integration`;
}

/** Where the files of the integration's `assets/` folder are served. */
export function integrationAssetsOf(baseUrl: string, integration: string): string {
  return `${baseUrl}/v1/integrations/${segment(integration)}/assets`;
}

/** The admin view of an integration (its "location" and "app" in GitBook's objects). */
export function integrationLocationOf(baseUrl: string, integration: string): string {
  return `${baseUrl}/v1/integrations/${segment(integration)}`;
}

/** The admin view of an installation (GitBook's `urls.app`: where a person manages it). */
export function installationAppOf(baseUrl: string, installationId: string): string {
  return `${baseUrl}/v1/installations/${segment(installationId)}`;
}

/** The GitBook API location of a space or site installation: under its organization installation. */
export function contentInstallationLocationOf(
  baseUrl: string,
  integration: string,
  parentId: string,
  kind: 'spaces' | 'sites',
  contentId: string,
): string {
  return `${publicEndpointOf(baseUrl, integration, parentId)}/${kind}/${segment(contentId)}`;
}

/** The GitBook API location of an organization. */
export function organizationLocationOf(baseUrl: string, organization: string): string {
  return `${baseUrl}/v1/orgs/${segment(organization)}`;
}
