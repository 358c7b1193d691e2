// Public entry of manifest loading: YAML → schema → semantic, path and secret checks → bundle.
// Never throws for a bad integration (it comes back 'invalid' with every problem found); never
// puts a secret value into a problem, and never bundles an integration that has an error.

import { readdir, realpath, stat } from 'node:fs/promises';
import { readRegularFile, UnreadableFileError } from './read-file.ts';
import path from 'node:path';
import { CORE_SCHEMA, load } from 'js-yaml';
import { HostError } from '../common/errors.ts';
import type { LoadedIntegration, Manifest, ManifestProblem } from './types.ts';
import { checkSchema, escapePointer, type Issue } from './validate.ts';
import { checkSemantics, findUnknownKeys, isObject } from './semantic.ts';
import { checkManifestPaths } from './paths.ts';
import { resolveSecrets } from './secrets.ts';
import { ownerOf } from './secret-namespace.ts';
import { bundleScript } from './bundle.ts';
import { displayPath } from './format.ts';
import { MANIFEST_KEYS } from './schema.ts';

const MANIFEST_FILE = 'platform-manifest.yaml';
/** Manifests come from third parties: bound the work a single file can cause. */
const MAX_MANIFEST_BYTES = 256 * 1024;
const MAX_YAML_ALIASES = 32;

export interface LoadOptions {
  env: Record<string, string | undefined>;
  /** Bundle cache dir, default <repo>/.cache/bundles. */
  cacheDir?: string;
  firstPartyOrganizations?: string[];
}

/** A checked integration before bundling; `declaredName` is the manifest's own name, if a string. */
interface Inspected {
  loaded: LoadedIntegration;
  declaredName?: string;
  secretVariables?: Record<string, string>;
}

export async function loadIntegration(dir: string, options: LoadOptions): Promise<LoadedIntegration> {
  return finish(await inspectIntegration(path.resolve(dir), options), options);
}

/** Every subfolder (one level) of each dir holding a manifest; `name` must be unique across all. */
export async function loadIntegrations(dirs: string[], options: LoadOptions): Promise<LoadedIntegration[]> {
  const roots = [...new Set(dirs.map((dir) => path.resolve(dir)))];
  const folders = (await Promise.all(roots.map(listIntegrationFolders))).flat();
  const inspected = await Promise.all(folders.map((folder) => inspectIntegration(folder, options)));
  markDuplicateNames(inspected);
  markForeignSecretVariables(inspected);
  return Promise.all(inspected.map((item) => finish(item, options)));
}

async function listIntegrationFolders(root: string): Promise<string[]> {
  const entries = await readdir(root).catch((error: NodeJS.ErrnoException) => {
    throw new HostError('ERR_OPTIONS_INVALID', `integrations directory "${root}" cannot be read (${error.code})`);
  });
  const folders: string[] = [];
  for (const name of entries.sort()) {
    const folder = path.join(root, name);
    // stat, not lstat: a symlinked integration folder is fine; its files are still contained.
    const isDir = (await stat(folder).catch(() => null))?.isDirectory();
    if (isDir && (await stat(path.join(folder, MANIFEST_FILE)).catch(() => null))?.isFile()) folders.push(folder);
  }
  return folders;
}

async function inspectIntegration(dir: string, options: LoadOptions): Promise<Inspected> {
  const manifestPath = path.join(dir, MANIFEST_FILE);
  const file = displayPath(manifestPath);
  const loaded: LoadedIntegration = {
    name: path.basename(dir), dir, manifestPath, status: 'invalid', secrets: {}, errors: [], warnings: [],
  };
  const attach = (issues: Issue[]): ManifestProblem[] => issues.map((issue) => ({ file, ...issue }));
  const parsed = await readManifest(manifestPath);
  if ('problem' in parsed) {
    loaded.errors.push(...attach([parsed.problem]));
    return { loaded };
  }
  const doc = parsed.doc;
  const schemaIssues = checkSchema(doc);
  const owner = typeof doc.name === 'string' && doc.name !== '' ? doc.name : path.basename(dir);
  const secrets = resolveSecrets(doc.secrets, options.env, owner);
  loaded.errors.push(...attach([
    ...schemaIssues,
    ...checkSemantics(doc, options),
    ...(await checkManifestPaths(await realpath(dir), doc)),
    ...secrets.errors,
  ]));
  loaded.warnings.push(...attach([...findUnknownKeys(doc), ...secrets.warnings]));
  // The manifest is exposed once its shape is right, so listings can show its title even when a
  // semantic, path or secret check failed; `status` stays the only verdict.
  if (schemaIssues.length === 0) loaded.manifest = pickKnownKeys(doc);
  if (loaded.errors.length === 0) loaded.secrets = secrets.values;
  const declaredName = typeof doc.name === 'string' && doc.name !== '' ? doc.name : undefined;
  if (declaredName) loaded.name = declaredName;
  return { loaded, declaredName, secretVariables: secrets.variables };
}

