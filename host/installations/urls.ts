// Where an installation is reached: its public endpoint URL. Pure; the one place that spells it.

export function publicEndpointOf(baseUrl: string, integration: string, installationId: string): string {
  return `${baseUrl}/v1/integrations/${encodeURIComponent(integration)}/installations/${encodeURIComponent(installationId)}`;
}
