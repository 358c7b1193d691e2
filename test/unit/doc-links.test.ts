// Cross-references resolve: every relative link and cited section of README.md and docs/*.md names
// an existing file and heading (GitHub's anchors), and so does every docs reference in source files.
import { describe, it, expect } from 'vitest';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

const DOC_PAGES = new Set(readdirSync('docs').filter((name) => name.endsWith('.md')));
const MARKDOWN = ['README.md', ...[...DOC_PAGES].map((name) => `docs/${name}`)];
const SOURCE_ROOTS = ['host', 'sandbox-api', 'console/src', 'test'];
const SOURCE_EXTENSIONS = /\.(ts|tsx|js|mjs|cjs)$/;
const THIS_FILE = path.normalize('test/unit/doc-links.test.ts');

/** GitHub's anchor for a heading's text: inline markup dropped, lowercase, punctuation removed, spaces to `-`. */
function slug(heading: string): string {
  return heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<[^>]+>/g, '')
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, '')
    .replace(/ /g, '-');
}

/** The text outside fenced code blocks, fence lines blanked so that line numbers hold. */
function withoutFences(markdown: string): string {
  let fence: string | null = null;
  return markdown
    .split('\n')
    .map((line) => {
      const marker = /^\s*(`{3,}|~{3,})/.exec(line)?.[1];
      if (fence === null && marker !== undefined) {
        fence = marker;
        return '';
      }
      if (fence !== null) {
        if (marker !== undefined && marker[0] === fence[0] && marker.length >= fence.length) fence = null;
        return '';
      }
      return line;
    })
    .join('\n');
}

/** The anchors of a markdown text's headings, duplicates numbered as GitHub numbers them. */
function anchorsIn(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const match of withoutFences(markdown).matchAll(/^#{1,6}[ \t]+(.+?)[ \t#]*$/gm)) {
    const base = slug(match[1]);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
}

const anchorCache = new Map<string, Set<string>>();
function anchorsOf(file: string): Set<string> {
  if (!anchorCache.has(file)) anchorCache.set(file, anchorsIn(readFileSync(file, 'utf8')));
  return anchorCache.get(file)!;
}

const lineAt = (text: string, index: number): number => text.slice(0, index).split('\n').length;

/** What is wrong with a reference to `file` (relative to the repository) and `anchor`, or null. */
function problem(file: string, anchor: string | undefined, anchors?: Set<string>): string | null {
  if (anchors === undefined && !existsSync(file)) return `${file} does not exist`;
  if (anchor === undefined || anchor === '') return null;
  if (anchors === undefined && (statSync(file).isDirectory() || !file.endsWith('.md'))) {
    return `#${anchor}: ${file} is not a markdown file`;
  }
  return (anchors ?? anchorsOf(file)).has(decodeURIComponent(anchor)) ? null : `${file} has no heading #${anchor}`;
}

/** Every relative link and image of a markdown file that does not resolve. */
function brokenMarkdownLinks(file: string, raw = readFileSync(file, 'utf8')): string[] {
  // Code spans become a placeholder of the same length, so a link's text may hold one and a code span no link.
  const text = withoutFences(raw).replace(/(`+)([\s\S]*?[^`])\1(?!`)/g, (span) => span.replace(/[^\n]/g, 'x'));
  const broken: string[] = [];
  const own = anchorsIn(raw);
  for (const match of text.matchAll(/!?\[(?:[^\]]|\][^(])*?\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
    const target = match[1];
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto:, …
    const [pathPart, anchor] = target.split('#', 2) as [string, string | undefined];
    const wrong =
      pathPart === ''
        ? problem(file, anchor, own)
        : problem(path.normalize(path.join(path.dirname(file), decodeURIComponent(pathPart))), anchor);
    if (wrong !== null) broken.push(`${file}:${lineAt(text, match.index)} (${target}): ${wrong}`);
  }
  // Sections cited by title in the prose: `<page>.md, "Title"` and `README, "Title"`.
  for (const match of text.matchAll(/(?<![\w./-])(README(?:\.md)?|[a-z0-9_-]+\.md),? \(?"([^"\n]+)"/g)) {
    const target = match[1].startsWith('README') ? 'README.md' : `docs/${match[1]}`;
    const wrong = problem(target, slug(match[2]));
    if (wrong !== null) broken.push(`${file}:${lineAt(text, match.index)} (${match[0]}): ${wrong}`);
  }
  return broken;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : sourceFiles(full);
    return SOURCE_EXTENSIONS.test(entry.name) ? [full] : [];
  });
}

/**
 * Every reference in a source file that does not resolve: `docs/<page>.md`, `docs/<page>.md#anchor`,
 * `<page>.md#anchor` for a page of docs/, and a section cited by its title, `<page>.md, "Title"` or
 * `README, "Title"`.
 */
function brokenSourceReferences(file: string, text = readFileSync(file, 'utf8')): string[] {
  const broken: string[] = [];
  const report = (index: number, reference: string, wrong: string | null) => {
    if (wrong !== null) broken.push(`${file}:${lineAt(text, index)} (${reference}): ${wrong}`);
  };
  const pattern = /(?<![\w./-])(docs\/)?([a-z0-9_-]+\.md)(?:#([a-z0-9_%-]*[a-z0-9_]))?(?:,? \(?"([^"\n]+)")?/gi;
  for (const match of text.matchAll(pattern)) {
    const [reference, inDocs, page, anchor, title] = match;
    if (inDocs === undefined && !DOC_PAGES.has(page) && anchor === undefined && title === undefined) continue;
    const target = inDocs !== undefined || DOC_PAGES.has(page) ? `docs/${page}` : page;
    if (title !== undefined && anchor === undefined) report(match.index, reference, problem(target, slug(title)));
    else report(match.index, reference, problem(target, anchor));
  }
  for (const match of text.matchAll(/\bREADME(?:\.md)?,? \(?"([^"\n]+)"/g)) {
    report(match.index, match[0], problem('README.md', slug(match[1])));
  }
  return broken;
}

describe('cross-references', () => {
  it('computes anchors as GitHub does', () => {
    expect(slug("Offenders' deadline from the host's arrival, and the quota at 5 % (2026-11-28)")).toBe(
      'offenders-deadline-from-the-hosts-arrival-and-the-quota-at-5--2026-11-28',
    );
    expect(slug('Threads: `SCHED_BATCH` [tried](x.md), not kept')).toBe('threads-sched_batch-tried-not-kept');
  });

  it('finds broken links, and only those', () => {
    const page = [
      '# A page',
      '[ok](performance.md) [ok](#a-page) [`ok`](../README.md#in-your-own-project) `[code](nowhere.md)`',
      '```',
      '[fenced](nowhere.md)',
      '```',
      '[no file](nowhere.md) [no heading](performance.md#nowhere) [a link',
      'over two lines](#nowhere) [web](https://example.com/x.md#y)',
      'As limits.md, "No such section" says, and README, "In your own project".',
    ].join('\n');
    expect(brokenMarkdownLinks('docs/page.md', page)).toEqual([
      'docs/page.md:6 (nowhere.md): docs/nowhere.md does not exist',
      'docs/page.md:6 (performance.md#nowhere): docs/performance.md has no heading #nowhere',
      'docs/page.md:6 (#nowhere): docs/page.md has no heading #nowhere',
      'docs/page.md:8 (limits.md, "No such section"): docs/limits.md has no heading #no-such-section',
    ]);
    const source = [
      '// docs/limits.md, docs/limits.md#nowhere, limits.md#nowhere, docs/gone.md, CHANGELOG.md',
      '// (security.md, "No such section") (README, "No such section") (README, "In your own project")',
    ].join('\n');
    expect(brokenSourceReferences('host/x.ts', source)).toEqual([
      'host/x.ts:1 (docs/limits.md#nowhere): docs/limits.md has no heading #nowhere',
      'host/x.ts:1 (limits.md#nowhere): docs/limits.md has no heading #nowhere',
      'host/x.ts:1 (docs/gone.md): docs/gone.md does not exist',
      'host/x.ts:2 (security.md, "No such section"): docs/security.md has no heading #no-such-section',
      'host/x.ts:2 (README, "No such section"): README.md has no heading #no-such-section',
    ]);
  });

  it('every relative link of README.md and docs/*.md names an existing file and heading', () => {
    expect(MARKDOWN.flatMap((file) => brokenMarkdownLinks(file))).toEqual([]);
  });

  it('every docs page, anchor and README section a source file names exists', () => {
    const files = SOURCE_ROOTS.flatMap(sourceFiles).filter((file) => file !== THIS_FILE);
    expect(files.flatMap((file) => brokenSourceReferences(file))).toEqual([]);
  });
});
