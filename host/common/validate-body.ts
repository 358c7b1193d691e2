// Compiles the JSON Schemas of admin request bodies once and turns ajv's errors into one
// ERR_VALIDATION naming the field. Must never let a body that failed its schema reach a service.

import { Ajv, type ErrorObject, type SchemaObject } from 'ajv';
import { HostError, type ErrorDetail } from './errors.ts';

// verbose + the annotation keyword `failureMessage`: a failing subschema that carries one reports
// it instead of ajv's generic wording ("is required when target is space").
// strictRequired off: if/then branches name properties declared by the parent schema.
const ajv = new Ajv({ allErrors: true, strict: true, strictRequired: false, verbose: true });
ajv.addKeyword({ keyword: 'failureMessage', schemaType: 'string' });

function escapePointerToken(token: string): string {
  return token.replaceAll('~', '~0').replaceAll('/', '~1');
}

function toDetail(error: ErrorObject): ErrorDetail {
  let pointer = error.instancePath;
  const params = error.params as Record<string, unknown>;
  if (error.keyword === 'required') pointer += `/${escapePointerToken(String(params.missingProperty))}`;
  if (error.keyword === 'additionalProperties') {
    pointer += `/${escapePointerToken(String(params.additionalProperty))}`;
    return { pointer, message: 'is not a known field' };
  }
  const custom = (error.parentSchema as SchemaObject | undefined)?.failureMessage;
  if (typeof custom === 'string') return { pointer, message: custom };
  if (error.keyword === 'required') return { pointer, message: 'is required' };
  if (error.keyword === 'enum') {
    return { pointer, message: `must be one of: ${(params.allowedValues as unknown[]).join(', ')}` };
  }
  return { pointer, message: error.message ?? 'is invalid' };
}

/** `/target/0` → `target[0]`-ish readable name; the root is "body". */
function fieldName(pointer: string): string {
  if (pointer === '') return 'body';
  return pointer
    .slice(1)
    .split('/')
    .map((t) => t.replaceAll('~1', '/').replaceAll('~0', '~'))
    .join('.');
}

export function compileBodyValidator<T>(schema: SchemaObject): (body: unknown) => T {
  const validate = ajv.compile(schema);
  return (body: unknown): T => {
    if (validate(body)) return body as T;
    // if/then/else report both the inner failure and a summary "must match then": keep the inner one.
    const details = (validate.errors ?? []).filter((e) => e.keyword !== 'if').map(toDetail);
    const first = details[0] ?? { pointer: '', message: 'is invalid' };
    throw new HostError('ERR_VALIDATION', `${fieldName(first.pointer ?? '')} ${first.message}`, details);
  };
}
