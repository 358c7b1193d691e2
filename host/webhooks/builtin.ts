// The built-in `webhook` integration as the host lists and installs it (docs/webhooks.md): trusted host
// code with no bundle, installable on spaces and sites, configured with `url` and `events`, and a
// signing secret created at installation (returned once) and removed at uninstall.

import type { EgressOptions } from '../bridge/egress-policy.ts';
import type { LoadedIntegration } from '../manifest/types.ts';
import { checkWebhookConfiguration, isWebhookConfigurationComplete, WEBHOOK_INTEGRATION_NAME } from './config.ts';
import type { SigningSecretStore } from './secrets.ts';

export function createWebhookIntegration(secrets: SigningSecretStore, egress: EgressOptions): LoadedIntegration {
  return {
    name: WEBHOOK_INTEGRATION_NAME,
    dir: '(built in)',
    manifestPath: '(built in)',
    status: 'ready',
    manifest: {
      name: WEBHOOK_INTEGRATION_NAME,
      title: 'Webhook',
      description:
        'Forwards selected events to your URL, signed with ' +
        'HMAC-SHA256 (X-Platform-Signature) and retried with backoff.',
      organization: 'platform',
      visibility: 'public',
      scopes: [],
      categories: ['other'],
    },
    secrets: {},
    errors: [],
    warnings: [],
    builtin: {
      targets: ['space', 'site'],
      checkConfiguration: (configuration, target) => checkWebhookConfiguration(configuration, target, egress),
      isComplete: isWebhookConfigurationComplete,
      onInstall: async (installationId) => ({ signingSecret: await secrets.create(installationId) }),
      onUninstall: (installationId) => secrets.remove(installationId),
    },
  };
}
