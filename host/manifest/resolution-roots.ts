// Where an integration's bare imports may resolve: the node_modules folder of the integration
// folder and of each of its ancestors up to the workspace root, which is the nearest ancestor of
// the --dir root (inclusive) holding a package.json, or the --dir root itself (npm workspaces
// hoist dependencies to that root). Pure path arithmetic plus existence checks; never reads a file.

import { realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { isInside } from './paths.ts';

export interface ResolutionRoots {
  /** Real path of the integration folder. */
  integrationDir: string;
  /** Real path of the workspace root. */
  workspaceRoot: string;
  /**
   * `<folder>/node_modules` for the integration folder and each ancestor up to the workspace root,
   * nearest first. Built from real ancestors but never realpath'd themselves: a node_modules that
   * is a symlink to elsewhere therefore contains nothing that may enter a bundle.
   */
  nodeModules: string[];
}

async function isFile(file: string): Promise<boolean> {
  return (await stat(file).catch(() => null))?.isFile() === true;
}

/** The nearest folder from `start` upwards (inclusive) with a package.json, or null. */
async function nearestPackageRoot(start: string): Promise<string | null> {
  for (let dir = start; ; dir = path.dirname(dir)) {
    if (await isFile(path.join(dir, 'package.json'))) return dir;
    if (path.dirname(dir) === dir) return null;
  }
}

/**
 * `integrationDirReal` must already be a real path. `dirRoot` is the folder given to --dir (for a
 * single integration, the integration folder itself); an integration folder outside the workspace
 * (a symlinked folder) resolves through its own node_modules only.
 */
export async function resolutionRoots(integrationDirReal: string, dirRoot: string): Promise<ResolutionRoots> {
  const rootReal = await realpath(dirRoot).catch(() => path.resolve(dirRoot));
  const workspaceRoot = (await nearestPackageRoot(rootReal)) ?? rootReal;
  const nodeModules = [path.join(integrationDirReal, 'node_modules')];
  if (isInside(workspaceRoot, integrationDirReal)) {
    for (let dir = integrationDirReal; dir !== workspaceRoot; ) {
      dir = path.dirname(dir);
      nodeModules.push(path.join(dir, 'node_modules'));
    }
  }
  return { integrationDir: integrationDirReal, workspaceRoot, nodeModules };
}
