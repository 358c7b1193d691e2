// What a stored secret may be called and hold: the integration as a manifest names it, the secret
// as a `${{ env.NAME }}` template names its variable, a value of well-formed text up to 64 KiB.
// Pure; a refusal names the field and the rule, never echoes a value.

import { HostError } from '../common/errors.ts';

/** The manifest's `name` rule (manifest/schema.ts). */
const INTEGRATION_NAME = /^[A-Za-z0-9]+(-[A-Za-z0-9]+)*$/;
const MAX_INTEGRATION_NAME = 64;
/** A variable a template can name (manifest/secrets.ts). */
const SECRET_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
export const MAX_SECRET_NAME = 128;
/** A GitHub App's RSA private key is under 4 KiB; 64 KiB leaves room for any credential bundle. */
export const MAX_SECRET_VALUE_BYTES = 64 * 1024;

function refuse(pointer: string, message: string): never {
  throw new HostError('ERR_VALIDATION', `${pointer}: ${message}`, [{ pointer, message }]);
}

/** Shown quoted only when it is short and plain: a name is an identifier, but a refused one may be anything. */
function shown(text: string): string {
  return text.length <= 80 && /^[\x20-\x7e]*$/.test(text) ? ` (got ${JSON.stringify(text)})` : '';
}

export function checkIntegrationName(name: unknown, pointer = '/integration'): string {
  if (
    typeof name !== 'string' ||
    name.length === 0 ||
    name.length > MAX_INTEGRATION_NAME ||
    !INTEGRATION_NAME.test(name)
  ) {
    refuse(
      pointer,
      `must be an integration name: letters, digits and single dashes, at most ${MAX_INTEGRATION_NAME} ` +
        `characters${typeof name === 'string' ? shown(name) : ''}`,
    );
  }
  return name;
}

export function checkSecretName(name: unknown, pointer = '/name'): string {
  if (typeof name !== 'string' || name.length === 0 || name.length > MAX_SECRET_NAME || !SECRET_NAME.test(name)) {
    refuse(
      pointer,
      `must be the variable a manifest's \${{ env.NAME }} names: a letter or _, then letters, digits and ` +
        `_, at most ${MAX_SECRET_NAME} characters${typeof name === 'string' ? shown(name) : ''}`,
    );
  }
  return name;
}

export function checkSecretValue(value: unknown, pointer = '/value'): string {
  if (typeof value !== 'string') refuse(pointer, 'must be a string');
  if (value === '') refuse(pointer, 'must not be empty (unset the secret instead)');
  // A lone surrogate would be stored as U+FFFD: the integration would get another value than sent.
  if (!value.isWellFormed()) refuse(pointer, 'must be well-formed Unicode text (it holds a lone surrogate)');
  const bytes = Buffer.byteLength(value, 'utf8');
  if (bytes > MAX_SECRET_VALUE_BYTES)
    refuse(pointer, `is ${bytes} bytes; a secret holds at most ${MAX_SECRET_VALUE_BYTES} bytes (64 KiB)`);
  return value;
}
