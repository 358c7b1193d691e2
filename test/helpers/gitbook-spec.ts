// Test helper: validates values against a schema of GitBook's OpenAPI document (@gitbook/api
// spec/openapi.json with host/contentkit/spec.ts's documented patches) with an ajv of its own, in
// plain JSON Schema `oneOf` semantics (no discriminator), so it checks the host's validator rather
// than repeating it.

import { Ajv, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { expect } from 'vitest';
import { loadGitBookSpec } from '../../host/contentkit/spec.ts';

let ajv: Ajv | undefined;

function validatorFor(schema: string): ValidateFunction {
  if (ajv === undefined) {
    ajv = new Ajv({ strict: false, allErrors: true });
    addFormats.default(ajv);
    ajv.addFormat('emoji', true).addFormat('icon', true);
    ajv.addSchema(loadGitBookSpec(), 'openapi.json');
  }
  const validate = ajv.getSchema(`openapi.json#/components/schemas/${schema}`);
  if (!validate) throw new Error(`no schema ${schema} in the GitBook spec`);
  return validate;
}

/** Fails the test, listing ajv's errors, unless `value` is valid against `components/schemas/<schema>`. */
export function expectValidAgainstSpec(schema: string, value: unknown): void {
  const validate = validatorFor(schema);
  const valid = validate(value);
  expect(valid ? [] : (validate.errors ?? []).map((error) => `${error.instancePath || '/'} ${error.message}`), `${schema}: ${JSON.stringify(value).slice(0, 300)}`).toEqual([]);
}
