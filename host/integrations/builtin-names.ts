// The namespace of the host's built-in integrations: each is named `host:<name>`, and a manifest
// name cannot hold a colon (letters, digits and dashes: manifest/schema.ts), so every name an
// author can write stays the author's and never meets a built-in. Pure.

import { HostError } from '../common/errors.ts';

export const BUILTIN_PREFIX = 'host:';

/** The name of the built-in whose own part is `local` (`webhook` → `host:webhook`). */
export function builtinName(local: string): string {
  return `${BUILTIN_PREFIX}${local}`;
}

export function isBuiltinName(name: string): boolean {
  return name.startsWith(BUILTIN_PREFIX);
}

/**
 * ERR_INTEGRATION_NOT_FOUND for `name`, pointing at the built-in of that own name when one exists:
 * a client written before built-ins had their namespace (`/v1/integrations/webhook/…`) is told
 * where the built-in went instead of meeting a bare 404.
 */
export function integrationNotFound(name: string, isBuiltin: (candidate: string) => boolean): HostError {
  const candidate = builtinName(name);
  const hint =
    !isBuiltinName(name) && isBuiltin(candidate) ? `; the host's built-in ${name} integration is "${candidate}"` : '';
  return new HostError('ERR_INTEGRATION_NOT_FOUND', `integration "${name}" not found${hint}`);
}
