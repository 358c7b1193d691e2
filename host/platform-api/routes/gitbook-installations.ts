// GitBook's installation routes (docs/platform-api.md#gitbooks-api), at GitBook's paths with its
// request and answer shapes: read, list and update organization installations, their space and site
// installations, and (integration token only) an installation's token. No scope: what a token
// reaches is decided by authorize() (an installation token its own installation tree, never a
// sibling; the integration token its own integration's installations).

import { HostError } from '../../common/errors.ts';
import type { Installation } from '../../installations/model.ts';
import { gitbookContentInstallation, gitbookInstallation } from '../../gitbook/installation.ts';
import { compileBodyValidator } from '../../common/validate-body.ts';
import { reaches } from '../authorize.ts';
import type { ApiRoute, RouteContext } from '../types.ts';
import type { PlatformApiDeps } from '../deps.ts';
import { readLimit } from './params.ts';

const DEFAULT_PAGE = 100;
const MAX_PAGE = 100;
const EXTERNAL_ID = { type: 'string', minLength: 1, maxLength: 512 } as const;
const EXTERNAL_IDS = { type: 'array', maxItems: 5, items: EXTERNAL_ID } as const;
const NOT_BY_INTEGRATION = {
  not: {},
  failureMessage: "is chosen by the organization's admin when installing, not by the integration",
};

interface InstallationUpdate {
  configuration?: Record<string, unknown>;
  externalIds?: string[];
}

// GitBook's UpdateIntegrationInstallation; the selections are the admin's to choose here.
const validateInstallationUpdate = compileBodyValidator<InstallationUpdate>({
  type: 'object',
  additionalProperties: false,
  properties: {
    configuration: { type: 'object' },
    externalIds: EXTERNAL_IDS,
    space_selection: NOT_BY_INTEGRATION,
    site_selection: NOT_BY_INTEGRATION,
  },
});
// GitBook's UpdateIntegrationSpaceInstallation / UpdateIntegrationSiteInstallation.
const validateContentUpdate = compileBodyValidator<InstallationUpdate>({
  type: 'object',
  additionalProperties: false,
  properties: { configuration: { type: 'object' }, externalIds: EXTERNAL_IDS },
});

const integration = (params: Record<string, string>) => ({ kind: 'integration', name: params.name }) as const;
const installation = (params: Record<string, string>) =>
  ({ kind: 'installation', name: params.name, id: params.id }) as const;
const spaceInstallation = (params: Record<string, string>) =>
  ({
    kind: 'content-installation',
    name: params.name,
    id: params.id,
    content: 'space',
    contentId: params.space,
  }) as const;
const siteInstallation = (params: Record<string, string>) =>
  ({
    kind: 'content-installation',
    name: params.name,
    id: params.id,
    content: 'site',
    contentId: params.site,
  }) as const;

function target(context: RouteContext<PlatformApiDeps>): Installation {
  if (context.target === undefined) throw new HostError('ERR_INTERNAL', 'route ran without its resolved installation');
  return context.target;
}

/** `?page=` as handed out in a previous answer's `next.page` (an offset). */
function readPage(query: URLSearchParams): number {
  const raw = query.get('page');
  if (raw === null) return 0;
  if (!/^(0|[1-9]\d{0,8})$/.test(raw))
    throw new HostError('ERR_VALIDATION', 'page is not one this API handed out', [
      { pointer: '/page', message: 'is invalid' },
    ]);
  return Number(raw);
}

/** GitBook's `List`: `items`, `count`, and `next.page` while more follow. */
function page<T>(
  all: T[],
  query: URLSearchParams,
  shape: (item: T) => Record<string, unknown>,
): Record<string, unknown> {
  const limit = readLimit(query, DEFAULT_PAGE, MAX_PAGE);
  const offset = readPage(query);
  const items = all.slice(offset, offset + limit).map(shape);
  return {
    items,
    count: all.length,
    ...(offset + limit < all.length ? { next: { page: String(offset + limit) } } : {}),
  };
}

function byExternalId(query: URLSearchParams): (installation: Installation) => boolean {
  const externalId = query.get('externalId');
  return (installation) => externalId === null || (installation.externalIds ?? []).includes(externalId);
}

/** The space or site installations of an integration the caller may see, optionally under one parent. */
async function contentInstallations(
  context: RouteContext<PlatformApiDeps>,
  kind: 'space' | 'site',
  parent?: Installation,
): Promise<Installation[]> {
  const all =
    parent !== undefined
      ? await context.deps.installations.children(parent.id)
      : await context.deps.gitbook.listInstallations(context.caller.integration.name);
  return all
    .filter((candidate) => candidate.target === kind && reaches(context.caller, candidate))
    .filter(byExternalId(context.query));
}

