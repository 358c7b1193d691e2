// Fuzzes manifest loading: mutated valid manifests, spliced and random YAML, YAML bombs, each
// written to a temp folder and loaded with loadIntegration. Seed and replay: see fuzz-assert.ts.

import { afterAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import path from 'node:path';
import { writeFileSync } from 'node:fs';
import { loadIntegration } from '../../host/manifest/load.ts';
import type { LoadedIntegration } from '../../host/manifest/types.ts';
import { TempDirs } from '../unit/manifest/temp-integration.ts';
import { FUZZ_ENV, FUZZ_SCRIPT, manifestText, toYaml, validManifest, yamlBomb } from './arbitraries/manifest.ts';
import { JSON_POINTER } from './assertions.ts';
import { fuzz } from './fuzz-assert.ts';

const temp = new TempDirs();
const cacheDir = temp.make();
const dir = temp.make({ 'index.ts': FUZZ_SCRIPT });
afterAll(() => temp.cleanup());

/** Loads one manifest; `cpuMs` is the CPU this process spent on it (a busy machine stretches wall time, not CPU). */
async function load(text: string): Promise<{ loaded: LoadedIntegration; cpuMs: number }> {
  writeFileSync(path.join(dir, 'platform-manifest.yaml'), text);
  const before = process.cpuUsage();
  const loaded = await loadIntegration(dir, { env: FUZZ_ENV, cacheDir });
  const used = process.cpuUsage(before);
  return { loaded, cpuMs: (used.user + used.system) / 1000 };
}

function expectWellFormed(loaded: LoadedIntegration): void {
  expect(['ready', 'invalid']).toContain(loaded.status);
  if (loaded.status === 'invalid') expect(loaded.errors.length).toBeGreaterThan(0);
  else expect(loaded.errors).toEqual([]);
  for (const problem of [...loaded.errors, ...loaded.warnings]) {
    expect(problem.file).toMatch(/platform-manifest\.yaml$/);
    expect(problem.pointer).toMatch(JSON_POINTER);
    expect(typeof problem.message).toBe('string');
    expect(problem.message.trim()).not.toBe('');
    expect(problem.message).not.toContain(FUZZ_ENV.FUZZ_TARGET_TOKEN);
  }
}

describe('loadIntegration under fuzzing', () => {
  it('loads the unmutated base manifest (the generators start from a valid document)', async () => {
    const { loaded } = await load(toYaml(validManifest()));
    expect(loaded.errors).toEqual([]);
    expect(loaded.status).toBe('ready');
  });

  it('never throws and reports every problem with a file, a JSON pointer and a message', async () => {
    await fuzz(
      fc.asyncProperty(manifestText, async (text) => {
        const { loaded } = await load(text);
        expectWellFormed(loaded);
      }),
      { numRuns: 400 },
    );
  });

  it('refuses YAML bombs (deep nesting, alias fan-out) quickly', async () => {
    await fuzz(
      fc.asyncProperty(yamlBomb, async (text) => {
        const { loaded, cpuMs } = await load(text);
        expectWellFormed(loaded);
        expect(loaded.status).toBe('invalid');
        // Linear work is milliseconds; an alias fan-out expanded in full would be minutes.
        expect(cpuMs).toBeLessThan(2_000);
      }),
      { numRuns: 60 },
    );
  });
});
