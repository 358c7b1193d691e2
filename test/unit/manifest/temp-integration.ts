// Test helper: writes throw-away integration folders under the OS temp dir (never inside the repo,
// so "outside the integration folder" really is outside) and removes them afterwards.

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export const GOOD_SCRIPT = 'export default { fetch() { return "ok"; } };\n';

/** A valid manifest; `extra` lines are appended verbatim (YAML). */
export function manifestYaml(name: string, extra = ''): string {
  return [
    `name: ${name}`,
    'title: Temp integration',
    'description: Written by a test.',
    'organization: acme',
    'visibility: private',
    'scopes:',
    '  - space:content:read',
    extra,
  ].join('\n');
}

export class TempDirs {
  private readonly roots: string[] = [];

  /** A new empty folder; `files` maps relative paths to contents. */
  make(files: Record<string, string> = {}): string {
    const root = mkdtempSync(path.join(os.tmpdir(), 'ih-manifest-'));
    this.roots.push(root);
    for (const [rel, text] of Object.entries(files)) this.write(root, rel, text);
    return root;
  }

  write(dir: string, rel: string, text: string): void {
    const file = path.join(dir, rel);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, text);
  }

  cleanup(): void {
    for (const root of this.roots.splice(0)) rmSync(root, { recursive: true, force: true });
  }
}
