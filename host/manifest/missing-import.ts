// What a problem says about a relative import of the integration's own code that names no file.
// Such a file is usually made by the integration's own build step and not committed (GitBook's
// linear imports its GraphQL codegen output, marketo and runkit their webframe bundles), so the
// problem names the build scripts of the folder's package.json and the .gitignore line that keeps
// the file out. Reads only those two files, as regular files inside the folder, capped; runs nothing.

import { existsSync } from 'node:fs';
import { realpath } from 'node:fs/promises';
import path from 'node:path';
import { sanitizeLogText } from '../common/log-text.ts';
import { isInside } from './paths.ts';
import { readRegularFile } from './read-file.ts';

/** package.json and .gitignore are small; a larger one is not worth reading for a hint. */
const MAX_HINT_FILE_BYTES = 256 * 1024;
/** Extensions the bundler tries after a relative specifier (containment.ts loads these). */
const EXTENSIONS = ['.ts', '.tsx', '.js', '.jsx', '.mjs', '.cjs', '.json'];
/** Script names that build or generate code (`build`, `codegen`, `generate:types`, `prebuild`…). */
const BUILD_SCRIPT = /build|generat|codegen|compile|bundle|prepare/i;
const MAX_SCRIPTS_SHOWN = 3;
const MAX_SCRIPT_TEXT = 120;
/** Longer lines, or more wildcards, are skipped: a hint is not worth a pathological pattern's backtracking. */
const MAX_PATTERN_LENGTH = 256;
const MAX_WILDCARDS = 4;

/** A file of the integration folder, or null when it is absent, elsewhere (a symlink out), special or too large. */
async function readOwnFile(dirReal: string, name: string): Promise<string | null> {
  const real = await realpath(path.join(dirReal, name)).catch(() => null);
  if (real === null || !isInside(dirReal, real)) return null;
  const bytes = await readRegularFile(real, MAX_HINT_FILE_BYTES).catch(() => null);
  return bytes === null ? null : bytes.toString('utf8');
}

export interface BuildScript {
  name: string;
  command: string;
}

/** The build-like scripts of the folder's package.json, in file order. */
export async function buildScriptsOf(dirReal: string): Promise<BuildScript[]> {
  const text = await readOwnFile(dirReal, 'package.json');
  if (text === null) return [];
  let scripts: unknown;
  try {
    scripts = (JSON.parse(text) as { scripts?: unknown })?.scripts;
  } catch {
    return [];
  }
  if (scripts === null || typeof scripts !== 'object' || Array.isArray(scripts)) return [];
  return Object.entries(scripts).flatMap(([name, command]) =>
    typeof command === 'string' && BUILD_SCRIPT.test(name) ? [{ name, command }] : [],
  );
}

/** Text from the folder, quoted and made safe to print (control characters and bidi overrides escaped). */
function quoted(text: string, max = MAX_SCRIPT_TEXT): string {
  return sanitizeLogText(JSON.stringify(text.length > max ? `${text.slice(0, max)}…` : text));
}

function globToRegExp(glob: string): RegExp {
  let source = '';
  for (let index = 0; index < glob.length; index++) {
    const char = glob[index];
    if (char === '*' && glob[index + 1] === '*') {
      source += '.*';
      index++;
    } else if (char === '*') source += '[^/]*';
    else if (char === '?') source += '[^/]';
    else source += char.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${source}$`);
}

/**
 * The first line of the folder's .gitignore that ignores one of `candidates` (paths inside the
 * folder, `/` separated) or a folder above it. Enough of gitignore's rules for a hint: a pattern
 * with a slash matches from the folder, one without matches any single name; `*`, `**` and `?`;
 * negations and comments are skipped.
 */
export async function ignoringLine(dirReal: string, candidates: string[]): Promise<string | undefined> {
  const text = await readOwnFile(dirReal, '.gitignore');
  if (text === null) return undefined;
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#') || line.startsWith('!') || line.length > MAX_PATTERN_LENGTH) continue;
    if ((line.match(/[*?]/g)?.length ?? 0) > MAX_WILDCARDS) continue;
    const pattern = line.replace(/^(\*\*)?\//, '').replace(/\/$/, '');
    if (pattern === '') continue;
    const regex = globToRegExp(pattern);
    const anchored = pattern.includes('/');
    for (const candidate of candidates) {
      const segments = candidate.split('/');
      const tested = anchored ? segments.map((_, index) => segments.slice(0, index + 1).join('/')) : segments;
      if (tested.some((part) => regex.test(part))) return line;
    }
  }
  return undefined;
}

/**
 * The end of the problem for `specifier`, a relative import from a file of the integration that the
 * bundler could not resolve: `, which does not exist: …` with the likely cause and what to do, or
 * undefined when something is there (a folder without an index, say) and the generic words fit better.
 */
export async function describeMissingImport(
  dirReal: string,
  resolveDir: string,
  specifier: string,
): Promise<string | undefined> {
  const target = path.resolve(resolveDir, specifier);
  if (!isInside(dirReal, target) || existsSync(target)) return undefined;
  const relative = path.relative(dirReal, target).split(path.sep).join('/');
  const [scripts, ignored] = await Promise.all([
    buildScriptsOf(dirReal),
    ignoringLine(dirReal, [relative, ...EXTENSIONS.map((extension) => `${relative}${extension}`)]),
  ]);
  const because = ignored === undefined ? '' : `; the folder's .gitignore lists ${quoted(ignored)}`;
  if (scripts.length > 0) {
    const listed =
      scripts
        .slice(0, MAX_SCRIPTS_SHOWN)
        .map((script) => `${quoted(script.name)}: ${quoted(script.command)}`)
        .join(', ') + (scripts.length > MAX_SCRIPTS_SHOWN ? ', …' : '');
    return (
      `, which does not exist: it is probably generated by the integration's own build step (package.json ` +
      `scripts: ${listed}${because}); run it first (npm ` +
      `run ${/^[\w:.@/-]+$/.test(scripts[0].name) ? scripts[0].name : quoted(scripts[0].name)} ` +
      `in the integration's folder), then check again`
    );
  }
  if (ignored !== undefined) {
    return (
      `, which does not exist: the folder's .gitignore lists ${quoted(ignored)}, so it is ` +
      `probably generated by a build step of the integration; run that first, then check again`
    );
  }
  return `, which does not exist (nothing at ${relative}, with or without a ${EXTENSIONS.join(', ')} extension)`;
}
