// Platform event payloads for `POST /v1/events`: valid events generated from the schemas of
// host/events/schemas.ts, structural mutations of them, and random JSON.

import fc from 'fast-check';
import { PUBLISHABLE_EVENTS } from '../../../host/events/schemas.ts';
import { jsonish, jsonObject } from './json.ts';
import { mutate, mutation } from './mutate.ts';

interface Schema {
  type?: string;
  minLength?: number;
  enum?: readonly string[];
  required?: readonly string[];
  properties?: Record<string, Schema>;
  additionalProperties?: boolean | Schema;
}

// Ids of the seed's platform data, so some valid events reach installations.
const spaceId = fc.oneof(fc.constantFrom('space_acme_docs', 'space_nope'), fc.string({ minLength: 1, maxLength: 10 }));
const siteId = fc.oneof(fc.constant('site_acme'), fc.string({ minLength: 1, maxLength: 10 }));

function fromSchema(name: string, schema: Schema): fc.Arbitrary<unknown> {
  if (schema.enum) return fc.constantFrom(...schema.enum);
  if (schema.type === 'string') {
    if (name === 'spaceId') return spaceId;
    if (name === 'siteId') return siteId;
    return fc.string({ minLength: schema.minLength ?? 0, maxLength: 12 });
  }
  if (schema.type === 'object' && schema.properties) {
    const props = Object.fromEntries(
      Object.entries(schema.properties).map(([key, sub]) => [key, fromSchema(key, sub)]),
    );
    return fc.record(props, { requiredKeys: [...(schema.required ?? [])] });
  }
  if (schema.type === 'object')
    return fc.dictionary(fc.string({ maxLength: 6 }), fc.string({ maxLength: 6 }), { maxKeys: 3 });
  throw new Error(`no generator for ${name}`);
}

/** One valid event of each publishable type (JSON round-tripped). */
export const validEvent: fc.Arbitrary<Record<string, unknown>> = fc
  .oneof(
    ...Object.entries(PUBLISHABLE_EVENTS).map(([type, schema]) =>
      (fromSchema(type, schema as Schema) as fc.Arbitrary<Record<string, unknown>>).map((event) => ({
        ...event,
        type,
      })),
    ),
  )
  .map((event) => JSON.parse(JSON.stringify(event)) as Record<string, unknown>);

/** Mutated valid events, random objects, and values that are not objects at all. */
export const eventPayload: fc.Arbitrary<unknown> = fc
  .oneof(
    {
      weight: 4,
      arbitrary: fc
        .tuple(validEvent, fc.array(mutation, { minLength: 1, maxLength: 3 }))
        .map(([event, ms]) => mutate(event, ms)),
    },
    { weight: 1, arbitrary: validEvent },
    {
      weight: 1,
      arbitrary: fc
        .tuple(fc.constantFrom(...Object.keys(PUBLISHABLE_EVENTS), 'nope', ''), jsonObject(2))
        .map(([type, rest]) => ({ ...rest, type })),
    },
    { weight: 1, arbitrary: jsonish(3) },
  )
  .map((value) => (value === undefined ? null : JSON.parse(JSON.stringify(value))));
