// Public entry of manifest loading: YAML → schema → semantic, path and secret checks → bundle.
// A folder holds platform-manifest.yaml or gitbook-manifest.yaml (both is an error naming them).
// Never throws for a bad integration (it comes back 'invalid' with every problem found); never
// puts a secret value into a problem, and never bundles an integration that has an error.

import { readdir, realpath, stat } from 'node:fs/promises';
import { readRegularFile, UnreadableFileError } from './read-file.ts';
import path from 'node:path';
import { CORE_SCHEMA, load } from 'js-yaml';
import { HostError, type ErrorDetail } from '../common/errors.ts';
import {
  MANIFEST_FILES,
  type LoadedIntegration,
  type Manifest,
  type ManifestKind,
  type ManifestProblem,
} from './types.ts';
import { checkSchema, escapePointer, type Issue } from './validate.ts';
import { checkSemantics, findUnknownKeys, findUnusedKeys, isObject, semanticWarnings } from './semantic.ts';
import { checkManifestPaths } from './paths.ts';
import { resolveSecrets, type StoredSecretValue } from './secrets.ts';
import { DEV_VARS_FILE, readDevVars, withDevVars } from './dev-vars.ts';
import { ownerOf } from './secret-namespace.ts';
import type { IntegrationBundle } from './types.ts';
import { bundleScript, type BundleMode } from './bundle.ts';
import { displayPath } from './format.ts';
import { describeYamlError } from './yaml-error.ts';
import { MANIFEST_KEYS } from './schema.ts';

const KINDS = Object.keys(MANIFEST_FILES) as ManifestKind[];
/** The JSX runtime a manifest kind's `.tsx` files compile against (a file's own @jsxImportSource pragma wins). */
export const JSX_IMPORT_SOURCE: Record<ManifestKind, string> = { platform: 'sandbox-api', gitbook: '@gitbook/runtime' };
/** Manifests come from third parties: bound the work a single file can cause. */
const MAX_MANIFEST_BYTES = 256 * 1024;
const MAX_YAML_ALIASES = 32;

export interface LoadOptions {
  env: Record<string, string | undefined>;
  /** Bundle cache dir, default <repo>/.cache/bundles. */
  cacheDir?: string;
  firstPartyOrganizations?: string[];
  /** Integrations the operator names the platform's own (platform data and --first-party). */
  firstPartyIntegrations?: string[];
  /**
   * Set by `npm run check` only, which judges folders rather than the shell and platform it runs
   * in: unset secret variables are warnings, and see SemanticOptions.knownOrganizations.
   */
  check?: boolean;
  knownOrganizations?: string[];
  /** `MODE` and `process.env.NODE_ENV` in bundles; default production (`npm run dev` passes development). */
  mode?: BundleMode;
  /**
   * Fill unset secret variables from each folder's `.dev.vars` (dev-vars.ts). The command line and
   * the test harness turn it on; createHost() from code leaves it off unless asked.
   */
  devVars?: boolean;
  /**
   * The values the operator stored for an integration (host/secrets/), by variable name: they win
   * over the environment. Read at each load, so a reload sees the newest. Ignored by `check`.
   */
  storedSecrets?: (integration: string) => ReadonlyMap<string, StoredSecretValue> | undefined;
}

/** A checked integration before bundling; `declaredName` is the manifest's own name, if a string. */
interface Inspected {
  loaded: LoadedIntegration;
  /** The --dir folder the integration was found in (bare imports may resolve up to its workspace). */
  root: string;
  declaredName?: string;
  secretVariables?: Record<string, string>;
}

/** One integration folder, as if it had been found in its parent folder by --dir. */
export async function loadIntegration(dir: string, options: LoadOptions): Promise<LoadedIntegration> {
  const folder = path.resolve(dir);
  return finish(await inspectIntegration(folder, path.dirname(folder), options), options);
}

/**
 * A published version's folder (host/publish/), checked as a --dir folder is (manifest, paths,
 * secrets, never `.dev.vars`), its secret variables judged against `otherNames` (every other
 * integration the host knows), but served with the bundle it was accepted with instead of a new
 * build: every host serves the same code.
 */
export async function loadPublishedIntegration(
  dir: string,
  bundle: IntegrationBundle,
  options: LoadOptions,
  otherNames: readonly string[],
): Promise<LoadedIntegration> {
  const folder = path.resolve(dir);
  const inspected = await inspectIntegration(folder, path.dirname(folder), { ...options, devVars: false });
  const names = inspected.declaredName === undefined ? [] : [inspected.declaredName];
  markForeignSecretVariables([inspected], [...otherNames.filter((name) => !names.includes(name))]);
  const { loaded } = inspected;
  if (loaded.errors.length > 0) return { ...loaded, status: 'invalid' };
  return { ...loaded, status: 'ready', bundle };
}

/**
 * Every subfolder (one level) of each dir holding a manifest, or the dir itself when it holds one;
 * `name` must be unique across all. With `only`, every manifest is still read (names are judged
 * against all of them) but only those integrations are bundled and returned.
 */
