// The JSON Schema of the platform seed file (`--platform`): organizations, members, spaces with
// pages, sites with views, feedback, OpenAPI spec and adaptive claims. Data only; cross-references
// (a site's spaces, a view's space) are checked by platform-data.ts after the schema passes.

const id = { type: 'string', pattern: '^[A-Za-z0-9_-]{1,64}$' } as const;
const text = { type: 'string' } as const;
const view = {
  type: 'object',
  required: ['id', 'url', 'visitorId', 'viewedAt'],
  additionalProperties: false,
  properties: { id, spaceId: id, pageId: id, url: text, visitorId: text, viewedAt: text },
} as const;
const feedback = {
  type: 'object',
  required: ['id', 'spaceId', 'pageId', 'rating', 'comment', 'createdAt'],
  additionalProperties: false,
  properties: { id, spaceId: id, pageId: id, rating: text, comment: text, createdAt: text },
} as const;
export const PLATFORM_SCHEMA = {
  type: 'object',
  required: ['organizations', 'spaces', 'sites'],
  additionalProperties: true,
  properties: {
    firstPartyOrganizations: { type: 'array', items: id },
    firstPartyIntegrations: { type: 'array', items: { type: 'string', minLength: 1, maxLength: 64 } },
    organizations: {
      type: 'array',
      items: {
        type: 'object',
        required: ['id', 'subdomain', 'title'],
        additionalProperties: true,
        properties: {
          id,
          subdomain: { type: 'string', pattern: '^[a-z0-9-]{1,63}$' },
          title: { type: 'string' },
          // GitBook's Organization fields (its API and integration environments show them).
          createdAt: {
            type: 'string',
            pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d+)?(Z|[+-]\\d{2}:\\d{2})$',
          },
          plan: { enum: ['free', 'plus', 'pro', 'enterprise', 'community', 'internal'] },
          type: { enum: ['business', 'community'] },
          emailDomains: { type: 'array', items: { type: 'string' } },
          members: {
            type: 'array',
            items: {
              type: 'object',
              required: ['id', 'email', 'role'],
              properties: { id, email: { type: 'string' }, role: { enum: ['admin', 'editor', 'member'] } },
            },
          },
        },
      },
    },
    spaces: {
      type: 'array',
      items: {
        type: 'object',
        required: ['id', 'organization', 'title'],
        additionalProperties: true,
        properties: {
          id,
          organization: id,
          title: { type: 'string' },
          visibility: { enum: ['public', 'unlisted', 'private'] },
          description: text,
          metadata: { type: 'object' },
          pages: {
            type: 'array',
            items: {
              type: 'object',
              required: ['id', 'title'],
              properties: { id, title: { type: 'string' }, markdown: { type: 'string' } },
            },
          },
        },
      },
    },
    sites: {
      type: 'array',
      items: {
        type: 'object',
        required: ['id', 'organization', 'title'],
        additionalProperties: true,
        properties: {
          id,
          organization: id,
          title: { type: 'string' },
          spaces: { type: 'array', items: id },
          views: { type: 'array', items: view },
          feedback: { type: 'array', items: feedback },
          openapi: { type: ['object', 'string'] },
          adaptive: { type: 'object' },
        },
      },
    },
  },
} as const;
