// Reads the WPT selection in WPT_DIR: tests.txt, each file's `// META:` lines, the scripts they
// name and the JSON resources the tests fetch by a literal relative URL. Reads only inside WPT_DIR;
// never changes a file there and never runs any of it.

import { existsSync, readFileSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';

/** A file the test reads with fetch(), served from memory by the guest driver. */
export interface WptResource {
  /** Absolute path on the WPT server, `/url/resources/urltestdata.json`. */
  path: string;
  type: string;
  text: string;
}

export interface WptScript {
  /** WPT path of the script, `/resources/testharness.js`. */
  path: string;
  source: string;
}

export interface WptFile {
  /** As listed in tests.txt: `url/url-constructor.any.js`. */
  path: string;
  title?: string;
  /** `// META: timeout=long`: testharness's long timeout instead of its normal one. */
  long: boolean;
  /** The META scripts, then the test itself (testharness.js is not among them). */
  scripts: WptScript[];
  resources: WptResource[];
}

export interface WptSuite {
  dir: string;
  harness: string;
  files: WptFile[];
}

/** The harness's environment detection, replaced by its shell environment (README of the selection). */
const ENVIRONMENT_DETECTION = 'var test_environment = create_test_environment();';
const SHELL_ENVIRONMENT = 'var test_environment = new ShellTestEnvironment();';

const META_LINE = /^\/\/ META: *([a-z]+)=(.*)$/;
/** A literal URL given to fetch() or testharness's fetch_json(). */
const FETCHED_LITERAL = /\bfetch(?:_json)?\(\s*(["'`])([^"'`$]+)\1/g;

const CONTENT_TYPES = new Map([
  ['.json', 'application/json'],
  ['.js', 'text/javascript'],
  ['.txt', 'text/plain'],
]);

/** WPT_DIR as given (relative to the working directory), or null when it is unset or empty. */
export function wptDirFromEnv(env: Record<string, string | undefined> = process.env): string | null {
  const value = env.WPT_DIR?.trim();
  return value ? path.resolve(value) : null;
}

/** The file `wptPath` (absolute on the WPT server, or relative to `fromDir`) inside `dir`, or null outside it. */
function fileInside(dir: string, fromDir: string, wptPath: string): string | null {
  const relative = wptPath.startsWith('/') ? path.posix.normalize(wptPath.slice(1)) : path.posix.join(fromDir, wptPath);
  if (relative.startsWith('..') || path.posix.isAbsolute(relative)) return null;
  const file = path.join(dir, ...relative.split('/'));
  if (!existsSync(file) || !statSync(file).isFile()) return null;
  const real = realpathSync(file);
  const root = realpathSync(dir);
  return real.startsWith(root + path.sep) ? real : null;
}

function wptPathOf(dir: string, file: string): string {
  return '/' + path.relative(realpathSync(dir), file).split(path.sep).join('/');
}

/** The META lines of a test: they open the file, before any code. */
export function parseMeta(source: string): { key: string; value: string }[] {
  const meta: { key: string; value: string }[] = [];
  for (const line of source.split('\n')) {
    const trimmed = line.trim();
    if (trimmed === '') continue;
    const match = META_LINE.exec(trimmed);
    if (match === null) break;
    meta.push({ key: match[1], value: match[2].trim() });
  }
  return meta;
}

/** Relative URLs the sources fetch literally (`resources/urltestdata.json`), as written. */
export function fetchedLiterals(sources: string[]): string[] {
  const found = new Set<string>();
  for (const source of sources) for (const match of source.matchAll(FETCHED_LITERAL)) found.add(match[2]);
  return [...found].filter((url) => !/^[a-z][a-z0-9+.-]*:/i.test(url));
}

function loadFile(dir: string, listed: string): WptFile {
  const testFile = fileInside(dir, '', listed);
  if (testFile === null) throw new Error(`${listed} (listed in tests.txt) is not a file inside WPT_DIR`);
  const testDir = path.posix.dirname(listed);
  const source = readFileSync(testFile, 'utf8');
  const scripts: WptScript[] = [];
  let title: string | undefined;
  let long = false;
  for (const { key, value } of parseMeta(source)) {
    if (key === 'title') title = value;
    if (key === 'timeout') long = value === 'long';
    if (key !== 'script') continue;
    const script = fileInside(dir, testDir, value);
    if (script === null) throw new Error(`${listed}: META script ${value} is not a file inside WPT_DIR`);
    scripts.push({ path: wptPathOf(dir, script), source: readFileSync(script, 'utf8') });
  }
  scripts.push({ path: '/' + listed, source });
  const resources: WptResource[] = [];
  for (const url of fetchedLiterals(scripts.map((script) => script.source))) {
    const file = fileInside(dir, testDir, url.split(/[?#]/)[0]);
    if (file === null) continue; // served by a WPT server only: the driver says so to the test
    resources.push({
      path: wptPathOf(dir, file),
      type: CONTENT_TYPES.get(path.extname(file)) ?? 'application/octet-stream',
      text: readFileSync(file, 'utf8'),
    });
  }
  return { path: listed, ...(title ? { title } : {}), long, scripts, resources };
}

/** testharness.js, switched to its shell environment; fails if the expected line is not there once. */
export function shellHarness(source: string): string {
  const at = source.indexOf(ENVIRONMENT_DETECTION);
  if (at < 0 || source.indexOf(ENVIRONMENT_DETECTION, at + 1) >= 0) {
    throw new Error(
      `resources/testharness.js: expected exactly one "${ENVIRONMENT_DETECTION}" to switch to its shell environment`,
    );
  }
  return source.slice(0, at) + SHELL_ENVIRONMENT + source.slice(at + ENVIRONMENT_DETECTION.length);
}

export function loadSuite(dir: string): WptSuite {
  const list = path.join(dir, 'tests.txt');
  if (!existsSync(list)) throw new Error(`${dir} has no tests.txt`);
  const listed = readFileSync(list, 'utf8')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
  const harnessFile = fileInside(dir, '', 'resources/testharness.js');
  if (harnessFile === null) throw new Error(`${dir} has no resources/testharness.js`);
  return {
    dir,
    harness: shellHarness(readFileSync(harnessFile, 'utf8')),
    files: listed.map((file) => loadFile(dir, file)),
  };
}
