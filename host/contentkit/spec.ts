// GitBook's OpenAPI document as the host validates against it: @gitbook/api's spec/openapi.json
// (the pinned dependency), read once, with the documented patches below applied to a private copy.
// The patches fix two bugs of the document and one ajv quirk; none of them changes what a correct
// ContentKit tree, event or render output is. Never hands out the parsed document for mutation.

import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

type Schema = Record<string, unknown>;
export interface OpenApiDocument {
  components: { schemas: Record<string, Schema> };
  [key: string]: unknown;
}

/** The ContentKit unions that carry a `discriminator` on `type` (validated with ajv's discriminator support). */
export const DISCRIMINATED_UNIONS = [
  'ContentKitDescendantElement',
  'ContentKitInlineElement',
  'ContentKitRootElement',
] as const;

/**
 * The patches, applied in code at load so that updating @gitbook/api keeps them visible:
 * 1. `PlainObject` has no `type`, so every string, number, boolean or array value matches both
 *    `PlainObject` (vacuously) and its own type inside a `oneOf`, and fails it: `{ "n": 3 }` would
 *    be an invalid props object. It gets `type: object`, which is what it describes.
 * 2. `UIRenderEvent` is `allOf [ oneOf [SpaceEvent, SiteEvent, InstallationEvent], … ]`, but a
 *    SpaceEvent or SiteEvent is also an InstallationEvent, so a render event with a `spaceId`
 *    matches two branches and fails the `oneOf`. That `oneOf` becomes an `anyOf`.
 * 3. Not a bug of the document: ajv's `discriminator` keyword lets a value that is not an object
 *    pass a discriminated union, where plain `oneOf` (every member is an object) would refuse it.
 *    The three discriminated ContentKit unions get `type: object`, which plain `oneOf` implies.
 */
export function patchSpec(document: OpenApiDocument): OpenApiDocument {
  const schemas = document.components.schemas;
  schemas.PlainObject = { ...schemas.PlainObject, type: 'object' };
  const render = schemas.UIRenderEvent as { allOf: Schema[] };
  const first = render.allOf[0] as { oneOf?: Schema[] };
  if (Array.isArray(first.oneOf)) render.allOf = [{ anyOf: first.oneOf }, ...render.allOf.slice(1)];
  for (const name of DISCRIMINATED_UNIONS) schemas[name] = { ...schemas[name], type: 'object' };
  return document;
}

/** A freshly parsed, patched document each call (callers hand it to ajv, which keeps it; nothing else holds it). */
export function loadGitBookSpec(): OpenApiDocument {
  const file = createRequire(import.meta.url).resolve('@gitbook/api/spec/openapi.json');
  return patchSpec(JSON.parse(readFileSync(file, 'utf8')) as OpenApiDocument);
}
