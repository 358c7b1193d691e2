// The public JSON of an installation (docs/http-api.md): its record, its public endpoint and the
// absolute URL of each button's callback_url. Pure; it must never show a secret, a token, or what
// a button's flow stored (OAuth credentials), which stays with the integration's environment.

import type { LoadedIntegration } from '../manifest/types.ts';
import type { Installation, InstallationView } from './model.ts';
import { buttonProperties } from './configuration-schema.ts';
import { publicEndpointOf } from './urls.ts';

/** The callback URL with the connect ticket added to whatever query it already has. */
function buttonUrl(callback: string, ticket: string): string {
  const url = new URL(callback);
  url.searchParams.set('ticket', ticket);
  return url.toString();
}

/** Shown in place of a button property's stored value: the admin learns it is set, nothing more. */
const REDACTED = '[redacted]';

/**
 * `connectTicket` mints what each button URL carries (connect-ticket.ts): the view is what admins
 * see, so a button shown there can start its flow and a guessed URL cannot.
 */
export function viewInstallation(
  baseUrl: string,
  integration: LoadedIntegration | undefined,
  installation: Installation,
  connectTicket: (installationId: string) => string,
): InstallationView {
  const { spaceSelection, ...record } = installation;
  const publicEndpoint = publicEndpointOf(baseUrl, installation.integration, installation.id);
  const buttons = integration ? buttonProperties(integration, installation.target) : [];
  const configuration = { ...installation.configuration };
  for (const [name] of buttons) {
    if (Object.hasOwn(configuration, name) && configuration[name] !== undefined) configuration[name] = REDACTED;
  }
  return {
    ...record,
    configuration,
    ...(spaceSelection !== undefined ? { space_selection: spaceSelection } : {}),
    urls: {
      publicEndpoint,
      buttons: Object.fromEntries(
        buttons.map(([name, callbackUrl]) => [
          name,
          buttonUrl(`${publicEndpoint}${callbackUrl}`, connectTicket(installation.id)),
        ]),
      ),
    },
  };
}
