// The JSON Schema of platform-manifest.yaml and gitbook-manifest.yaml (docs/manifest.md,
// docs/gitbook.md), as data for ajv. Shape only: checks that need the file system, the environment
// or cross-field logic live in validate/paths/secrets/semantic. Never loosen a nested
// `additionalProperties: false`: unknown nested keys must stay errors.

import { CATEGORIES, SCOPES, TARGETS, VISIBILITIES } from './types.ts';

/** Letters (either case, as GitBook's `VA-Okta`), digits and single dashes. */
const NAME_PATTERN = '^[A-Za-z0-9]+(-[A-Za-z0-9]+)*$';
const SECRET_NAME_PATTERN = '^[A-Za-z_][A-Za-z0-9_]*$';
/** A path on the integration's own endpoint; `//host` is refused because it reads as another origin. */
const ENDPOINT_PATH_PATTERN = '^/(?!/)\\S*$';
/** `format: uri` alone accepts `mailto:` and `https://` with no host. */
const HTTP_URL_PATTERN = '^https?://[^\\s/?#]+([/?#]\\S*)?$';

/** Which property types may carry each type-specific key (used for the schema and for messages). */
export const PROPERTY_KEY_TYPES: Record<string, readonly string[]> = {
  default: ['string', 'number', 'boolean'],
  enum: ['string'],
  completion_url: ['string'],
  button_text: ['button'],
  callback_url: ['button'],
};
const PROPERTY_TYPES = ['string', 'number', 'boolean', 'button'] as const;

const nonEmptyString = { type: 'string', minLength: 1 } as const;
const endpointPath = { type: 'string', pattern: ENDPOINT_PATH_PATTERN } as const;

/** The extra keys a property of `type` may have, with their shape; every other extra key is `false`. */
const TYPE_KEYS: Record<(typeof PROPERTY_TYPES)[number], Record<string, object>> = {
  string: {
    default: { type: 'string' },
    enum: { type: 'array', minItems: 1, uniqueItems: true, items: { type: 'string' } },
    completion_url: endpointPath,
  },
  number: { default: { type: 'number' } },
  boolean: { default: { type: 'boolean' } },
  button: { button_text: nonEmptyString, callback_url: endpointPath },
};

// One if/then per type keeps ajv's errors pointed at the offending key instead of a oneOf wall.
const typeRules = PROPERTY_TYPES.map((type) => {
  const properties: Record<string, object | boolean> = {};
  for (const key of Object.keys(PROPERTY_KEY_TYPES)) properties[key] = TYPE_KEYS[type][key] ?? false;
  return {
    if: { properties: { type: { const: type } }, required: ['type'] },
    then: {
      properties,
      ...(type === 'button' ? { required: ['button_text', 'callback_url'] } : {}),
    },
  };
});

const property = {
  type: 'object',
  required: ['type', 'title', 'description'],
  properties: {
    type: { type: 'string', enum: [...PROPERTY_TYPES] },
    title: { type: 'string' },
    description: { type: 'string' },
    default: true,
    enum: true,
    completion_url: true,
    button_text: true,
    callback_url: true,
  },
  additionalProperties: false,
  allOf: typeRules,
} as const;

const propertiesForm = {
  type: 'object',
  required: ['properties'],
  properties: {
    properties: { type: 'object', additionalProperties: { $ref: '#/$defs/property' } },
    required: { type: 'array', uniqueItems: true, items: { type: 'string' } },
  },
  additionalProperties: false,
} as const;

/** GitBook's other form: the level is configured by one of the integration's components. */
const componentForm = {
  type: 'object',
  required: ['componentId'],
  properties: { componentId: nonEmptyString },
  additionalProperties: false,
} as const;

// if/then rather than oneOf: a level with `componentId` is judged as the component form only,
// so a mistake in either form gets its own message instead of both forms' errors.
const configuration = {
  if: { type: 'object', properties: { componentId: true }, required: ['componentId'] },
  then: componentForm,
  else: propertiesForm,
} as const;

/** `{ directive: sources }` (GitBook's manifests all use this form) or one policy string. */
const contentSecurityPolicy = {
  if: { type: 'string' },
  else: { type: 'object', additionalProperties: { type: 'string' } },
} as const;

const stringList = { type: 'array', items: nonEmptyString } as const;

const secrets = {
  type: 'object',
  propertyNames: { pattern: SECRET_NAME_PATTERN },
  additionalProperties: { type: 'string' },
} as const;

export const manifestSchema = {
  $id: 'platform-manifest',
  type: 'object',
  required: ['name', 'title', 'description', 'organization', 'visibility', 'scopes'],
  // No additionalProperties here on purpose: unknown top-level keys are warnings (load.ts).
  properties: {
    name: { type: 'string', maxLength: 64, pattern: NAME_PATTERN },
    title: nonEmptyString,
    description: { type: 'string' },
    summary: { type: 'string', maxLength: 2048 },
    organization: nonEmptyString,
    visibility: { type: 'string', enum: [...VISIBILITIES] },
    scopes: { type: 'array', uniqueItems: true, items: { type: 'string', enum: [...SCOPES] } },
    script: nonEmptyString,
    target: { type: 'string', enum: [...TARGETS] },
    blocks: {
      type: 'array',
      items: {
        type: 'object',
        required: ['id', 'title'],
        properties: {
          id: nonEmptyString,
          title: { type: 'string' },
          description: { type: 'string' },
          icon: nonEmptyString,
          urlUnfurl: stringList,
          markdown: {
            type: 'object',
            required: ['codeblock', 'body'],
            properties: { codeblock: nonEmptyString, body: nonEmptyString },
            additionalProperties: false,
          },
        },
        additionalProperties: false,
      },
    },
    contentSources: {
      type: 'array',
      items: {
        type: 'object',
        required: ['id', 'title', 'configuration'],
        properties: {
          id: nonEmptyString,
          title: { type: 'string' },
          description: { type: 'string' },
          icon: nonEmptyString,
          configuration: componentForm,
        },
        additionalProperties: false,
      },
    },
    categories: { type: 'array', uniqueItems: true, items: { type: 'string', enum: [...CATEGORIES] } },
    icon: nonEmptyString,
    previewImages: { type: 'array', maxItems: 3, items: nonEmptyString },
    externalLinks: {
      type: 'array',
      items: {
        type: 'object',
        required: ['label', 'url'],
        properties: {
          label: { type: 'string' },
          url: { type: 'string', format: 'uri', pattern: HTTP_URL_PATTERN },
        },
        additionalProperties: false,
      },
    },
    configurations: {
      type: 'object',
      properties: { account: configuration, space: configuration, site: configuration },
      additionalProperties: false,
    },
    contentSecurityPolicy,
    secrets,
    envs: {
      type: 'object',
      additionalProperties: {
        type: 'object',
        properties: { organization: nonEmptyString, visibility: { type: 'string', enum: [...VISIBILITIES] }, secrets },
        additionalProperties: false,
      },
    },
  },
  $defs: { property },
} as const;

/** The top-level keys the schema knows; any other key is reported as a warning. */
export const MANIFEST_KEYS: readonly string[] = Object.keys(manifestSchema.properties);
