// Loads the platform's seed data (`--platform`, default fixtures/platform.yaml): organizations,
// members, spaces with pages, sites with views, feedback, OpenAPI spec and adaptive claims.
// Validated with a JSON Schema; a bad file is a startup error naming each problem. Read-only
// here: it never writes the file (the platform store seeds itself from it).

import { readFileSync } from 'node:fs';
import { load, CORE_SCHEMA } from 'js-yaml';
import { Ajv } from 'ajv';
import { HostError } from '../common/errors.ts';
import { PLATFORM_SCHEMA } from './data-schema.ts';

export interface SeedSiteView {
  id: string;
  spaceId?: string;
  pageId?: string;
  url: string;
  visitorId: string;
  viewedAt: string;
}

export interface SeedPageFeedback {
  id: string;
  spaceId: string;
  pageId: string;
  rating: string;
  comment: string;
  createdAt: string;
}

export interface PlatformOrganization {
  id: string;
  subdomain: string;
  title: string;
  members: { id: string; email: string; role: string }[];
  /** What GitBook's Organization object reports; the file may give them, else the defaults of docs/operations.md. */
  createdAt?: string;
  plan?: string;
  type?: string;
  emailDomains?: string[];
}

export interface PlatformData {
  /** Organizations whose integrations are the platform's own (internal scopes). */
  firstPartyOrganizations: string[];
  /** Integrations (by name) that are the platform's own, whoever publishes them (internal scopes). */
  firstPartyIntegrations: string[];
  organizations: PlatformOrganization[];
  spaces: {
    id: string;
    organization: string;
    title: string;
    visibility: string;
    description: string;
    metadata: Record<string, unknown>;
    pages: { id: string; title: string; markdown: string }[];
  }[];
  sites: {
    id: string;
    organization: string;
    title: string;
    spaces: string[];
    views: SeedSiteView[];
    feedback: SeedPageFeedback[];
    /** An OpenAPI/Swagger document, as an object or as its text. */
    openapi?: Record<string, unknown> | string;
    /** Adaptive content claims: claim name → any JSON value. */
    adaptive?: Record<string, unknown>;
  }[];
}

const validate = new Ajv({ allErrors: true, strict: false }).compile(PLATFORM_SCHEMA);

export function parsePlatformData(text: string, file: string): PlatformData {
  let doc: unknown;
  try {
    doc = load(text, { schema: CORE_SCHEMA });
  } catch (error) {
    throw new HostError('ERR_OPTIONS_INVALID', `${file}: ${(error as Error).message.split('\n')[0]}`);
  }
  if (!validate(doc)) {
    const details = (validate.errors ?? []).map((e) => ({
      pointer: e.instancePath || '/',
      message: e.message ?? 'invalid',
    }));
    throw new HostError(
      'ERR_OPTIONS_INVALID',
      `${file}: invalid platform data:\n${details.map((d) => `  ${d.pointer}: ${d.message}`).join('\n')}`,
      details,
    );
  }
  const data = doc as PlatformData;
  const problems: string[] = [];
  const orgIds = new Set(data.organizations.map((org) => org.id));
  const spaceIds = new Set(data.spaces.map((space) => space.id));
  data.spaces.forEach(
    (space, i) =>
      orgIds.has(space.organization) ||
      problems.push(`/spaces/${i}/organization: unknown organization "${space.organization}"`),
  );
  data.sites.forEach((site, i) => {
    if (!orgIds.has(site.organization))
      problems.push(`/sites/${i}/organization: unknown organization "${site.organization}"`);
    (site.spaces ?? []).forEach(
      (space, j) => spaceIds.has(space) || problems.push(`/sites/${i}/spaces/${j}: unknown space "${space}"`),
    );
    (site.views ?? []).forEach(
      (v, j) =>
        v.spaceId === undefined ||
        spaceIds.has(v.spaceId) ||
        problems.push(`/sites/${i}/views/${j}/spaceId: unknown space "${v.spaceId}"`),
    );
    (site.feedback ?? []).forEach(
      (f, j) =>
        spaceIds.has(f.spaceId) || problems.push(`/sites/${i}/feedback/${j}/spaceId: unknown space "${f.spaceId}"`),
    );
  });
  if (problems.length > 0)
    throw new HostError(
      'ERR_OPTIONS_INVALID',
      `${file}: invalid platform data:\n${problems.map((p) => `  ${p}`).join('\n')}`,
    );
  return {
    firstPartyOrganizations: data.firstPartyOrganizations ?? [],
    firstPartyIntegrations: data.firstPartyIntegrations ?? [],
    organizations: data.organizations.map((org) => ({ ...org, members: org.members ?? [] })),
    spaces: data.spaces.map((space) => ({
      ...space,
      visibility: space.visibility ?? 'private',
      description: space.description ?? '',
      metadata: space.metadata ?? {},
      pages: (space.pages ?? []).map((p) => ({ ...p, markdown: p.markdown ?? '' })),
    })),
    sites: data.sites.map((site) => ({
      ...site,
      spaces: site.spaces ?? [],
      views: site.views ?? [],
      feedback: site.feedback ?? [],
    })),
  };
}

export function loadPlatformData(file: string): PlatformData {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new HostError(
      'ERR_OPTIONS_INVALID',
      `cannot read platform data file ${file}: ${(error as NodeJS.ErrnoException).code ?? 'error'}`,
    );
  }
  return parsePlatformData(text, file);
}

/** Finds an organization by id or subdomain (a manifest's `organization` may be either). */
export function findOrganization(data: PlatformData, idOrSubdomain: string): PlatformOrganization | undefined {
  return data.organizations.find((org) => org.id === idOrSubdomain || org.subdomain === idOrSubdomain);
}
