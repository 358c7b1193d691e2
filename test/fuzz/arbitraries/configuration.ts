// Configuration PATCH bodies: objects over the properties of settings-demo (every property type)
// and the webhook integration, with right and wrong values, hostile keys and random JSON.

import fc from 'fast-check';
import { hostileKey, jsonish } from './json.ts';

const knownKey = fc.constantFrom('channel', 'limit', 'notify', 'connection', 'workspace', 'url', 'events');

const plausibleValue = fc.constantFrom<unknown>(
  'general',
  'releases',
  'nope',
  '',
  0,
  10,
  -1.5,
  1e300,
  true,
  false,
  null,
  'https://hooks.example.com/in',
  'http://127.0.0.1/x',
  'not a url',
  ['space_content_updated'],
  ['site_view', 'nope'],
  [],
  { access_token: 'forged' },
  { url: 'https://hooks.example.com/in', events: ['space_content_updated'] },
);

export const configurationPatch: fc.Arbitrary<Record<string, unknown>> = fc
  .array(
    fc.tuple(
      fc.oneof(
        { weight: 6, arbitrary: knownKey },
        { weight: 1, arbitrary: fc.constantFrom('__proto__', 'constructor', 'prototype') },
        { weight: 2, arbitrary: hostileKey },
        { weight: 1, arbitrary: fc.string({ maxLength: 10 }) },
      ),
      fc.oneof({ weight: 3, arbitrary: plausibleValue }, { weight: 2, arbitrary: jsonish(2) }),
    ),
    { maxLength: 4 },
  )
  // Built as JSON text, so a `__proto__` key is an own key exactly as on the wire.
  .map(
    (entries) =>
      JSON.parse(`{${entries.map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`).join(',')}}`) as Record<
        string,
        unknown
      >,
  );

/** Bodies that are not JSON objects at all. */
export const notAnObject = fc.oneof(
  fc.array(jsonish(1), { maxLength: 3 }),
  fc.string({ maxLength: 10 }),
  fc.integer(),
  fc.constant(null),
  fc.boolean(),
);
