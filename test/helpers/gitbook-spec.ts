// Test helper: validates values against a schema of GitBook's OpenAPI document (@gitbook/api
// spec/openapi.json with host/contentkit/spec.ts's documented patches, and one of its own below)
// with an ajv of its own, in plain JSON Schema `oneOf` semantics (no discriminator), so it checks
// the host's validator rather than repeating it.

import { Ajv, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { expect } from 'vitest';
import { loadGitBookSpec } from '../../host/contentkit/spec.ts';

let ajv: Ajv | undefined;

/**
 * The spec as the tests read it. One patch beyond the host's (docs/gitbook.md): a page_edited
 * change's `attributes` is a `oneOf` of the document, group and link attribute schemas, none of
 * which forbids other properties, so any attributes object matches all three and no page_edited
 * change could ever be valid; read as `anyOf` (it must still match one of them).
 */
function testSpec(): Record<string, any> {
  const spec = loadGitBookSpec() as Record<string, any>;
  const edited = spec.components.schemas.RevisionSemanticChangePageEdited.properties.attributes;
  edited.anyOf = edited.oneOf;
  delete edited.oneOf;
  return spec;
}

function specAjv(): Ajv {
  if (ajv === undefined) {
    ajv = new Ajv({ strict: false, allErrors: true });
    addFormats.default(ajv);
    ajv.addFormat('emoji', true).addFormat('icon', true);
    ajv.addSchema(testSpec(), 'openapi.json');
  }
  return ajv;
}

function validatorFor(schema: string): ValidateFunction {
  const validate = specAjv().getSchema(`openapi.json#/components/schemas/${schema}`);
  if (!validate) throw new Error(`no schema ${schema} in the GitBook spec`);
  return validate;
}

function expectValid(validate: ValidateFunction, name: string, value: unknown): void {
  const valid = validate(value);
  expect(
    valid ? [] : (validate.errors ?? []).map((error) => `${error.instancePath || '/'} ${error.message}`),
    `${name}: ${JSON.stringify(value).slice(0, 300)}`,
  ).toEqual([]);
}

/** Fails the test, listing ajv's errors, unless `value` is valid against `components/schemas/<schema>`. */
export function expectValidAgainstSpec(schema: string, value: unknown): void {
  expectValid(validatorFor(schema), schema, value);
}

/**
 * Fails the test unless `value` is valid against the JSON 200 answer of the operation `operationId` (for answers the
 * spec gives no schema name).
 */
export function expectValidAnswerOf(operationId: string, value: unknown): void {
  const paths = testSpec().paths as Record<string, Record<string, { operationId?: string }>>;
  const found = Object.entries(paths).flatMap(([path, operations]) =>
    Object.entries(operations).flatMap(([method, operation]) =>
      operation?.operationId === operationId ? [[path, method]] : [],
    ),
  )[0];
  if (found === undefined) throw new Error(`no operation ${operationId} in the GitBook spec`);
  const pointer = ['paths', found[0], found[1], 'responses', '200', 'content', 'application/json', 'schema']
    .map((token) => encodeURIComponent(token.replaceAll('~', '~0').replaceAll('/', '~1')))
    .join('/');
  const validate = specAjv().getSchema(`openapi.json#/${pointer}`);
  if (!validate) throw new Error(`no 200 JSON answer for ${operationId}`);
  expectValid(validate, operationId, value);
}
