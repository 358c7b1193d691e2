// Source lines are at most 120 columns (biome.jsonc's lineWidth). Biome's formatter keeps that for
// code but cannot break a string, a comment or a regular expression, so this test holds those too.
// Hostile and third-party fixtures are left as they are (they are never rewritten).
import { describe, expect, it } from 'vitest';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const MAX_COLUMNS = 120;
const ROOTS = ['bin', 'host', 'sandbox-api', 'console/src', 'test'];
const SKIPPED = new Set(['node_modules', 'fixtures']);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return SKIPPED.has(entry.name) ? [] : sourceFiles(full);
    return /\.(ts|tsx|mts|js|mjs|cjs)$/.test(entry.name) && !entry.name.endsWith('.raw.js') ? [full] : [];
  });
}

/** `file:line (columns)` of every line longer than the limit, counted in characters, not bytes. */
function longLines(files: string[], max: number): string[] {
  return files.flatMap((file) =>
    readFileSync(file, 'utf8')
      .split('\n')
      .flatMap((line, index) => {
        const columns = [...line].length;
        return columns > max ? [`${file}:${index + 1} (${columns})`] : [];
      }),
  );
}

describe('source line width', () => {
  it('finds the files it is meant to check', () => {
    const files = ROOTS.flatMap(sourceFiles);
    expect(files).toContain(path.join('host', 'cli.ts'));
    expect(files).toContain(path.join('test', 'unit', 'line-width.test.ts'));
    expect(files.some((file) => file.split(path.sep).includes('fixtures'))).toBe(false);
  });

  it('counts characters, not bytes: 120 accented letters fit, 121 do not', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'line-width-'));
    try {
      const file = path.join(dir, 'sample.ts');
      writeFileSync(file, `${'é'.repeat(120)}\n// short\n${'é'.repeat(121)}\n`);
      expect(longLines([file], MAX_COLUMNS)).toEqual([`${file}:3 (121)`]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it(`keeps every line of bin/, host/, sandbox-api/, console/src/ and test/ within ${MAX_COLUMNS} columns`, () => {
    expect(longLines(ROOTS.flatMap(sourceFiles), MAX_COLUMNS)).toEqual([]);
  });
});
