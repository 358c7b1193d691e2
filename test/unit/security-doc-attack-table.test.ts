// The attack table of docs/security.md and test/security/ must match one to one: every security
// test file is listed once, and every listed file exists (issue 5, "Done when").
import { describe, it, expect } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';

const HEADING = '### Attacks tried';

/** The text from the attack table's heading to the next heading of any level. */
function attackSection(markdown: string): string {
  const start = markdown.indexOf(HEADING);
  expect(start, `docs/security.md has no "${HEADING}" heading`).toBeGreaterThanOrEqual(0);
  const body = markdown.slice(start + HEADING.length);
  const next = body.search(/^#{1,6} /m);
  return next === -1 ? body : body.slice(0, next);
}

describe('docs/security.md attack table', () => {
  it('lists every test/security file exactly once, and nothing else', () => {
    const section = attackSection(readFileSync('docs/security.md', 'utf8'));
    const listed = [...section.matchAll(/\| `([a-z0-9-]+\.test\.ts)` \|$/gm)].map((match) => match[1]);
    const files = readdirSync('test/security').filter((name) => name.endsWith('.test.ts'));
    expect(listed.length).toBe(new Set(listed).size);
    expect([...listed].sort()).toEqual([...files].sort());
  });
});
