// Reading the host's OpenAPI document in tests: its operations, $refs, schema locations, the
// response an answer falls under, and one strict ajv (draft 2020-12) compiling its schemas in place.
// Never builds the document itself: callers hand it the document the host serves or creates.

import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { ValidateFunction } from 'ajv';

export type Doc = Record<string, any>;

export const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

export interface DocumentedOperation {
  path: string;
  method: string;
  operation: Record<string, any>;
}

export function operationsOf(doc: Doc): DocumentedOperation[] {
  return Object.entries(doc.paths as Record<string, Record<string, any>>).flatMap(([path, item]) =>
    HTTP_METHODS.filter((method) => item[method] !== undefined).map((method) => ({
      path,
      method,
      operation: item[method],
    })),
  );
}

const escapeToken = (token: string): string => token.replaceAll('~', '~0').replaceAll('/', '~1');
export const pointerOf = (...tokens: string[]): string => `/${tokens.map(escapeToken).join('/')}`;

/** The value at a JSON pointer (`#/a/b` or `/a/b`), or undefined. */
export function resolvePointer(doc: Doc, pointer: string): unknown {
  const tokens = pointer
    .replace(/^#?\//, '')
    .split('/')
    .map((token) => token.replaceAll('~1', '/').replaceAll('~0', '~'));
  let value: any = doc;
  for (const token of tokens) {
    if (value === null || typeof value !== 'object' || !Object.hasOwn(value, token)) return undefined;
    value = value[token];
  }
  return value;
}

/** Every `$ref` in the document with the pointer of the object holding it. */
export function refsOf(value: unknown, at = ''): { at: string; ref: string }[] {
  if (Array.isArray(value)) return value.flatMap((item, index) => refsOf(item, `${at}/${index}`));
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([key, child]) =>
    key === '$ref' && typeof child === 'string' ? [{ at, ref: child }] : refsOf(child, `${at}/${escapeToken(key)}`),
  );
}

/** Follows a `$ref` object (one level is all the document uses) to what it names. */
export function deref(doc: Doc, value: any): any {
  return value && typeof value.$ref === 'string' ? resolvePointer(doc, value.$ref) : value;
}

/** Pointers of every schema the document holds: components, parameters, request bodies, responses. */
export function schemaPointers(doc: Doc): string[] {
  const pointers = Object.keys(doc.components?.schemas ?? {}).map((name) => pointerOf('components', 'schemas', name));
  const contentSchemas = (base: string[], content: Record<string, any> | undefined) =>
    Object.keys(content ?? {})
      .filter((type) => content![type].schema !== undefined)
      .map((type) => pointerOf(...base, 'content', type, 'schema'));
  for (const [name, response] of Object.entries<any>(doc.components?.responses ?? {}))
    pointers.push(...contentSchemas(['components', 'responses', name], response.content));
  for (const { path, method, operation } of operationsOf(doc)) {
    (operation.parameters ?? []).forEach((parameter: any, index: number) => {
      if (parameter.schema !== undefined)
        pointers.push(pointerOf('paths', path, method, 'parameters', String(index), 'schema'));
    });
    if (operation.requestBody !== undefined)
      pointers.push(...contentSchemas(['paths', path, method, 'requestBody'], operation.requestBody.content));
    for (const [status, response] of Object.entries<any>(operation.responses ?? {}))
      pointers.push(...contentSchemas(['paths', path, method, 'responses', status], response.content));
  }
  return pointers;
}

/** A strict draft 2020-12 ajv holding the document; `validatorAt` compiles the schema at a pointer. */
export function documentAjv(doc: Doc): { validatorAt(pointer: string): ValidateFunction } {
  // strictRequired off: an if/then names properties its parent schema declares (the routes' own validators read it so).
  const ajv = new Ajv2020({ strict: true, strictRequired: false, allErrors: true });
  addFormats.default(ajv);
  // The document's own fields are not schema keywords; declared, so strict mode accepts the root.
  ajv.addVocabulary(Object.keys(doc).filter((key) => key !== '$id'));
  ajv.addSchema(doc, 'openapi.json');
  return {
    validatorAt(pointer) {
      const validate = ajv.getSchema(
        `openapi.json#${pointer
          .split('/')
          .map((token) => encodeURIComponent(token))
          .join('/')}`,
      );
      if (!validate) throw new Error(`no schema at ${pointer}`);
      return validate;
    },
  };
}

/**
 * The documented response an answer of `status` falls under (exact, then `4XX`, then `default`):
 * its key and the pointer of the response object (in components when the operation refers there).
 */
export function responseOf(
  doc: Doc,
  { path, method, operation }: DocumentedOperation,
  status: number,
): { key: string; pointer: string; response: any } | undefined {
  const responses = operation.responses ?? {};
  for (const key of [String(status), `${String(status)[0]}XX`, 'default']) {
    const found = responses[key];
    if (found === undefined) continue;
    const pointer =
      typeof found.$ref === 'string'
        ? found.$ref.replace(/^#/, '')
        : pointerOf('paths', path, method, 'responses', key);
    return { key, pointer, response: deref(doc, found) };
  }
  return undefined;
}

/**
 * The concrete path of a template, each `{name}` replaced by `values[name]` (segments encoded, `/` kept for
 * multi-segment parameters).
 */
export function fillPath(template: string, values: Record<string, string>): string {
  return template.replace(/\{([^}]+)\}/g, (_, name: string) => {
    if (values[name] === undefined) throw new Error(`no value for {${name}} of ${template}`);
    return values[name].split('/').map(encodeURIComponent).join('/');
  });
}
