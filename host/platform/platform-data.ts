// Loads the platform's seed data (`--platform`, default fixtures/platform.yaml): organizations,
// members, spaces with pages, sites. Validated with a JSON Schema; a bad file is a startup error
// naming each problem. Read-only here: it never writes the file.

import { readFileSync } from 'node:fs';
import { load, CORE_SCHEMA } from 'js-yaml';
import { Ajv } from 'ajv';
import { HostError } from '../errors.ts';

export interface PlatformData {
  firstPartyOrganizations: string[];
  organizations: { id: string; subdomain: string; title: string; members: { id: string; email: string; role: string }[] }[];
  spaces: { id: string; organization: string; title: string; visibility: string; pages: { id: string; title: string; markdown: string }[] }[];
  sites: { id: string; organization: string; title: string; spaces: string[] }[];
}

const id = { type: 'string', pattern: '^[A-Za-z0-9_-]{1,64}$' } as const;
const PLATFORM_SCHEMA = {
  type: 'object',
  required: ['organizations', 'spaces', 'sites'],
  additionalProperties: true,
  properties: {
    firstPartyOrganizations: { type: 'array', items: id },
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
          members: { type: 'array', items: { type: 'object', required: ['id', 'email', 'role'], properties: { id, email: { type: 'string' }, role: { enum: ['admin', 'editor', 'member'] } } } },
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
          pages: { type: 'array', items: { type: 'object', required: ['id', 'title'], properties: { id, title: { type: 'string' }, markdown: { type: 'string' } } } },
        },
      },
    },
    sites: {
      type: 'array',
      items: {
        type: 'object',
        required: ['id', 'organization', 'title'],
        additionalProperties: true,
        properties: { id, organization: id, title: { type: 'string' }, spaces: { type: 'array', items: id } },
      },
    },
  },
} as const;

const validate = new Ajv({ allErrors: true, strict: false }).compile(PLATFORM_SCHEMA);

export function parsePlatformData(text: string, file: string): PlatformData {
  let doc: unknown;
  try {
    doc = load(text, { schema: CORE_SCHEMA });
  } catch (error) {
    throw new HostError('ERR_OPTIONS_INVALID', `${file}: ${(error as Error).message.split('\n')[0]}`);
  }
  if (!validate(doc)) {
    const details = (validate.errors ?? []).map((e) => ({ pointer: e.instancePath || '/', message: e.message ?? 'invalid' }));
    throw new HostError('ERR_OPTIONS_INVALID', `${file}: invalid platform data:\n${details.map((d) => `  ${d.pointer}: ${d.message}`).join('\n')}`, details);
  }
  const data = doc as PlatformData;
  const problems: string[] = [];
  const orgIds = new Set(data.organizations.map((org) => org.id));
  const spaceIds = new Set(data.spaces.map((space) => space.id));
  data.spaces.forEach((space, i) => orgIds.has(space.organization) || problems.push(`/spaces/${i}/organization: unknown organization "${space.organization}"`));
  data.sites.forEach((site, i) => {
    if (!orgIds.has(site.organization)) problems.push(`/sites/${i}/organization: unknown organization "${site.organization}"`);
    (site.spaces ?? []).forEach((space, j) => spaceIds.has(space) || problems.push(`/sites/${i}/spaces/${j}: unknown space "${space}"`));
  });
  if (problems.length > 0) throw new HostError('ERR_OPTIONS_INVALID', `${file}: invalid platform data:\n${problems.map((p) => `  ${p}`).join('\n')}`);
  return {
    firstPartyOrganizations: data.firstPartyOrganizations ?? [],
    organizations: data.organizations.map((org) => ({ ...org, members: org.members ?? [] })),
    spaces: data.spaces.map((space) => ({ ...space, visibility: space.visibility ?? 'private', pages: (space.pages ?? []).map((p) => ({ ...p, markdown: p.markdown ?? '' })) })),
    sites: data.sites.map((site) => ({ ...site, spaces: site.spaces ?? [] })),
  };
}

export function loadPlatformData(file: string): PlatformData {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new HostError('ERR_OPTIONS_INVALID', `cannot read platform data file ${file}: ${(error as NodeJS.ErrnoException).code ?? 'error'}`);
  }
  return parsePlatformData(text, file);
}

/** Finds an organization by id or subdomain (a manifest's `organization` may be either). */
export function findOrganization(data: PlatformData, idOrSubdomain: string): PlatformData['organizations'][number] | undefined {
  return data.organizations.find((org) => org.id === idOrSubdomain || org.subdomain === idOrSubdomain);
}