export async function loadIntegrations(
  dirs: string[],
  options: LoadOptions,
  only?: ReadonlySet<string>,
): Promise<LoadedIntegration[]> {
  const roots = [...new Set(dirs.map((dir) => path.resolve(dir)))];
  const folders = (
    await Promise.all(
      roots.map(async (root) => (await listIntegrationFolders(root)).map((folder) => ({ folder, root }))),
    )
  ).flat();
  const inspected = await Promise.all(folders.map(({ folder, root }) => inspectIntegration(folder, root, options)));
  markDuplicateNames(inspected);
  markForeignSecretVariables(inspected);
  const wanted = only === undefined ? inspected : inspected.filter((item) => only.has(item.loaded.name));
  return Promise.all(wanted.map((item) => finish(item, options)));
}

async function listIntegrationFolders(root: string): Promise<string[]> {
  const entries = await readdir(root).catch((error: NodeJS.ErrnoException) => {
    throw new HostError(
      'ERR_OPTIONS_INVALID',
      `integrations folder "${root}" cannot be read (${error.code}): pass --dir with a folder that holds integrations`,
    );
  });
  // A --dir that is itself an integration folder (`--dir integrations/greeter`) serves just that one.
  if ((await manifestKindsIn(root)).length > 0) return [root];
  const folders: string[] = [];
  for (const name of entries.sort()) {
    const folder = path.join(root, name);
    // stat, not lstat: a symlinked integration folder is fine; its files are still contained.
    const isDir = (await stat(folder).catch(() => null))?.isDirectory();
    if (isDir && (await manifestKindsIn(folder)).length > 0) folders.push(folder);
  }
  return folders;
}

/** Which manifest files the folder holds (regular files, symlinks followed). */
async function manifestKindsIn(dir: string): Promise<ManifestKind[]> {
  const present = await Promise.all(
    KINDS.map(async (kind) => (await stat(path.join(dir, MANIFEST_FILES[kind])).catch(() => null))?.isFile() === true),
  );
  return KINDS.filter((_, index) => present[index]);
}

async function inspectIntegration(dir: string, root: string, options: LoadOptions): Promise<Inspected> {
  const kinds = await manifestKindsIn(dir);
  const kind: ManifestKind = kinds.length === 1 ? kinds[0] : 'platform';
  const manifestPath = path.join(dir, MANIFEST_FILES[kind]);
  const file = displayPath(manifestPath);
  const loaded: LoadedIntegration = {
    name: path.basename(dir),
    dir,
    manifestPath,
    manifestKind: kind,
    status: 'invalid',
    secrets: {},
    errors: [],
    warnings: [],
  };
  const attach = (issues: Issue[]): ManifestProblem[] => issues.map((issue) => ({ file, ...issue }));
  if (kinds.length > 1) {
    // Which one is meant cannot be guessed; loading either would silently ignore the other.
    loaded.errors.push({
      file: displayPath(dir),
      pointer: '',
      message: `the folder has both ${MANIFEST_FILES.platform} and ${MANIFEST_FILES.gitbook}; keep one of them`,
    });
    return { loaded, root };
  }
  const parsed = await readManifest(manifestPath);
  if ('problem' in parsed) {
    loaded.errors.push(...attach([parsed.problem]));
    return { loaded, root };
  }
  const doc = parsed.doc;
  const schemaIssues = checkSchema(doc);
  const owner = typeof doc.name === 'string' && doc.name !== '' ? doc.name : path.basename(dir);
  const devVars = options.devVars ? await readDevVars(dir, owner) : undefined;
  const { env, filled } = devVars ? withDevVars(options.env, devVars) : { env: options.env, filled: [] };
  const stored = options.check === true ? undefined : options.storedSecrets?.(owner);
  const devVarsFile = displayPath(path.join(dir, DEV_VARS_FILE));
  const secrets = resolveSecrets(doc.secrets, env, owner, {
    unsetIsWarning: options.check === true,
    ...(stored !== undefined ? { stored } : {}),
    ...(devVars !== undefined ? { devVarsFile } : {}),
  });
  if (Object.keys(secrets.sources).length > 0) loaded.secretSources = secrets.sources;
  loaded.errors.push(
    ...attach([
      ...schemaIssues,
      ...checkSemantics(doc, options),
      ...(await checkManifestPaths(await realpath(dir), doc)),
      ...secrets.errors,
    ]),
  );
  loaded.warnings.push(
    ...attach([
      ...findUnknownKeys(doc),
      ...findUnusedKeys(doc),
      ...semanticWarnings(doc, options),
      ...secrets.warnings,
    ]),
  );
  loaded.warnings.push(...(devVars?.warnings ?? []).map((issue) => ({ file: devVarsFile, ...issue })));
  // Only the filled-in variables a secret actually reads are worth saying.
  const used = filled.filter((name) => Object.values(secrets.variables).includes(name));
  if (used.length > 0) loaded.devVars = { file: devVarsFile, variables: used };
  // The manifest is exposed once its shape is right, so listings can show its title even when a
  // semantic, path or secret check failed; `status` stays the only verdict.
  if (schemaIssues.length === 0) loaded.manifest = pickKnownKeys(doc);
  if (loaded.errors.length === 0) loaded.secrets = secrets.values;
  const declaredName = typeof doc.name === 'string' && doc.name !== '' ? doc.name : undefined;
  if (declaredName) loaded.name = declaredName;
  return { loaded, root, declaredName, secretVariables: secrets.variables };
}

