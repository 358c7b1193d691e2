// What the admin API asks of publishing: accept an upload (read, staged, loaded and bundled as
// --dir would, authorized, tried in an isolate, stored, served here), list versions, make one
// current, and manage publisher tokens. One publish or rollback at a time per host.

import type { Readable } from 'node:stream';
import { HostError, type ErrorDetail } from '../common/errors.ts';
import type { Logger } from '../common/logger.ts';
import type { IntegrationRegistry } from '../integrations/registry.ts';
import { formatProblem } from '../manifest/format.ts';
import type { LoadOptions } from '../manifest/load.ts';
import type { IntegrationBundle, LoadedIntegration } from '../manifest/types.ts';
import { contentHash, packArchive } from './archive-files.ts';
import { readArchive } from './archive-read.ts';
import { PUBLISH_LIMITS, type PublishLimits } from './limits.ts';
import { actorName, type Actor, type PublisherRecord, type PublisherStore, type VersionStore } from './model.ts';
import type { VersionSummary } from './model.ts';
import {
  authenticatePublisher,
  authorize,
  checkIssueInput,
  issuePublisher,
  type IssuedPublisher,
} from './publishers.ts';
import type { PublishedServing } from './serving.ts';
import { checkUploadShape, stageUpload } from './stage.ts';

export type PublisherView = Omit<PublisherRecord, 'tokenHash'>;

export interface PublishOutcome {
  version: VersionSummary;
  /** False when the upload equals the current version (nothing new was stored). */
  created: boolean;
  /** The loaded version's warnings, as `check` prints them. */
  warnings: string[];
}

export interface PublishingService {
  /** The publisher a token names. Throws ERR_FORBIDDEN (unknown, wrong or revoked). */
  authenticate(token: string): Promise<Actor>;
  /** Throws the archive's, the manifest's, the authorization's and the start's refusals; stores nothing then. */
  publish(actor: Actor, integration: string, body: Readable): Promise<PublishOutcome>;
  /** Newest first. Throws ERR_INTEGRATION_NOT_FOUND (never published), ERR_PUBLISHER_FORBIDDEN. */
  versions(actor: Actor, integration: string): Promise<VersionSummary[]>;
  /** A rollback (or back again): throws ERR_VERSION_NOT_FOUND, ERR_PUBLISHER_FORBIDDEN, ERR_VERSION_FAILED_TO_START. */
  makeCurrent(actor: Actor, integration: string, version: number): Promise<VersionSummary>;
  issuePublisher(input: Record<string, unknown>): Promise<IssuedPublisher>;
  listPublishers(): Promise<PublisherView[]>;
  /** Throws ERR_NOT_FOUND when there is no such publisher or it was revoked already. */
  revokePublisher(id: string): Promise<void>;
}

export interface PublishServiceDeps {
  versions: VersionStore;
  publishers: PublisherStore;
  registry: IntegrationRegistry;
  loadOptions: LoadOptions;
  serving: PublishedServing;
  publishedOverDir: boolean;
  /**
   * Why a name no version holds yet already belongs to someone (stored secrets, installations, a first-party
   * listing), or null: such a name's first version is the operator's to publish, never a publisher token's.
   */
  claimedElsewhere(integration: string): Promise<string | null>;
  /** Starts the bundle in a fresh isolate as a dispatch would; null when it started, else why it did not. */
  probe(integration: string, bundle: IntegrationBundle): Promise<string | null>;
  now(): Date;
  log: Logger;
  limits?: PublishLimits;
}

const NOTHING = '; nothing was stored';

function invalid(loaded: LoadedIntegration): HostError {
  const details: ErrorDetail[] = loaded.errors.map((problem) => ({
    pointer: problem.pointer,
    message: formatProblem(problem),
  }));
  return new HostError(
    'ERR_VERSION_INVALID',
    `the integration does not load: ${loaded.errors.map(formatProblem).join('; ')}${NOTHING}`,
    details,
  );
}

