// GitBook's organization and site routes (docs/platform-api.md#gitbooks-api): the caller's own
// organization, one of its sites (`site:metadata:read`) and the site's adaptive-content schema
// (`site:adaptive:read` / `site:adaptive:write`), at GitBook's paths and in its shapes. A site
// must belong to the organization named in the path and lie inside the caller's installation.

import { HostError } from '../../common/errors.ts';
import { compileBodyValidator } from '../../common/validate-body.ts';
import { gitbookOrganization } from '../../gitbook/organization.ts';
import { gitbookSite } from '../../gitbook/content.ts';
import type { ApiRoute } from '../types.ts';
import type { PlatformApiDeps } from '../deps.ts';
import { found } from './params.ts';

const organization = (params: Record<string, string>) => ({ kind: 'organization-id', id: params.org }) as const;
const site = (params: Record<string, string>) =>
  ({ kind: 'organization-site', organization: params.org, site: params.site }) as const;

// GitBook's body: `{ jsonSchema }`, a JSON Schema of the claims (SiteAdaptiveJSONSchema; kept as sent).
const validateSchemaBody = compileBodyValidator<{ jsonSchema: Record<string, unknown> }>({
  type: 'object',
  additionalProperties: false,
  required: ['jsonSchema'],
  properties: {
    jsonSchema: {
      type: 'object',
      required: ['type', 'properties'],
      properties: { type: { const: 'object' }, properties: { type: 'object' } },
    },
  },
});

function schemaAnswer(schema: { jsonSchema: Record<string, unknown>; updatedAt: string }) {
  return { object: 'site-adaptive-schema', jsonSchema: schema.jsonSchema, updatedAt: schema.updatedAt };
}

export const gitbookOrgRoutes: ApiRoute<PlatformApiDeps>[] = [
  {
    method: 'GET',
    pattern: '/v1/orgs/:org',
    scope: null,
    resource: organization,
    handle: ({ params, deps }) => ({
      status: 200,
      body: gitbookOrganization(
        deps.gitbook.baseUrl,
        found(deps.gitbook.organization(params.org), `organization "${params.org}"`),
      ),
    }),
  },
  {
    method: 'GET',
    pattern: '/v1/orgs/:org/sites/:site',
    scope: 'site:metadata:read',
    resource: site,
    async handle({ params, deps }) {
      const record = found(await deps.platform.getSite(params.site), `site "${params.site}"`);
      const [claims, schema] = await Promise.all([
        deps.platform.getAdaptive(params.site),
        deps.platform.getAdaptiveSchema(params.site),
      ]);
      return {
        status: 200,
        body: gitbookSite(deps.gitbook.baseUrl, record, Object.keys(claims.claims).length > 0 || schema !== undefined),
      };
    },
  },
  {
    method: 'GET',
    pattern: '/v1/orgs/:org/sites/:site/adaptive-schema',
    scope: 'site:adaptive:read',
    resource: site,
    async handle({ params, deps }) {
      const schema = await deps.platform.getAdaptiveSchema(params.site);
      if (schema === undefined)
        throw new HostError('ERR_NOT_FOUND', `site "${params.site}" has no adaptive schema yet`);
      return { status: 200, body: schemaAnswer(schema) };
    },
  },
  {
    method: 'PUT',
    pattern: '/v1/orgs/:org/sites/:site/adaptive-schema',
    scope: 'site:adaptive:write',
    resource: site,
    handle: async ({ params, body, deps }) => ({
      status: 200,
      body: schemaAnswer(await deps.platform.putAdaptiveSchema(params.site, validateSchemaBody(body).jsonSchema)),
    }),
  },
];
