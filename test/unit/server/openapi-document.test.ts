// The OpenAPI document of the API listener: structurally valid OpenAPI 3.1 (every $ref resolves,
// every schema compiles as strict JSON Schema 2020-12, path parameters declared) and in step with
// the router both ways, so a route added without being documented (or documented and gone) fails.
import { readFileSync } from 'node:fs';
import type Router from '@koa/router';
import { describe, expect, it } from 'vitest';
import { createApiRouter } from '../../../host/server/app.ts';
import { createOpenApiDocument } from '../../../host/server/openapi/document.ts';
import {
  documentAjv,
  fillPath,
  operationsOf,
  refsOf,
  resolvePointer,
  schemaPointers,
  type Doc,
  type DocumentedOperation,
} from '../../helpers/openapi.ts';
import { createFakeServices } from './fake-services.ts';

const PACKAGE_VERSION = (
  JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;
const CONFIGURATIONS = [
  { label: 'without the console', console: false },
  { label: 'with the console', console: true },
];

const documentOf = (console: boolean): Doc => createOpenApiDocument({ version: PACKAGE_VERSION, console });
const routerOf = (console: boolean): Router =>
  createApiRouter(createFakeServices(), undefined, console ? { consoleUrl: 'http://127.0.0.1:1' } : {});

type Layer = Router['stack'][number];
/** Methods a route must document: those OpenAPI can name; HEAD is GET's (RFC 9110), so never required alone. */
const REQUIRED = new Set(['GET', 'PUT', 'POST', 'DELETE', 'OPTIONS', 'PATCH', 'TRACE']);

/** A request path for the operation: each parameter's first example, or a made-up segment. */
function samplePath({ path, operation }: DocumentedOperation): string {
  const values = Object.fromEntries(
    (operation.parameters ?? [])
      .filter((p: any) => p.in === 'path')
      .map((p: any) => [p.name, p.schema?.examples?.[0] ?? `sample-${p.name}`]),
  );
  return fillPath(path, values);
}

/** The layer that answers `method path`: the first registered that matches (handlers never call next). */
function answeringLayer(router: Router, method: string, path: string): Layer | undefined {
  return router.stack.find((layer) => layer.methods.includes(method.toUpperCase()) && layer.match(path));
}

const describeLayer = (layer: Layer, method: string): string => `${method} ${String(layer.path)}`;

function undocumentedRoutes(router: Router, doc: Doc): string[] {
  const documented = new Set<string>();
  for (const operation of operationsOf(doc)) {
    const layer = answeringLayer(router, operation.method, samplePath(operation));
    if (layer) documented.add(describeLayer(layer, operation.method.toUpperCase()));
  }
  return router.stack.flatMap((layer) =>
    layer.methods
      .filter((method) => REQUIRED.has(method))
      .map((method) => describeLayer(layer, method))
      .filter((route) => !documented.has(route)),
  );
}

function unroutedOperations(router: Router, doc: Doc): string[] {
  return operationsOf(doc)
    .filter((operation) => answeringLayer(router, operation.method, samplePath(operation)) === undefined)
    .map(({ method, path }) => `${method.toUpperCase()} ${path}`);
}

describe('the OpenAPI document', () => {
  const doc = documentOf(true);

  it("declares OpenAPI 3.1 with JSON Schema 2020-12 and the package's version", () => {
    expect(doc.openapi).toMatch(/^3\.1\.\d+$/);
    expect(doc.jsonSchemaDialect).toBe('https://json-schema.org/draft/2020-12/schema');
    expect(doc.info.version).toBe(PACKAGE_VERSION);
  });

  it('resolves every $ref inside the document', () => {
    const refs = refsOf(doc);
    expect(refs.length).toBeGreaterThan(0);
    expect(refs.filter(({ ref }) => !ref.startsWith('#/') || resolvePointer(doc, ref) === undefined)).toEqual([]);
  });

  it('holds only schemas that compile as strict JSON Schema 2020-12', () => {
    const ajv = documentAjv(doc);
    const failures = schemaPointers(doc).flatMap((pointer) => {
      try {
        ajv.validatorAt(pointer);
        return [];
      } catch (error) {
        return [`${pointer}: ${(error as Error).message}`];
      }
    });
    expect(failures).toEqual([]);
  });

  it('declares each path template parameter exactly once, as a required path parameter', () => {
    const problems = operationsOf(doc).flatMap(({ path, method, operation }) => {
      const inTemplate = [...path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]).sort();
      const declared = (operation.parameters ?? []).filter((p: any) => p.in === 'path');
      const names = declared.map((p: any) => p.name).sort();
      const optional = declared.filter((p: any) => p.required !== true).map((p: any) => p.name);
      return JSON.stringify(names) === JSON.stringify(inTemplate) && optional.length === 0
        ? []
        : [`${method} ${path}: template ${inTemplate} declared ${names} optional ${optional}`];
    });
    expect(problems).toEqual([]);
  });

  it('gives every operation a unique operationId and at least one response', () => {
    const operations = operationsOf(doc);
    const ids = operations.map(({ operation }) => operation.operationId);
    expect(ids.every((id) => typeof id === 'string' && id !== '')).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    expect(operations.filter(({ operation }) => Object.keys(operation.responses ?? {}).length === 0)).toEqual([]);
  });

  it('has no two paths that are one template under different parameter names', () => {
    const shapes = Object.keys(doc.paths).map((path) => path.replace(/\{[^}]+\}/g, '{}'));
    expect(shapes.filter((shape, index) => shapes.indexOf(shape) !== index)).toEqual([]);
  });

  it('names only security schemes it defines', () => {
    const schemes = Object.keys(doc.components.securitySchemes);
    const used = operationsOf(doc).flatMap(({ operation }) =>
      (operation.security ?? []).flatMap((requirement: object) => Object.keys(requirement)),
    );
    expect(used.filter((name) => !schemes.includes(name))).toEqual([]);
  });
});

describe.each(CONFIGURATIONS)('the document and the router $label', ({ console }) => {
  it('documents every route the router registers', () => {
    const router = routerOf(console);
    expect(router.stack.length).toBeGreaterThan(10);
    expect(undocumentedRoutes(router, documentOf(console))).toEqual([]);
  });

  it('documents only routes the router registers', () => {
    expect(unroutedOperations(routerOf(console), documentOf(console))).toEqual([]);
  });
});

describe('the coverage check itself', () => {
  it('reports a route added without being documented, and an operation without a route', () => {
    const router = routerOf(false);
    router.get('/v1/undocumented/:thing', (ctx) => {
      ctx.body = {};
    });
    expect(undocumentedRoutes(router, documentOf(false))).toEqual(['GET /v1/undocumented/:thing']);
    const doc = documentOf(false);
    doc.paths['/v1/nowhere'] = { get: { operationId: 'nowhere', responses: { 200: { description: 'never' } } } };
    expect(unroutedOperations(routerOf(false), doc)).toEqual(['GET /v1/nowhere']);
  });
});