async function readManifest(manifestPath: string): Promise<{ doc: Record<string, unknown> } | { problem: Issue }> {
  const fail = (message: string) => ({ problem: { pointer: '', message } });
  let text: string;
  try {
    text = (await readRegularFile(manifestPath, MAX_MANIFEST_BYTES)).toString('utf8');
  } catch (error) {
    if (error instanceof UnreadableFileError) return fail(`${path.basename(manifestPath)} ${error.message}`);
    return fail(`cannot read ${path.basename(manifestPath)} (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  let doc: unknown;
  try {
    // CORE_SCHEMA: plain data only, no custom tags that could construct anything.
    doc = load(text, { schema: CORE_SCHEMA, maxAliases: MAX_YAML_ALIASES });
  } catch (error) {
    const { reason, mark } = error as { reason?: string; mark?: { line: number; column: number } };
    if (!mark) return fail(`invalid YAML: ${reason ?? String(error)}`);
    return { problem: { pointer: '', ...describeYamlError(text, reason ?? String(error), mark) } };
  }
  if (!isObject(doc)) {
    const kind = Array.isArray(doc) ? 'a list' : doc === null ? 'null' : `a ${typeof doc}`;
    return fail(`manifest must be a YAML mapping of keys to values (got ${kind})`);
  }
  return { doc };
}

/**
 * Both (or all) holders of a shared name become invalid, each naming the other folders. Names
 * differing only in case (`VA-Okta`, `va-okta`) clash too: they share a secret namespace.
 */
function markDuplicateNames(inspected: Inspected[]): void {
  const byName = new Map<string, Inspected[]>();
  for (const item of inspected) {
    if (!item.declaredName) continue;
    const key = item.declaredName.toLowerCase();
    byName.set(key, [...(byName.get(key) ?? []), item]);
  }
  for (const holders of byName.values()) {
    if (holders.length < 2) continue;
    for (const item of holders) {
      const others = holders.filter((other) => other !== item).map((other) => displayPath(other.loaded.dir));
      const file = displayPath(item.loaded.manifestPath);
      item.loaded.errors.push({
        file,
        pointer: '/name',
        message: `name "${item.declaredName}" is also used by the integration in ${others.join(', ')}`,
      });
      item.loaded.secrets = {};
    }
  }
}

/**
 * A secret read from another loaded integration's namespace (a longer name owns it) is refused;
 * `others` are names known besides the inspected ones (published integrations).
 */
function markForeignSecretVariables(inspected: Inspected[], others: readonly string[] = []): void {
  const names = [...inspected.flatMap((item) => (item.declaredName ? [item.declaredName] : [])), ...others];
  for (const item of inspected) {
    for (const [key, variable] of Object.entries(item.secretVariables ?? {})) {
      const owner = ownerOf(variable, names);
      if (owner === undefined || owner === item.declaredName) continue;
      const file = displayPath(item.loaded.manifestPath);
      item.loaded.errors.push({
        file,
        pointer: `/secrets/${escapePointer(key)}`,
        message: `secret "${key}" cannot read ${variable}: it belongs to the integration "${owner}"`,
      });
      item.loaded.secrets = {};
    }
  }
}

async function finish({ loaded, root }: Inspected, options: LoadOptions): Promise<LoadedIntegration> {
  const script = loaded.manifest?.script;
  if (loaded.errors.length > 0) return { ...loaded, status: 'invalid' };
  if (script) {
    try {
      loaded.bundle = await bundleScript(loaded.dir, script, {
        cacheDir: options.cacheDir,
        root,
        mode: options.mode,
        jsxImportSource: JSX_IMPORT_SOURCE[loaded.manifestKind ?? 'platform'],
      });
    } catch (error) {
      const file = displayPath(loaded.manifestPath);
      const details: ErrorDetail[] =
        error instanceof HostError && error.details ? error.details : [{ message: (error as Error).message }];
      // A build error in a source file is reported against that file, at its place.
      loaded.errors.push(
        ...details.map(({ message, source }) => {
          if (source === undefined) return { file, pointer: '/script', message };
          const { file: inFolder, ...at } = source;
          return { file: displayPath(path.resolve(loaded.dir, inFolder)), pointer: '/script', message, at };
        }),
      );
      loaded.secrets = {};
      return { ...loaded, status: 'invalid' };
    }
  }
  return { ...loaded, status: 'ready' };
}

/** The manifest without unknown top-level keys (they were reported as warnings, not dropped silently). */
function pickKnownKeys(doc: Record<string, unknown>): Manifest {
  return Object.fromEntries(Object.entries(doc).filter(([key]) => MANIFEST_KEYS.includes(key))) as unknown as Manifest;
}
