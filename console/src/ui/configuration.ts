// Which configuration schema applies where, as the host chooses it (docs/installations.md). Pure:
// used by the integration and installation pages, tested in Node.

import type { ConfigurationLevel, ConfigurationSchema, IntegrationDetail } from '../api/types.ts';

/** A level's property schema; none for GitBook's component form (`{ componentId }`). */
export function propertySchema(level: ConfigurationLevel | undefined): ConfigurationSchema | undefined {
  return level !== undefined && 'properties' in level ? level : undefined;
}

/**
 * The configuration schema that applies to an installation, as the host chooses it
 * (docs/installations.md): organization → account, space → space (else site), site → site.
 */
export function schemaFor(
  configurations: IntegrationDetail['configurations'],
  target: string,
): ConfigurationSchema | undefined {
  return propertySchema(
    target === 'organization'
      ? configurations?.account
      : target === 'space'
        ? (configurations?.space ?? configurations?.site)
        : configurations?.site,
  );
}
