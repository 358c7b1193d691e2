// `npm run gitbook-compat -- prepare <tree> --from <repo>`: puts GitBook's `integrations/` folder
// into a new folder and installs what its workspace would (dependency-plan.ts) with npm, install
// scripts off. Writes only inside <tree>; never touches an existing non-empty folder.

import { execFileSync, spawnSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import {
  planDependencies,
  TYPE_PACKAGE,
  workspacePins,
  type DependencyPlan,
  type PackageDeps,
} from './dependency-plan.ts';

export interface PrepareOptions {
  tree: string;
  /** A bare git repository, a checkout, or a folder holding `integrations/`. */
  from: string;
  /** The commit to take from a git repository (default HEAD). */
  ref?: string;
  log?: (line: string) => void;
}

/** Written into the tree: where it came from and what was installed where. */
export const TREE_RECORD = 'gitbook-compat-tree.json';
const REPOSITORY_PACKAGE = new URL('../../package.json', import.meta.url);

function gitDirOf(from: string): string | null {
  if (existsSync(path.join(from, 'HEAD')) && existsSync(path.join(from, 'objects'))) return from;
  if (existsSync(path.join(from, '.git'))) return path.join(from, '.git');
  return null;
}

function extract(from: string, ref: string, tree: string): { commit: string | null } {
  const gitDir = gitDirOf(from);
  if (gitDir !== null) {
    const commit = execFileSync('git', ['--git-dir', gitDir, 'rev-parse', '--verify', `${ref}^{commit}`], {
      encoding: 'utf8',
    }).trim();
    const archive = execFileSync('git', ['--git-dir', gitDir, 'archive', commit, 'integrations'], {
      maxBuffer: 1 << 30,
    });
    execFileSync('tar', ['-x', '-C', tree], { input: archive });
    return { commit };
  }
  if (!existsSync(path.join(from, 'integrations')))
    throw new Error(`${from} is neither a git repository nor a folder holding integrations/`);
  cpSync(path.join(from, 'integrations'), path.join(tree, 'integrations'), {
    recursive: true,
    filter: (source) => path.basename(source) !== 'node_modules',
  });
  return { commit: null };
}

function readPackages(integrations: string): Record<string, PackageDeps> {
  const packages: Record<string, PackageDeps> = {};
  for (const name of readdirSync(integrations).sort()) {
    const file = path.join(integrations, name, 'package.json');
    if (existsSync(file)) packages[name] = JSON.parse(readFileSync(file, 'utf8')) as PackageDeps;
  }
  return packages;
}

/** The package npm's E404 names, when the failure is that one. */
function unpublished(stderr: string): string | null {
  const match = /404 Not Found - GET https?:\/\/\S+?\/((?:@[^/\s]+(?:\/|%2f))?[^/\s]+)\s/i.exec(stderr);
  return match ? decodeURIComponent(match[1]) : null;
}

/**
 * Installs `dependencies` in `folder` (a package.json of its own). A type-declaration package npm
 * does not publish (GitBook's `@gitbook/browser-types` lives only in its workspace) is left out and
 * returned; any other failure throws with npm's message.
 */
function npmInstall(folder: string, dependencies: Record<string, string>, log: (line: string) => void): string[] {
  const left: string[] = [];
  const wanted = { ...dependencies };
  for (;;) {
    writeFileSync(
      path.join(folder, 'package.json'),
      `${JSON.stringify({ name: 'gitbook-compat-tree', private: true, dependencies: wanted }, null, 2)}\n`,
    );
    log(
      `npm install in ${folder}: ${Object.entries(wanted)
        .map(([name, range]) => `${name}@${range}`)
        .join(' ')}`,
    );
    const run = spawnSync('npm', ['install', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error'], {
      cwd: folder,
      encoding: 'utf8',
    });
    if (run.status === 0) return left;
    const missing = unpublished(run.stderr ?? '');
    if (missing === null || !Object.hasOwn(wanted, missing) || !TYPE_PACKAGE.test(missing))
      throw new Error(`npm install failed in ${folder}:\n${run.stderr ?? run.error}`);
    log(`${missing} is not on npm: left out (type declarations only)`);
    delete wanted[missing];
    left.push(missing);
  }
}

/** Extracts and installs; returns the plan it installed. Throws (with the tree left for inspection) on failure. */
export function prepareTree(options: PrepareOptions): DependencyPlan {
  const log = options.log ?? (() => undefined);
  const tree = path.resolve(options.tree);
  if (existsSync(tree) && (!statSync(tree).isDirectory() || readdirSync(tree).length > 0)) {
    throw new Error(`${tree} exists and is not an empty folder: remove it or name another one`);
  }
  mkdirSync(tree, { recursive: true });
  const { commit } = extract(path.resolve(options.from), options.ref ?? 'HEAD', tree);
  const integrations = path.join(tree, 'integrations');
  const packages = readPackages(integrations);
  log(
    `extracted ${Object.keys(packages).length} integrations${commit ? ` at ${commit.slice(0, 8)}` : ''} ` +
      `into ${integrations}`,
  );
  const plan = planDependencies(
    packages,
    workspacePins(JSON.parse(readFileSync(REPOSITORY_PACKAGE, 'utf8')) as PackageDeps),
  );
  const unpublishedTypes = npmInstall(tree, plan.hoisted, log);
  for (const [integration, dependencies] of Object.entries(plan.nested)) {
    // npm cannot install inside the integration's folder: its package.json names `workspace:` packages.
    const scratch = path.join(tree, '.nested', integration);
    mkdirSync(scratch, { recursive: true });
    unpublishedTypes.push(...npmInstall(scratch, dependencies, log));
    renameSync(path.join(scratch, 'node_modules'), path.join(integrations, integration, 'node_modules'));
  }
  rmSync(path.join(tree, '.nested'), { recursive: true, force: true });
  for (const name of unpublishedTypes) {
    for (const [integration, deps] of Object.entries(readPackages(integrations))) {
      const range = deps.devDependencies?.[name] ?? deps.dependencies?.[name];
      if (range !== undefined) plan.skipped.push({ integration, name, range, why: 'not published on npm' });
    }
    delete plan.hoisted[name];
  }
  const record = {
    from: options.from,
    ref: options.ref ?? 'HEAD',
    commit,
    preparedAt: new Date().toISOString(),
    ...plan,
  };
  writeFileSync(path.join(tree, TREE_RECORD), `${JSON.stringify(record, null, 2)}\n`);
  return plan;
}