async function readManifest(manifestPath: string): Promise<{ doc: Record<string, unknown> } | { problem: Issue }> {
  const fail = (message: string) => ({ problem: { pointer: '', message } });
  let text: string;
  try {
    text = (await readRegularFile(manifestPath, MAX_MANIFEST_BYTES)).toString('utf8');
  } catch (error) {
    if (error instanceof UnreadableFileError) return fail(`${MANIFEST_FILE} ${error.message}`);
    return fail(`cannot read ${MANIFEST_FILE} (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  let doc: unknown;
  try {
    // CORE_SCHEMA: plain data only, no custom tags that could construct anything.
    doc = load(text, { schema: CORE_SCHEMA, maxAliases: MAX_YAML_ALIASES });
  } catch (error) {
    const { reason, mark } = error as { reason?: string; mark?: { line: number; column: number } };
    const where = mark ? ` at line ${mark.line + 1}, column ${mark.column + 1}` : '';
    return fail(`invalid YAML: ${reason ?? String(error)}${where}`);
  }
  if (!isObject(doc)) {
    const kind = Array.isArray(doc) ? 'a list' : doc === null ? 'null' : `a ${typeof doc}`;
    return fail(`manifest must be a YAML mapping of keys to values (got ${kind})`);
  }
  return { doc };
}

/** Both (or all) holders of a shared name become invalid, each naming the other folders. */
function markDuplicateNames(inspected: Inspected[]): void {
  const byName = new Map<string, Inspected[]>();
  for (const item of inspected) {
    if (item.declaredName) byName.set(item.declaredName, [...(byName.get(item.declaredName) ?? []), item]);
  }
  for (const [name, holders] of byName) {
    if (holders.length < 2) continue;
    for (const item of holders) {
      const others = holders.filter((other) => other !== item).map((other) => displayPath(other.loaded.dir));
      const file = displayPath(item.loaded.manifestPath);
      item.loaded.errors.push({ file, pointer: '/name', message: `name "${name}" is also used by the integration in ${others.join(', ')}` });
      item.loaded.secrets = {};
    }
  }
}

/** A secret read from another loaded integration's namespace (a longer name owns it) is refused. */
function markForeignSecretVariables(inspected: Inspected[]): void {
  const names = inspected.flatMap((item) => (item.declaredName ? [item.declaredName] : []));
  for (const item of inspected) {
    for (const [key, variable] of Object.entries(item.secretVariables ?? {})) {
      const owner = ownerOf(variable, names);
      if (owner === undefined || owner === item.declaredName) continue;
      const file = displayPath(item.loaded.manifestPath);
      item.loaded.errors.push({ file, pointer: `/secrets/${escapePointer(key)}`, message: `secret "${key}" cannot read ${variable}: it belongs to the integration "${owner}"` });
      item.loaded.secrets = {};
    }
  }
}

async function finish({ loaded }: Inspected, options: LoadOptions): Promise<LoadedIntegration> {
  const script = loaded.manifest?.script;
  if (loaded.errors.length > 0) return { ...loaded, status: 'invalid' };
  if (script) {
    try {
      loaded.bundle = await bundleScript(loaded.dir, script, { cacheDir: options.cacheDir });
    } catch (error) {
      const file = displayPath(loaded.manifestPath);
      const details = error instanceof HostError && error.details ? error.details : [{ message: (error as Error).message }];
      loaded.errors.push(...details.map((detail) => ({ file, pointer: '/script', message: detail.message })));
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
