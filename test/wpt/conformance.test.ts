// The WPT files of WPT_DIR, run in our runtime through a real host (as `npm run wpt` does), must
// give exactly what test/wpt/expectations.json says: a subtest that passed and now fails, an
// expected failure that now passes, a changed count or load error, each fails this test by name.
// Without WPT_DIR it says so and is skipped.
import { describe, expect, it } from 'vitest';
import { compareRun, readExpectations } from './expectations.ts';
import { DEFAULT_TIMEOUT_MULTIPLIER, runOurs } from './ours.ts';
import { loadSuite, wptDirFromEnv } from './suite.ts';

const wptDir = wptDirFromEnv();
if (wptDir === null)
  console.log(
    'WPT_DIR is not set: the WPT conformance test is skipped (set it to a folder with tests.txt: WPT_DIR=<folder>).',
  );

describe('our runtime against the Web Platform Tests', () => {
  it.skipIf(wptDir === null)(
    'gives every file of WPT_DIR the results test/wpt/expectations.json expects',
    async () => {
      const suite = loadSuite(wptDir!);
      const expectations = readExpectations();
      const outcomes = await runOurs(suite, suite.files, {
        concurrency: 3,
        timeoutMultiplier: DEFAULT_TIMEOUT_MULTIPLIER,
      });
      const mismatches = compareRun(
        expectations,
        outcomes,
        suite.files.map((file) => file.path),
      ).map((mismatch) => `${mismatch.file}: ${mismatch.problem}`);
      // Every difference by name; `npm run wpt -- --update-expectations` records intended ones.
      expect(mismatches).toEqual([]);
    },
    20 * 60_000,
  );
});
