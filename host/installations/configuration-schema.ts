// Compiles a manifest's configuration (docs/manifest.md) into an ajv validator, once per integration and
// target, and turns ajv's errors into one ERR_CONFIGURATION_INVALID listing every property. Pure
// validation: it never stores, never decides the status, and never echoes a submitted value.

import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { HostError, type ErrorDetail } from '../common/errors.ts';
import type { ConfigProperty, ConfigurationSchema, LoadedIntegration } from '../manifest/types.ts';
import type { InstallationTarget } from './model.ts';
import { configurationSchemaFor } from './plan.ts';

// `required` is deliberately left out of the compiled schema: a missing required property is not
// an error but the reason an installation stays `pending` (docs/installations.md); statusFor decides that.
const ajv = new Ajv({ allErrors: true, strict: true });

// Keyed by the LoadedIntegration object: a reloaded integration is a new object, so a stale
// schema can never be served for it.
const cache = new WeakMap<LoadedIntegration, Map<InstallationTarget, ValidateFunction>>();

function propertySchema(property: ConfigProperty): Record<string, unknown> {
  switch (property.type) {
    case 'string':
      return property.enum ? { type: 'string', enum: property.enum } : { type: 'string' };
    case 'number':
      return { type: 'number' };
    case 'boolean':
      return { type: 'boolean' };
    case 'button':
      // A button property holds what its flow stored (OAuth credentials): an object.
      return { type: 'object' };
  }
}

function toJsonSchema(schema: ConfigurationSchema | undefined): Record<string, unknown> {
  const properties = Object.fromEntries(
    Object.entries(schema?.properties ?? {}).map(([name, property]) => [name, propertySchema(property)]),
  );
  return { type: 'object', properties, additionalProperties: false };
}

function validatorFor(integration: LoadedIntegration, target: InstallationTarget): ValidateFunction {
  let byTarget = cache.get(integration);
  if (byTarget === undefined) cache.set(integration, (byTarget = new Map()));
  let validate = byTarget.get(target);
  if (validate === undefined) {
    validate = ajv.compile(toJsonSchema(configurationSchemaFor(integration, target)));
    byTarget.set(target, validate);
  }
  return validate;
}

function escapeToken(token: string): string {
  return token.replaceAll('~', '~0').replaceAll('/', '~1');
}

function toDetail(error: ErrorObject): ErrorDetail {
  const params = error.params as Record<string, unknown>;
  if (error.keyword === 'additionalProperties') {
    return {
      pointer: `${error.instancePath}/${escapeToken(String(params.additionalProperty))}`,
      message: 'is not a property of this configuration',
    };
  }
  if (error.keyword === 'enum') {
    return {
      pointer: error.instancePath,
      message: `must be one of: ${(params.allowedValues as unknown[]).join(', ')}`,
    };
  }
  return { pointer: error.instancePath, message: error.message ?? 'is invalid' };
}

export function invalidConfiguration(details: ErrorDetail[]): HostError {
  const listed = details.map((detail) => `${detail.pointer}: ${detail.message}`).join('; ');
  return new HostError('ERR_CONFIGURATION_INVALID', `configuration is invalid: ${listed}`, details);
}

/** Every problem of `configuration` against the target's schema; empty when it is acceptable. */
export function checkConfiguration(
  integration: LoadedIntegration,
  target: InstallationTarget,
  configuration: Record<string, unknown>,
): ErrorDetail[] {
  const validate = validatorFor(integration, target);
  if (validate(configuration)) return [];
  return (validate.errors ?? []).map(toDetail);
}

/** Names of the target's button properties, with their `callback_url`. */
export function buttonProperties(integration: LoadedIntegration, target: InstallationTarget): [string, string][] {
  const properties = configurationSchemaFor(integration, target)?.properties ?? {};
  return Object.entries(properties).flatMap(([name, property]) =>
    property.type === 'button' ? [[name, property.callback_url] as [string, string]] : [],
  );
}
