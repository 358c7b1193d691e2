// The docs stay pages of record, not a lab notebook (issue 33): docs/*.md at most 250,000 bytes in all,
// performance.md 30,000 and README.md 10,000, and no page or source comment dating itself by "the Nth
// session" (the history of how a figure was reached is in git).
import { describe, expect, it } from 'vitest';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

const DOCS_TOTAL = 250_000;
const PAGE_BUDGETS: Record<string, number> = { 'docs/performance.md': 30_000, 'README.md': 10_000 };

const DOCS = readdirSync('docs')
  .filter((name) => name.endsWith('.md'))
  .map((name) => `docs/${name}`);
const PAGES = ['README.md', ...DOCS];
const SOURCE_ROOTS = ['host', 'sandbox-api', 'console/src'];

const bytes = (file: string): number => statSync(file).size;

/** "the ninth session", "twenty-first session", "9th session": an ordinal word or number, then "session". */
const ORDINAL_SESSION = new RegExp(
  String.raw`\b(?:\d+(?:st|nd|rd|th)|first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|` +
    String.raw`eleventh|twelfth|\w+teenth|\w+ieth|` +
    '(?:twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety)[- ]' +
    '(?:first|second|third|fourth|fifth|sixth|seventh|eighth|ninth))' +
    String.raw`\s+sessions?\b`,
  'gi',
);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : sourceFiles(full);
    return /\.(ts|tsx|js|mjs|cjs)$/.test(entry.name) ? [full] : [];
  });
}

/** Each file's size, largest first, with the total: the failure message. */
function sizes(files: string[]): string {
  const rows = files.map((file) => [file, bytes(file)] as const).sort((a, b) => b[1] - a[1]);
  const total = rows.reduce((sum, [, size]) => sum + size, 0);
  return [
    ...rows.map(([file, size]) => `${String(size).padStart(8)}  ${file}`),
    `${String(total).padStart(8)}  total`,
  ].join('\n');
}

describe('the docs budget', () => {
  it(`keeps docs/*.md at most ${DOCS_TOTAL} bytes in all`, () => {
    const total = DOCS.reduce((sum, file) => sum + bytes(file), 0);
    expect(total, `docs/*.md is ${total} bytes, over ${DOCS_TOTAL}:\n${sizes(DOCS)}`).toBeLessThanOrEqual(DOCS_TOTAL);
  });

  it.each(Object.entries(PAGE_BUDGETS))('keeps %s at most %i bytes', (file, budget) => {
    expect(bytes(file), `${file} is ${bytes(file)} bytes, over ${budget}:\n${sizes(PAGES)}`).toBeLessThanOrEqual(
      budget,
    );
  });

  it('recognises an ordinal session, and only that', () => {
    const found = (text: string) => [...text.matchAll(ORDINAL_SESSION)].map((match) => match[0]);
    expect(found('the Ninth session; the twenty-first session; a 3rd session; 12th sessions')).toEqual([
      'Ninth session',
      'twenty-first session',
      '3rd session',
      '12th sessions',
    ]);
    expect(found('a console session; the session cookie; sessions expire; the fourth sessionless run')).toEqual([]);
  });

  it('has no page or source comment naming "the Nth session"', () => {
    const files = [...PAGES, ...SOURCE_ROOTS.flatMap(sourceFiles)];
    const hits = files.flatMap((file) => {
      const text = readFileSync(file, 'utf8');
      return [...text.matchAll(ORDINAL_SESSION)].map(
        (match) => `${file}:${text.slice(0, match.index).split('\n').length}: ${match[0]}`,
      );
    });
    expect(hits).toEqual([]);
  });
});
