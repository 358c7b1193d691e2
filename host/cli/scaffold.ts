// Writes a new integration folder from a template of templates/: every file copied, with the
// placeholders ({{name}}, {{title}}, {{organization}}, {{ENV_PREFIX}}, {{harness}}, {{testCommand}}) filled in, plus
// its tsconfig.json and .gitignore. Never overwrites: an existing folder is an error naming it.

import { PACKAGE_ROOT } from '../common/package-root.ts';
import { realpathSync } from 'node:fs';
import { mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { HostError } from '../common/errors.ts';
import { commandLine } from '../common/invocation.ts';
import { envPrefixOf } from '../manifest/secret-namespace.ts';

export const TEMPLATES_DIR = path.join(PACKAGE_ROOT, 'templates');
const HARNESS = path.join(PACKAGE_ROOT, 'host/testing/harness.ts');
const BASE_TSCONFIG = path.join(PACKAGE_ROOT, 'tsconfig.integration.json');
const PACKAGE_NAME = 'integration-host';

/** Whether `folder` finds this very package by name in a node_modules above it (an author's project). */
function installedAbove(folder: string): boolean {
  for (let dir = folder; ; dir = path.dirname(dir)) {
    try {
      if (realpathSync(path.join(dir, 'node_modules', PACKAGE_NAME)) === realpathSync(PACKAGE_ROOT)) return true;
    } catch {
      // not installed at this level
    }
    if (path.dirname(dir) === dir) return false;
  }
}

/** `specifier` where the package is installed above `from`, else the relative path to `file`. */
function reference(from: string, installed: boolean, specifier: string, file: string): string {
  if (installed) return specifier;
  const relative = path.relative(from, file).split(path.sep).join('/');
  return relative.startsWith('.') ? relative : `./${relative}`;
}

/** What git should not keep: the local secrets file `dev` reads, and installed packages. */
const GITIGNORE = '# Secrets for `dev`, one NAME=value per line: never committed.\n.dev.vars\nnode_modules/\n';

/** The folder's compiler settings: the isolate's types for src/, Node's too for test/ (the harness runs there). */
function tsconfigFor(folder: string, installed: boolean): string {
  const extendsPath = reference(folder, installed, `${PACKAGE_NAME}/tsconfig.integration.json`, BASE_TSCONFIG);
  return `${JSON.stringify({ extends: extendsPath, include: ['src', 'test', '*.d.ts'] }, null, 2)}\n`;
}
export const TEMPLATES = ['blank', 'block', 'oauth', 'webhook-consumer'] as const;
export type TemplateName = (typeof TEMPLATES)[number];

/** The manifest's rule for names (lower-kebab), checked before anything is written. */
const NAME = /^[a-z0-9]+(-[a-z0-9]+)*$/;

export function nameProblem(name: string): string | null {
  if (!NAME.test(name) || name.length > 64) {
    const suggestion =
      name
        .toLowerCase()
        .replace(/[^a-z0-9]+/g, '-')
        .replace(/^-+|-+$/g, '') || 'greeter';
    return (
      `name "${name}" must be lower-kebab-case (a-z, 0-9 and single ` +
      `dashes, at most 64 characters), e.g. ${suggestion}`
    );
  }
  return null;
}

export function titleOf(name: string): string {
  const words = name.split('-');
  return [words[0].charAt(0).toUpperCase() + words[0].slice(1), ...words.slice(1)].join(' ');
}

async function filesOf(dir: string, prefix = ''): Promise<string[]> {
  const found: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const rel = path.join(prefix, entry.name);
    if (entry.isDirectory()) found.push(...(await filesOf(path.join(dir, entry.name), rel)));
    else found.push(rel);
  }
  return found.sort();
}

export interface ScaffoldRequest {
  name: string;
  template: TemplateName;
  /** The folder the integration folder is created in. */
  parent: string;
  organization: string;
}

/** Creates `<parent>/<name>/` from the template; returns its path and the files written (relative). */
export async function scaffold(request: ScaffoldRequest): Promise<{ folder: string; files: string[] }> {
  const folder = path.resolve(request.parent, request.name);
  if ((await stat(folder).catch(() => null)) !== null) {
    throw new HostError(
      'ERR_OPTIONS_INVALID',
      `${path.relative(process.cwd(), folder) || folder} already ` +
        `exists: choose another name, or remove that folder first`,
    );
  }
  const source = path.join(TEMPLATES_DIR, request.template);
  const installed = installedAbove(path.dirname(folder));
  const values = new Map([
    ['{{name}}', request.name],
    ['{{title}}', titleOf(request.name)],
    ['{{organization}}', request.organization],
    ['{{ENV_PREFIX}}', envPrefixOf(request.name)],
    ['{{harness}}', reference(path.join(folder, 'test'), installed, `${PACKAGE_NAME}/testing`, HARNESS)],
    ['{{testCommand}}', commandLine('test', path.relative(process.cwd(), folder) || '.')],
  ]);
  const files = await filesOf(source);
  for (const rel of files) {
    const text = (await readFile(path.join(source, rel), 'utf8')).replace(
      /\{\{(name|title|organization|ENV_PREFIX|harness|testCommand)\}\}/g,
      (token) => values.get(token)!,
    );
    await mkdir(path.dirname(path.join(folder, rel)), { recursive: true });
    await writeFile(path.join(folder, rel), text, { flag: 'wx' });
  }
  await writeFile(path.join(folder, 'tsconfig.json'), tsconfigFor(folder, installed), { flag: 'wx' });
  await writeFile(path.join(folder, '.gitignore'), GITIGNORE, { flag: 'wx' });
  return { folder, files: [...files, 'tsconfig.json', '.gitignore'].sort() };
}