export function createPublishingService(deps: PublishServiceDeps): PublishingService {
  let queue: Promise<unknown> = Promise.resolve();
  const oneAtATime = <T>(work: () => Promise<T>): Promise<T> => {
    const run = queue.then(work);
    queue = run.catch(() => undefined);
    return run;
  };

  /**
   * A --dir folder serving the name here wins unless the operator said otherwise; even then, a publisher
   * token never takes over the folder of another organization (its installations would run the upload).
   */
  const checkFolderConflict = (actor: Actor, integration: string) => {
    const current = deps.registry.get(integration);
    if (current === undefined || current.published !== undefined) return;
    const folderOrganization = current.manifest?.organization;
    if (deps.publishedOverDir && (actor.kind === 'admin' || folderOrganization === actor.organization)) return;
    throw new HostError(
      'ERR_PUBLISH_CONFLICT',
      deps.publishedOverDir
        ? `"${integration}" is served from a --dir folder of another organization on this host${NOTHING}`
        : `"${integration}" is served from a --dir folder on this host; remove the folder, or start the host ` +
            `with --published-over-dir to serve published versions instead${NOTHING}`,
    );
  };

  /** The name's owner (its first version's organization) before anything of the upload is written or built. */
  const checkOwner = async (actor: Actor, integration: string): Promise<VersionSummary[]> => {
    const earlier = await deps.versions.list(integration);
    const owner = earlier.at(-1)?.organization;
    if (owner !== undefined) authorize(actor, owner, integration);
    else if (actor.kind === 'publisher') {
      const claim = await deps.claimedElsewhere(integration);
      if (claim !== null)
        throw new HostError(
          'ERR_PUBLISHER_FORBIDDEN',
          `"${integration}" ${claim}: its first version is published by the operator (admin token); ` +
            `after that its organization's publisher token may publish it${NOTHING}`,
        );
    }
    return earlier;
  };

  const ownerOf = async (actor: Actor, integration: string): Promise<VersionSummary[]> => {
    const rows = await deps.versions.list(integration);
    if (rows.length === 0)
      throw new HostError('ERR_INTEGRATION_NOT_FOUND', `no version of "${integration}" was ever published`);
    authorize(actor, rows[rows.length - 1].organization, integration);
    return rows;
  };

  const publish = async (
    actor: Actor,
    integration: string,
    files: Awaited<ReturnType<typeof readArchive>>,
  ): Promise<PublishOutcome> => {
    checkUploadShape(files);
    const staged = await stageUpload(files, deps.loadOptions);
    try {
      const { loaded } = staged;
      const manifest = loaded.manifest;
      if (manifest === undefined) throw invalid(loaded);
      if (manifest.name !== integration)
        throw new HostError(
          'ERR_VALIDATION',
          `the archive's manifest names "${manifest.name}", but it was sent to "${integration}"${NOTHING}`,
        );
      authorize(actor, manifest.organization, integration);
      if (loaded.status !== 'ready') throw invalid(loaded);
      if (loaded.bundle === undefined)
        throw new HostError('ERR_VERSION_INVALID', `a published integration needs a \`script\`${NOTHING}`);
      // Again, inside the queue's turn: a first version may have been stored meanwhile.
      const earlier = await checkOwner(actor, integration);
      checkFolderConflict(actor, integration);
      const hash = contentHash(files);
      const current = earlier.find((row) => row.current);
      const warnings = loaded.warnings.map(formatProblem);
      if (current?.contentHash === hash) return { version: current, created: false, warnings };
      const failed = await deps.probe(integration, loaded.bundle);
      if (failed !== null)
        throw new HostError(
          'ERR_VERSION_FAILED_TO_START',
          `the integration failed to start in an isolate: ${failed}; ` +
            `${current ? `version ${current.version} keeps serving` : 'nothing serves it'}${NOTHING}`,
        );
      const now = deps.now().toISOString();
      const version = await deps.versions.add(
        {
          integration,
          organization: manifest.organization,
          contentHash: hash,
          bundleHash: loaded.bundle.hash,
          files: files.length,
          bytes: files.reduce((sum, file) => sum + file.bytes.length, 0),
          publishedBy: actorName(actor),
          publishedAt: now,
          archive: await packArchive(files),
          bundle: loaded.bundle.code,
          sourceMap: loaded.bundle.map ?? null,
        },
        now,
      );
      // Said at commit, before this host swaps it in: every host learns of it from here on.
      deps.log.info(`publish: ${integration} version ${version.version} published by ${version.publishedBy}`);
      await deps.serving.refresh();
      return { version, created: true, warnings };
    } finally {
      await staged.cleanup();
    }
  };

  const makeCurrent = async (actor: Actor, integration: string, number: number): Promise<VersionSummary> => {
    const rows = await ownerOf(actor, integration);
    const target = rows.find((row) => row.version === number);
    if (target === undefined)
      throw new HostError(
        'ERR_VERSION_NOT_FOUND',
        `"${integration}" has no version ${number} (versions: ${rows.map((row) => row.version).join(', ')})`,
      );
    if (target.current) return target;
    checkFolderConflict(actor, integration);
    const stored = await deps.versions.get(integration, number);
    if (stored === undefined) throw new HostError('ERR_VERSION_NOT_FOUND', `"${integration}" has no version ${number}`);
    const bundle = {
      code: stored.bundle,
      hash: stored.bundleHash,
      ...(stored.sourceMap ? { map: stored.sourceMap } : {}),
    };
    const failed = await deps.probe(integration, bundle);
    const serving = rows.find((row) => row.current);
    if (failed !== null)
      throw new HostError(
        'ERR_VERSION_FAILED_TO_START',
        `version ${number} of "${integration}" failed to start in an isolate: ${failed}; ` +
          `version ${serving?.version ?? '?'} keeps serving`,
      );
    await deps.versions.setCurrent(integration, number, actorName(actor), deps.now().toISOString());
    deps.log.info(`publish: ${integration} version ${number} made current by ${actorName(actor)}`);
    await deps.serving.refresh();
    return { ...target, current: true };
  };

  return {
    authenticate: (token) => authenticatePublisher(deps.publishers, token),
    // The body is read before the queue: a slow upload holds only itself, never another's publish or rollback.
    async publish(actor, integration, body) {
      await checkOwner(actor, integration);
      const files = await readArchive(body, deps.limits ?? PUBLISH_LIMITS);
      return oneAtATime(() => publish(actor, integration, files));
    },
    versions: (actor, integration) => ownerOf(actor, integration),
    makeCurrent: (actor, integration, version) => oneAtATime(() => makeCurrent(actor, integration, version)),
    issuePublisher: (input) => issuePublisher(deps.publishers, checkIssueInput(input), deps.now()),
    async listPublishers() {
      return (await deps.publishers.list()).map(({ tokenHash: _hash, ...view }) => view);
    },
    async revokePublisher(id) {
      if (!(await deps.publishers.revoke(id, deps.now().toISOString())))
        throw new HostError('ERR_NOT_FOUND', `no publisher "${id}" that is not revoked already`);
    },
  };
}