function contentShape(context: RouteContext<PlatformApiDeps>) {
  return (child: Installation) => gitbookContentInstallation(context.deps.gitbook.shapes, child);
}

async function updateContent(context: RouteContext<PlatformApiDeps>) {
  const update = validateContentUpdate(context.body ?? {});
  const updated = await context.deps.gitbook.editInstallation(target(context).id, update);
  return { status: 200, body: gitbookContentInstallation(context.deps.gitbook.shapes, updated) };
}

export const gitbookInstallationRoutes: ApiRoute<PlatformApiDeps>[] = [
  {
    method: 'GET',
    pattern: '/v1/integrations/:name/installations',
    scope: null,
    resource: integration,
    async handle(context) {
      const own = context.caller.installation;
      // An installation token lists the organization installation it belongs to; the integration token all of them.
      const all = (await context.deps.gitbook.listInstallations(context.caller.integration.name)).filter(
        (candidate) =>
          candidate.target === 'organization' && (own === undefined || candidate.id === (own.parent ?? own.id)),
      );
      return {
        status: 200,
        body: page(all.filter(byExternalId(context.query)), context.query, (one) =>
          gitbookInstallation(context.deps.gitbook.shapes, one),
        ),
      };
    },
  },
  {
    method: 'GET',
    pattern: '/v1/integrations/:name/installations/:id',
    scope: null,
    resource: installation,
    handle: (context) => ({ status: 200, body: gitbookInstallation(context.deps.gitbook.shapes, target(context)) }),
  },
  {
    method: 'PATCH',
    pattern: '/v1/integrations/:name/installations/:id',
    scope: null,
    resource: installation,
    async handle(context) {
      const update = validateInstallationUpdate(context.body ?? {});
      const updated = await context.deps.gitbook.editInstallation(target(context).id, update);
      return { status: 200, body: gitbookInstallation(context.deps.gitbook.shapes, updated) };
    },
  },
  {
    method: 'POST',
    pattern: '/v1/integrations/:name/installations/:id/tokens',
    scope: null,
    caller: 'integration',
    resource: installation,
    handle: (context) => ({ status: 200, body: { token: context.deps.gitbook.installationToken(target(context).id) } }),
  },
  {
    method: 'GET',
    pattern: '/v1/integrations/:name/installations/:id/spaces',
    scope: null,
    resource: installation,
    handle: async (context) => ({
      status: 200,
      body: page(await contentInstallations(context, 'space', target(context)), context.query, contentShape(context)),
    }),
  },
  {
    method: 'GET',
    pattern: '/v1/integrations/:name/installations/:id/sites',
    scope: null,
    resource: installation,
    handle: async (context) => ({
      status: 200,
      body: page(await contentInstallations(context, 'site', target(context)), context.query, contentShape(context)),
    }),
  },
  {
    method: 'GET',
    pattern: '/v1/integrations/:name/installations/:id/spaces/:space',
    scope: null,
    resource: spaceInstallation,
    handle: (context) => ({
      status: 200,
      body: gitbookContentInstallation(context.deps.gitbook.shapes, target(context)),
    }),
  },
  {
    method: 'PATCH',
    pattern: '/v1/integrations/:name/installations/:id/spaces/:space',
    scope: null,
    resource: spaceInstallation,
    handle: updateContent,
  },
  {
    method: 'GET',
    pattern: '/v1/integrations/:name/installations/:id/sites/:site',
    scope: null,
    resource: siteInstallation,
    handle: (context) => ({
      status: 200,
      body: gitbookContentInstallation(context.deps.gitbook.shapes, target(context)),
    }),
  },
  {
    method: 'PATCH',
    pattern: '/v1/integrations/:name/installations/:id/sites/:site',
    scope: null,
    resource: siteInstallation,
    handle: updateContent,
  },
  {
    method: 'GET',
    pattern: '/v1/integrations/:name/spaces',
    scope: null,
    resource: integration,
    handle: async (context) => ({
      status: 200,
      body: page(await contentInstallations(context, 'space'), context.query, contentShape(context)),
    }),
  },
  {
    method: 'GET',
    pattern: '/v1/integrations/:name/sites',
    scope: null,
    resource: integration,
    handle: async (context) => ({
      status: 200,
      body: page(await contentInstallations(context, 'site'), context.query, contentShape(context)),
    }),
  },
];
