// `npm run wpt`: runs the WPT files of WPT_DIR in our runtime through a real host and, when it can
// be had, in workerd beside us; prints per area subtests passed/total, checks our results against
// test/wpt/expectations.json, or rewrites it (--update-expectations). See docs/conformance.md.

import { parseArgs } from 'node:util';
import { selects } from './areas.ts';
import {
  compareRun,
  readExpectations,
  updateExpectations,
  writeExpectations,
  type Expectations,
} from './expectations.ts';
import { DEFAULT_TIMEOUT_MULTIPLIER, runOurs } from './ours.ts';
import { figures, formatFileFailures, formatMismatches, formatTable, reportJson, type RuntimeRun } from './report.ts';
import { loadSuite, wptDirFromEnv } from './suite.ts';
import { runWorkerd } from './workerd.ts';

const USAGE = `Usage: npm run wpt -- [options]

Runs the Web Platform Tests listed in $WPT_DIR/tests.txt in our runtime (each file in an isolate of
its own, through a real host) and in workerd beside it, and prints subtests passed/total per area.
Then checks our results against test/wpt/expectations.json (exit 1 on any difference).

Options:
  --only <area|text>        only the files of that area (as the table names it) or whose path
                            contains the text; may be repeated
  --no-workerd              do not run workerd
  --json                    print the results as JSON (every file, every failing subtest)
  --update-expectations     rewrite test/wpt/expectations.json from our results (for the files run)
  --reason <text>           with --update-expectations: why the failures new to the file fail;
                            without it, new failures are listed and nothing is written
  --concurrency <n>         files run at once per runtime (default 4)
  --timeout-multiplier <x>  scales testharness's timeouts of 10 s and 60 s (default ${DEFAULT_TIMEOUT_MULTIPLIER})
  --help                    this text

WPT_DIR: the folder holding tests.txt (.ci/run sets it when the CI machine has one).`;

function fail(message: string): never {
  process.stderr.write(`${message}\n\n${USAGE}\n`);
  process.exit(2);
}

function positiveNumber(value: string | undefined, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  const parsed = Number(value);
  if (!Number.isFinite(parsed) || parsed <= 0) fail(`--${name} must be a positive number, not ${value}`);
  return parsed;
}

async function main(): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      options: {
        only: { type: 'string', multiple: true },
        'no-workerd': { type: 'boolean' },
        json: { type: 'boolean' },
        'update-expectations': { type: 'boolean' },
        reason: { type: 'string' },
        concurrency: { type: 'string' },
        'timeout-multiplier': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
    }).values;
  } catch (error) {
    fail((error as Error).message);
  }
  if (parsed.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  if (parsed.reason !== undefined && !parsed['update-expectations']) fail('--reason goes with --update-expectations');
  const concurrency = Math.round(positiveNumber(parsed.concurrency, 'concurrency', 4));
  const timeoutMultiplier = positiveNumber(
    parsed['timeout-multiplier'],
    'timeout-multiplier',
    DEFAULT_TIMEOUT_MULTIPLIER,
  );
  const say = (line: string) => process.stderr.write(`${line}\n`);

  const wptDir = wptDirFromEnv();
  if (wptDir === null) {
    say(
      'WPT_DIR is not set: no Web Platform Tests to run, skipped. Set it to a folder with tests.txt ' +
        '(WPT_DIR=<folder>).',
    );
    return 0;
  }
  const suite = loadSuite(wptDir);
  const only = parsed.only ?? [];
  const files = suite.files.filter((file) => selects(only, file.path));
  if (files.length === 0) fail(`--only ${only.join(', ')} selects none of the ${suite.files.length} files`);
  const paths = files.map((file) => file.path);
  const expectations: Expectations = readExpectations();

  say(`WPT_DIR=${wptDir}: ${files.length} of ${suite.files.length} files`);
  const options = { concurrency, timeoutMultiplier };
  let started = Date.now();
  let done = 0;
  const progress = (label: string) => () => {
    done++;
    if (done % 25 === 0) say(`  ${label}: ${done}/${files.length} files`);
  };
  const oursOutcomes = await runOurs(suite, files, { ...options, onOutcome: progress('ours') });
  const ours: RuntimeRun = { label: 'ours', outcomes: oursOutcomes, durationMs: Date.now() - started };
  say(`ours: ${files.length} files in ${(ours.durationMs / 1000).toFixed(1)} s`);

  let workerd: RuntimeRun | null = null;
  let workerdUnavailable: string | null = parsed['no-workerd'] ? 'not run (--no-workerd)' : null;
  if (!parsed['no-workerd']) {
    started = Date.now();
    done = 0;
    try {
      const run = await runWorkerd(suite, files, { ...options, onOutcome: progress('workerd') });
      workerd = { label: 'workerd', version: run.version, outcomes: run.outcomes, durationMs: Date.now() - started };
      say(`workerd ${run.version}: ${files.length} files in ${(workerd.durationMs / 1000).toFixed(1)} s`);
    } catch (error) {
      workerdUnavailable = (error as Error).message.split('\n')[0];
      say(`workerd: not available (${workerdUnavailable}); ours alone`);
    }
  }

  const whole = files.length === suite.files.length ? suite.files.map((file) => file.path) : undefined;
  const mismatches = parsed['update-expectations'] ? [] : compareRun(expectations, ours.outcomes, whole);
  const result = figures(paths, ours, workerd, expectations);
  if (parsed.json) {
    const report = reportJson({
      wptDir,
      files: paths,
      ours,
      workerd,
      workerdUnavailable,
      result,
      mismatches,
      expectations,
    });
    process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  } else {
    process.stdout.write(`\n${formatTable(result, workerd === null ? null : 'workerd')}\n\n`);
    if (workerd !== null) process.stdout.write(`workerd: ${workerd.version}\n`);
    for (const line of [...formatFileFailures(ours), ...(workerd === null ? [] : formatFileFailures(workerd))])
      process.stdout.write(`${line}\n`);
  }

  if (parsed['update-expectations']) {
    const { next, needsReason } = updateExpectations(expectations, ours.outcomes, parsed.reason, whole);
    if (needsReason.length > 0) {
      say(
        `\nNot written: failures new to the expectations file need a reason (--reason "<why>", with --only to ` +
          `give each group its own):`,
      );
      for (const entry of needsReason) {
        if (entry.loadError) say(`  ${entry.file}: fails to load: ${entry.loadError}`);
        for (const name of entry.subtests.slice(0, 10)) say(`  ${entry.file}: ${name}`);
        if (entry.subtests.length > 10) say(`  ${entry.file}: … and ${entry.subtests.length - 10} more`);
      }
      return 1;
    }
    writeExpectations(next);
    say(`\nWrote test/wpt/expectations.json (${Object.keys(next.files).length} files).`);
    return 0;
  }
  if (mismatches.length > 0) {
    say(`\nOurs differs from test/wpt/expectations.json in ${mismatches.length} ways:`);
    for (const line of formatMismatches(mismatches)) say(line);
    say('Fix the runtime, or record the change: npm run wpt -- --update-expectations [--only …] [--reason "…"]');
    return 1;
  }
  say('\nOurs matches test/wpt/expectations.json.');
  return 0;
}

process.exitCode = await main();
