// The README's attack table and test/security/ must match one to one: every security test file is
// listed once, and every listed file exists (issue 5, "Done when").
import { describe, it, expect } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';

describe('README attack table', () => {
  it('lists every test/security file exactly once, and nothing else', () => {
    const readme = readFileSync('README.md', 'utf8');
    const section = readme.slice(readme.indexOf('### Attacks tried'), readme.indexOf('### Known limitations'));
    const listed = [...section.matchAll(/\| `([a-z0-9-]+\.test\.ts)` \|$/gm)].map((match) => match[1]);
    const files = readdirSync('test/security').filter((name) => name.endsWith('.test.ts'));
    expect(listed.length).toBe(new Set(listed).size);
    expect([...listed].sort()).toEqual([...files].sort());
  });
});
