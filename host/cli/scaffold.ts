// Writes a new integration folder from a template of templates/: every file copied, with the
// placeholders ({{name}}, {{title}}, {{organization}}, {{ENV_PREFIX}}, {{harness}}) filled in.
// Never overwrites: an existing folder is an error naming it.

import { mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { HostError } from '../common/errors.ts';
import { envPrefixOf } from '../manifest/secret-namespace.ts';

const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const TEMPLATES_DIR = path.join(REPO_ROOT, 'templates');
const HARNESS = path.join(REPO_ROOT, 'host/testing/harness.ts');
export const TEMPLATES = ['blank', 'block', 'oauth', 'webhook-consumer'] as const;
export type TemplateName = (typeof TEMPLATES)[number];

/** The manifest's rule for names (lower-kebab), checked before anything is written. */
const NAME = /^[a-z0-9]+(-[a-z0-9]+)*$/;

export function nameProblem(name: string): string | null {
  if (!NAME.test(name) || name.length > 64) {
    const suggestion = name.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '') || 'greeter';
    return `name "${name}" must be lower-kebab-case (a-z, 0-9 and single dashes, at most 64 characters), e.g. ${suggestion}`;
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
    throw new HostError('ERR_OPTIONS_INVALID', `${path.relative(process.cwd(), folder) || folder} already exists: choose another name, or remove that folder first`);
  }
  const source = path.join(TEMPLATES_DIR, request.template);
  const harness = path.relative(path.join(folder, 'test'), HARNESS).split(path.sep).join('/');
  const values = new Map([
    ['{{name}}', request.name],
    ['{{title}}', titleOf(request.name)],
    ['{{organization}}', request.organization],
    ['{{ENV_PREFIX}}', envPrefixOf(request.name)],
    ['{{harness}}', harness.startsWith('.') ? harness : `./${harness}`],
  ]);
  const files = await filesOf(source);
  for (const rel of files) {
    const text = (await readFile(path.join(source, rel), 'utf8')).replace(/\{\{(name|title|organization|ENV_PREFIX|harness)\}\}/g, (token) => values.get(token)!);
    await mkdir(path.dirname(path.join(folder, rel)), { recursive: true });
    await writeFile(path.join(folder, rel), text, { flag: 'wx' });
  }
  return { folder, files };
}
