// Git routes (docs/platform-api.md), all `space:git:sync` on the space and for an installation:
// this platform's `POST …/git/sync` (202 with its record) and GitBook's `importGitRepository` /
// `exportToGitRepository` (204, as GitBook answers a queued operation). Each request is recorded
// and logged; no Git runs here. A repository URL's credentials are never stored or logged.

import { installationOf, type ApiRoute } from '../types.ts';
import type { PlatformApiDeps } from '../deps.ts';
import type { GitRepositoryRequest } from '../../platform-data/records.ts';
import { compileBodyValidator } from '../../common/validate-body.ts';
import { HostError } from '../../common/errors.ts';
import { found } from './params.ts';

// No options yet; an empty object (or no body) is accepted so clients can send `{}`.
const validateSyncBody = compileBodyValidator<Record<string, never>>({
  type: 'object',
  additionalProperties: false,
  properties: {},
});

const TIMESTAMP = '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d+)?(Z|[+-]\\d{2}:\\d{2})$';
const text = (maxLength: number) => ({ type: 'string', maxLength }) as const;

/** GitBook's ImportGitRepository / ExportToGitRepository fields (the deprecated ones accepted and not kept). */
const REPOSITORY_FIELDS = {
  url: { type: 'string', minLength: 1, maxLength: 2048 },
  ref: { type: 'string', minLength: 1, maxLength: 1024 },
  repoCacheID: text(1024),
  repoTreeURL: text(2048),
  repoCommitURL: text(2048),
  repoProjectDirectory: text(1024),
  timestamp: { type: 'string', pattern: TIMESTAMP, failureMessage: 'must be an ISO 8601 date-time' },
  force: { type: 'boolean' },
  standalone: { type: 'boolean' },
  gitInfo: {
    type: 'object',
    additionalProperties: false,
    properties: { provider: { type: 'string', enum: ['github', 'gitlab'] }, url: text(2048) },
  },
} as const;

type RepositoryBody = Omit<GitRepositoryRequest, 'credentials' | 'revision'> & {
  repoCacheID?: string;
  gitInfo?: unknown;
};

const validateImport = compileBodyValidator<RepositoryBody>({
  type: 'object',
  additionalProperties: false,
  required: ['url', 'ref'],
  properties: REPOSITORY_FIELDS,
});
const validateExport = compileBodyValidator<RepositoryBody & { commitMessage: string }>({
  type: 'object',
  additionalProperties: false,
  required: ['url', 'ref', 'commitMessage'],
  properties: { ...REPOSITORY_FIELDS, commitMessage: text(10_000) },
});

/** The schemes a repository URL may have. */
const REPOSITORY_SCHEMES = new Set(['https:', 'http:', 'ssh:', 'git:']);

/**
 * A URL without its user name, password, query and fragment (a query is where `private_token=` and
 * `access_token=` ride); `credentials` says whether it had any of the first three. Not a URL with a
 * host: undefined.
 */
function withoutCredentials(value: string): { url: string; credentials: boolean; scheme: string } | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return undefined;
  }
  if (url.host === '') return undefined;
  const credentials = url.username !== '' || url.password !== '' || url.search !== '';
  url.username = '';
  url.password = '';
  url.search = '';
  url.hash = '';
  return { url: url.href, credentials, scheme: url.protocol };
}

/** What is recorded of an import or export: the given fields, every URL without credentials. */
function recordedRequest(body: RepositoryBody & { commitMessage?: string }): GitRepositoryRequest {
  const repository = withoutCredentials(body.url);
  if (repository === undefined || !REPOSITORY_SCHEMES.has(repository.scheme)) {
    throw new HostError('ERR_VALIDATION', 'url must be the absolute URL of the repository (https, http, ssh or git)', [
      { pointer: '/url', message: 'must be an absolute https, http, ssh or git URL' },
    ]);
  }
  // The prefixes are kept as given unless they parse as URLs, which then lose any credentials too.
  const prefix = (value: string | undefined) =>
    value === undefined ? {} : { value: withoutCredentials(value)?.url ?? value };
  const tree = prefix(body.repoTreeURL);
  const commit = prefix(body.repoCommitURL);
  return {
    url: repository.url,
    credentials: repository.credentials,
    ref: body.ref,
    ...(body.commitMessage !== undefined ? { commitMessage: body.commitMessage } : {}),
    ...('value' in tree ? { repoTreeURL: tree.value } : {}),
    ...('value' in commit ? { repoCommitURL: commit.value } : {}),
    ...(body.repoProjectDirectory !== undefined ? { repoProjectDirectory: body.repoProjectDirectory } : {}),
    ...(body.timestamp !== undefined ? { timestamp: body.timestamp } : {}),
    ...(body.force !== undefined ? { force: body.force } : {}),
    ...(body.standalone !== undefined ? { standalone: body.standalone } : {}),
  };
}

async function recordRepositoryRequest(
  deps: PlatformApiDeps,
  spaceId: string,
  installationId: string,
  kind: 'import' | 'export',
  request: GitRepositoryRequest,
): Promise<void> {
  const record = await deps.platform.recordGitRequest(spaceId, installationId, kind, request);
  const revision = request.revision === undefined ? '' : ` of revision ${request.revision}`;
  deps.log.info(
    `git ${kind}${revision} for space ${spaceId} requested by ` +
      `installation ${installationId}: ${request.url} ${request.ref}, recorded as ${record.id} (no ` +
      `Git runs on this host)`,
  );
}

const space = (params: Record<string, string>) => ({ kind: 'space', id: params.space }) as const;

export const gitRoutes: ApiRoute<PlatformApiDeps>[] = [
  {
    method: 'POST',
    pattern: '/v1/spaces/:space/git/sync',
    scope: 'space:git:sync',
    resource: space,
    async handle({ params, body, caller, deps }) {
      if (body !== undefined) validateSyncBody(body);
      return { status: 202, body: await deps.platform.recordGitSync(params.space, installationOf(caller).id) };
    },
  },
  {
    // GitBook's importGitRepository: the repository's content would replace the space's; recorded only.
    method: 'POST',
    pattern: '/v1/spaces/:space/git/import',
    scope: 'space:git:sync',
    resource: space,
    async handle({ params, body, caller, deps }) {
      const request = recordedRequest(validateImport(body));
      await recordRepositoryRequest(deps, params.space, installationOf(caller).id, 'import', request);
      return { status: 204 };
    },
  },
  {
    // GitBook's exportToGitRepository: the space's current revision would be committed; recorded with that revision.
    method: 'POST',
    pattern: '/v1/spaces/:space/git/export',
    scope: 'space:git:sync',
    resource: space,
    async handle({ params, body, caller, deps }) {
      const request = recordedRequest(validateExport(body));
      const current = found(
        await deps.platform.getCurrentRevision(params.space),
        `current revision of space "${params.space}"`,
      );
      await recordRepositoryRequest(deps, params.space, installationOf(caller).id, 'export', {
        ...request,
        revision: current.id,
      });
      return { status: 204 };
    },
  },
];
