// Turns an upload's files into a loaded integration exactly as --dir would: written into a fresh
// private folder under the system's temporary directory (whose package.json makes it its own
// workspace, so bare imports resolve only through the upload's own node_modules), then loaded,
// checked and bundled by host/manifest/. The folder is removed by `cleanup`, whatever happened.

import { mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { HostError } from '../common/errors.ts';
import { forgetBundlesUnder } from '../manifest/bundle-cache.ts';
import { loadIntegration, type LoadOptions } from '../manifest/load.ts';
import { isInside } from '../manifest/paths.ts';
import { MANIFEST_FILES, type LoadedIntegration, type ManifestProblem } from '../manifest/types.ts';
import { writeFiles } from './archive-files.ts';
import type { ArchiveFile } from './archive-read.ts';

/** The folder an upload is written to inside its staging root (its name shows in no message). */
export const STAGED_FOLDER = 'integration';

export interface Staged {
  loaded: LoadedIntegration;
  cleanup(): Promise<void>;
}

/** Refusals that need no load: no manifest at the root, or a `.dev.vars` (secrets never travel in an upload). */
export function checkUploadShape(files: readonly ArchiveFile[]): void {
  const paths = new Set(files.map((file) => file.path));
  if (!Object.values(MANIFEST_FILES).some((name) => paths.has(name)))
    throw new HostError(
      'ERR_ARCHIVE_INVALID',
      `the archive has no ${MANIFEST_FILES.platform} or ${MANIFEST_FILES.gitbook} at its root; nothing was stored`,
    );
  const devVars = files.find((file) => file.path === '.dev.vars' || file.path.endsWith('/.dev.vars'));
  if (devVars !== undefined)
    throw new HostError(
      'ERR_ARCHIVE_INVALID',
      `the archive holds ${devVars.path}: secrets are never uploaded; store them on the host ` +
        '(integration-host secrets set NAME VARIABLE) and publish without it; nothing was stored',
    );
}

/** A problem's file relative to the staged folder, so no message names the host's temporary paths. */
function relativeTo(folder: string, problem: ManifestProblem): ManifestProblem {
  const absolute = path.resolve(problem.file);
  if (!isInside(folder, absolute)) return problem;
  return { ...problem, file: path.relative(folder, absolute).split(path.sep).join('/') || '.' };
}

export async function stageUpload(files: readonly ArchiveFile[], options: LoadOptions): Promise<Staged> {
  const root = await mkdtemp(path.join(tmpdir(), 'ih-publish-'));
  // Every upload is a new folder: its build leaves the in-process bundle cache with it.
  const cleanup = async () => {
    forgetBundlesUnder(root);
    forgetBundlesUnder(await realpath(root).catch(() => root));
    await rm(root, { recursive: true, force: true });
  };
  try {
    await writeFile(path.join(root, 'package.json'), '{"private":true}\n', { mode: 0o600 });
    const folder = path.join(root, STAGED_FOLDER);
    await writeFiles(files, folder);
    const loaded = await loadIntegration(folder, {
      ...options,
      devVars: false,
      mode: 'production',
      cacheDir: path.join(root, '.bundles'),
    });
    return {
      loaded: {
        ...loaded,
        errors: loaded.errors.map((problem) => relativeTo(folder, problem)),
        warnings: loaded.warnings.map((problem) => relativeTo(folder, problem)),
      },
      cleanup,
    };
  } catch (error) {
    await cleanup();
    throw error;
  }
}
