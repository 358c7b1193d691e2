// Checks a parsed manifest document against the schema and turns ajv's errors into one clear
// message per real problem, each at a JSON pointer. Pure: no file system, no environment; never
// echoes a value found under /secrets.

import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { SourcePosition } from '../common/code-frame.ts';
import { manifestSchema, PROPERTY_KEY_TYPES } from './schema.ts';
import { closestKey, didYouMean } from './suggest.ts';

/** A problem before it is attached to its file (load.ts adds `file`); `at` when it has a place in the text. */
export interface Issue {
  pointer: string;
  message: string;
  at?: SourcePosition;
}

let compiled: ValidateFunction | undefined;

function compileSchema(): ValidateFunction {
  // verbose: errors carry the offending value, so messages can say what was found.
  const ajv = new Ajv({ allErrors: true, strict: true, verbose: true });
  addFormats.default(ajv, { mode: 'full', formats: ['uri'] });
  return ajv.compile(manifestSchema);
}

/** Schema problems of `doc`, in document order, without duplicates. */
export function checkSchema(doc: unknown): Issue[] {
  compiled ??= compileSchema();
  if (compiled(doc)) return [];
  const issues: Issue[] = [];
  const seen = new Set<string>();
  for (const error of compiled.errors ?? []) {
    const issue = describeError(error);
    const key = issue && `${issue.pointer}\u0000${issue.message}`;
    if (!issue || seen.has(key!)) continue;
    seen.add(key!);
    issues.push(issue);
  }
  return issues;
}

export function escapePointer(segment: string | number): string {
  return String(segment).replace(/~/g, '~0').replace(/\//g, '~1');
}

function describeError(e: ErrorObject): Issue | null {
  const at = e.instancePath;
  const key = lastSegment(at);
  // Secret values must never reach a message, even a wrong one.
  const got = (value: unknown): string => (at.startsWith('/secrets') ? '' : ` (got ${show(value)})`);
  const params = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case 'if': // the specific error from the matching `then` is reported instead
      return null;
    case 'required': {
      const missing = String(params.missingProperty);
      const type = e.schemaPath.includes('/then/') ? (e.data as { type?: string }).type : undefined;
      const why = type ? ` (${type} properties need it)` : '';
      // A key written with a typo is both unknown and missing: say which one it probably is.
      const written = isRecord(e.data)
        ? Object.keys(e.data).filter((key) => closestKey(key, [missing]) === missing)
        : [];
      const typo = written.length > 0 ? ` (is "${written[0]}" a misspelling of it?)` : '';
      return {
        pointer: `${at}/${escapePointer(missing)}`,
        message: `required key "${missing}" is missing${why}${typo}`,
      };
    }
    case 'additionalProperties': {
      const extra = String(params.additionalProperty);
      const known = isRecord(e.parentSchema?.properties) ? Object.keys(e.parentSchema.properties) : [];
      return {
        pointer: `${at}/${escapePointer(extra)}`,
        message: `unknown key "${extra}"${didYouMean(extra, known).replace(/^; /, ': ')}`,
      };
    }
    case 'false schema': {
      const types = PROPERTY_KEY_TYPES[key] ?? [];
      return { pointer: at, message: `"${key}" is only allowed on ${joinWords(types)} properties` };
    }
    case 'enum':
      return { pointer: at, message: `must be one of ${(params.allowedValues as unknown[]).join(', ')}${got(e.data)}` };
    case 'type': {
      const wanted = `must be ${article(String(params.type))} (got ${kindOf(e.data)})`;
      return { pointer: at, message: key === 'default' ? `default ${wanted}` : wanted };
    }
    case 'minLength':
    case 'minItems':
      return { pointer: at, message: 'must not be empty' };
    case 'maxItems':
      return { pointer: at, message: `must have at most ${params.limit} items (got ${(e.data as unknown[]).length})` };
    case 'maxLength':
      return { pointer: at, message: `must be at most ${params.limit} characters (got ${String(e.data).length})` };
    case 'uniqueItems': {
      const [first, later] = [Number(params.i), Number(params.j)].sort((a, b) => a - b);
      return { pointer: `${at}/${later}`, message: `duplicate of item ${first}${got((e.data as unknown[])[later])}` };
    }
    case 'propertyNames': {
      const name = String(params.propertyName);
      return {
        pointer: `${at}/${escapePointer(name)}`,
        message: `secret name "${name}" must start with a letter or "_" and contain only letters, digits and "_"`,
      };
    }
    case 'pattern':
    case 'format':
      // The inner error of propertyNames (it carries `propertyName`) is covered by the outer one.
      if ((e as { propertyName?: string }).propertyName !== undefined) return null;
      return { pointer: at, message: describeFormat(key, got(e.data)) ?? `${e.message}${got(e.data)}` };
    default:
      return { pointer: at, message: `${e.message ?? e.keyword}${got(e.data)}` };
  }
}

function describeFormat(key: string, got: string): string | undefined {
  if (key === 'name') return `must be kebab-case: letters, digits and single dashes, e.g. "my-integration"${got}`;
  if (key === 'url') return `must be an absolute http(s) URL${got}`;
  if (key === 'completion_url' || key === 'callback_url') {
    return `must be a path on the integration's endpoint starting with "/", e.g. "/oauth"${got}`;
  }
  return undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function lastSegment(pointer: string): string {
  const raw = pointer.slice(pointer.lastIndexOf('/') + 1);
  return raw.replace(/~1/g, '/').replace(/~0/g, '~');
}

function show(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

function kindOf(value: unknown): string {
  if (value === null) return 'null';
  return Array.isArray(value) ? 'an array' : article(typeof value);
}

function article(type: string): string {
  return /^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`;
}

function joinWords(words: readonly string[]): string {
  return words.length < 2 ? words.join('') : `${words.slice(0, -1).join(', ')} and ${words.at(-1)}`;
}
