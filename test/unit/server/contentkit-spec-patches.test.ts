// The three patches host/contentkit/spec.ts applies to @gitbook/api's spec/openapi.json at load:
// each case fails against the document as shipped and passes (or, for the ajv quirk, fails as it
// must) against the patched one, so a spec update that fixes or changes them shows up here.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { patchSpec, type OpenApiDocument } from '../../../host/contentkit/spec.ts';

const raw = (): OpenApiDocument =>
  JSON.parse(readFileSync(createRequire(import.meta.url).resolve('@gitbook/api/spec/openapi.json'), 'utf8'));

function validator(document: OpenApiDocument, schema: string, discriminator = false) {
  const ajv = new Ajv({ strict: false, allErrors: true, discriminator });
  addFormats.default(ajv);
  ajv.addFormat('emoji', true).addFormat('icon', true);
  ajv.addSchema(document, 'openapi.json');
  return ajv.getSchema(`openapi.json#/components/schemas/${schema}`)!;
}

describe("the patches of GitBook's spec", () => {
  it('1. PlainObject gets type object, so props with numbers and strings validate', () => {
    const output = {
      type: 'element',
      element: { type: 'block', children: [] },
      state: {},
      props: { n: 3, s: 'x', list: [1, 'a'] },
    };
    expect(validator(raw(), 'ContentKitRenderOutputElement')(output)).toBe(false);
    expect(validator(patchSpec(raw()), 'ContentKitRenderOutputElement')(output)).toBe(true);
  });

  it("2. UIRenderEvent's inner oneOf becomes anyOf, so a render event with a spaceId validates", () => {
    const event = {
      eventId: 'evt_1',
      type: 'ui_render',
      installationId: 'inst_1',
      spaceId: 'space_1',
      componentId: 'c',
      props: {},
      context: { type: 'document', theme: 'light', spaceId: 'space_1', editable: true },
    };
    expect(validator(raw(), 'UIRenderEvent')(event)).toBe(false);
    expect(validator(patchSpec(raw()), 'UIRenderEvent')(event)).toBe(true);
  });

  it(
    "3. discriminated unions get type object, so ajv's discriminator refuses a non-element child as plain oneOf " +
      'does',
    () => {
      const block = { type: 'block', children: [false, 'text'] };
      expect(validator(raw(), 'ContentKitBlock')(block)).toBe(false); // plain oneOf
      expect(validator(raw(), 'ContentKitBlock', true)(block)).toBe(true); // the quirk
      expect(validator(patchSpec(raw()), 'ContentKitBlock', true)(block)).toBe(false);
    },
  );
});
