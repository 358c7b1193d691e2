// The expectations file (test/wpt/expectations.json): per WPT file, how many subtests it has, the
// subtests of ours expected to fail, grouped under the reason they fail, and a load error when the
// file is expected not to load; plus reason rules that --update-expectations applies to failures
// new to the file. Reads, checks, compares against a run and rewrites it; pure but for reading and
// writing that one file.

import { readFileSync, writeFileSync } from 'node:fs';
import type { FileOutcome } from './outcome.ts';

export const EXPECTATIONS_FILE = new URL('./expectations.json', import.meta.url);

export interface FailureGroup {
  reason: string;
  subtests: string[];
}

export interface FileExpectation {
  /** How many subtests the file reports (passing or not). */
  subtests: number;
  loadError?: { message: string; reason: string };
  failing?: FailureGroup[];
}

/**
 * A reason for failures that match: every given field must match (`file`: a path prefix;
 * `subtest`, `message`: regular expressions on the subtest's name and on its failure message, or
 * on a load error's text; `status`: FAIL, TIMEOUT, NOTRUN…). A rule without `subtest` or `status`
 * also gives load errors their reason.
 */
export interface ReasonRule {
  file?: string;
  subtest?: string;
  message?: string;
  status?: string;
  reason: string;
}

export interface Expectations {
  rules: ReasonRule[];
  files: Record<string, FileExpectation>;
}

export interface Mismatch {
  file: string;
  problem: string;
}

const HEADER =
  'Subtests of our runtime expected to fail, per WPT file, grouped by why. ' +
  'Written by `npm run wpt -- --update-expectations` (docs/conformance.md); test/wpt/conformance.test.ts fails on ' +
  'any difference.';

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** Checks the file's shape; throws naming the first problem. */
function parseRule(rule: unknown, index: number): ReasonRule {
  const where = `expectations: rule ${index + 1}`;
  if (!isRecord(rule) || typeof rule.reason !== 'string' || rule.reason.trim() === '')
    throw new Error(`${where}: needs a "reason"`);
  const parsed: Partial<ReasonRule> = {};
  for (const key of ['file', 'subtest', 'message', 'status'] as const) {
    const value = rule[key];
    if (value === undefined) continue;
    if (typeof value !== 'string' || value === '') throw new Error(`${where}: "${key}" must be a non-empty string`);
    if (key === 'subtest' || key === 'message') {
      try {
        new RegExp(value, 'u');
      } catch (error) {
        throw new Error(`${where}: "${key}" is not a regular expression: ${(error as Error).message}`);
      }
    }
    parsed[key] = value;
  }
  if (
    parsed.file === undefined &&
    parsed.subtest === undefined &&
    parsed.message === undefined &&
    parsed.status === undefined
  ) {
    throw new Error(`${where}: needs at least one of "file", "subtest", "message", "status"`);
  }
  for (const key of Object.keys(rule))
    if (!['file', 'subtest', 'message', 'status', 'reason'].includes(key))
      throw new Error(`${where}: unknown field "${key}"`);
  return { ...parsed, reason: rule.reason };
}

export function parseExpectations(text: string): Expectations {
  const raw: unknown = JSON.parse(text);
  if (!isRecord(raw) || !isRecord(raw.files)) throw new Error('expectations: no "files" object');
  if (raw.rules !== undefined && !Array.isArray(raw.rules)) throw new Error('expectations: "rules" must be a list');
  const rules = ((raw.rules as unknown[] | undefined) ?? []).map(parseRule);
  const files: Record<string, FileExpectation> = {};
  for (const [file, entry] of Object.entries(raw.files)) {
    const where = `expectations: ${file}`;
    if (!isRecord(entry) || !Number.isInteger(entry.subtests) || (entry.subtests as number) < 0)
      throw new Error(`${where}: "subtests" must be a count`);
    const expectation: FileExpectation = { subtests: entry.subtests as number };
    if (entry.loadError !== undefined) {
      const load = entry.loadError;
      if (
        !isRecord(load) ||
        typeof load.message !== 'string' ||
        typeof load.reason !== 'string' ||
        load.reason.trim() === ''
      ) {
        throw new Error(`${where}: "loadError" needs a "message" and a "reason"`);
      }
      expectation.loadError = { message: load.message, reason: load.reason };
    }
    if (entry.failing !== undefined) {
      if (!Array.isArray(entry.failing)) throw new Error(`${where}: "failing" must be a list of groups`);
      const seen = new Set<string>();
      expectation.failing = entry.failing.map((group: unknown) => {
        if (!isRecord(group) || typeof group.reason !== 'string' || group.reason.trim() === '')
          throw new Error(`${where}: every failing group needs a "reason"`);
        if (!Array.isArray(group.subtests) || group.subtests.some((name) => typeof name !== 'string'))
          throw new Error(`${where}: a group's "subtests" must be names`);
        for (const name of group.subtests as string[]) {
          if (seen.has(name)) throw new Error(`${where}: subtest listed twice: ${name}`);
          seen.add(name);
        }
        return { reason: group.reason, subtests: group.subtests as string[] };
      });
    }
    files[file] = expectation;
  }
  return { rules, files };
}

export function readExpectations(file: URL | string = EXPECTATIONS_FILE): Expectations {
  return parseExpectations(readFileSync(file, 'utf8'));
}

export function formatExpectations(expectations: Expectations): string {
  const files = Object.fromEntries(
    Object.keys(expectations.files)
      .sort()
      .map((file) => [file, expectations.files[file]]),
  );
  return JSON.stringify({ comment: HEADER, rules: expectations.rules, files }, null, 2) + '\n';
}

export function writeExpectations(expectations: Expectations, file: URL | string = EXPECTATIONS_FILE): void {
  writeFileSync(file, formatExpectations(expectations));
}

function expectedFailures(entry: FileExpectation): Map<string, string> {
  const reasons = new Map<string, string>();
  for (const group of entry.failing ?? []) for (const name of group.subtests) reasons.set(name, group.reason);
  return reasons;
}

const shorten = (text: string | null, max = 160) =>
  text === null ? '' : text.length > max ? `${text.slice(0, max)}…` : text;

/**
 * Every difference between the run and the expectations, for the files that ran: a passing or
 * unlisted subtest that fails, a listed one that passes or is gone, a changed count of subtests, a
 * load error that appeared, changed or went away. `suite` (every file of tests.txt, when the whole
 * suite ran) also reports entries for files that are no longer in it.
 */
export function compareRun(
  expectations: Expectations,
  outcomes: ReadonlyMap<string, FileOutcome>,
  suite?: readonly string[],
): Mismatch[] {
  const mismatches: Mismatch[] = [];
  for (const [file, outcome] of outcomes) {
    const entry = expectations.files[file];
    const add = (problem: string) => mismatches.push({ file, problem });
    if (entry === undefined) {
      add('not in the expectations file');
      continue;
    }
    const expectedLoad = entry.loadError?.message ?? null;
    if (outcome.loadError !== expectedLoad) {
      if (expectedLoad === null) add(`fails to load: ${outcome.loadError}`);
      else if (outcome.loadError === null) add(`loads now (expected to fail with: ${expectedLoad})`);
      else add(`fails to load with another error: ${outcome.loadError} (expected: ${expectedLoad})`);
    }
    const failures = expectedFailures(entry);
    const seen = new Set<string>();
    for (const subtest of outcome.subtests) {
      seen.add(subtest.name);
      const expectedToFail = failures.has(subtest.name);
      if (subtest.status === 'PASS' && expectedToFail)
        add(`passes now (expected to fail: ${failures.get(subtest.name)}): ${subtest.name}`);
      if (subtest.status !== 'PASS' && !expectedToFail)
        add(`${subtest.status}: ${subtest.name}: ${shorten(subtest.message)}`);
    }
    for (const name of failures.keys()) if (!seen.has(name)) add(`no longer reported (was expected to fail): ${name}`);
    if (outcome.subtests.length !== entry.subtests)
      add(`reports ${outcome.subtests.length} subtests, expected ${entry.subtests}`);
  }
  if (suite !== undefined) {
    const listed = new Set(suite);
    for (const file of Object.keys(expectations.files))
      if (!listed.has(file)) mismatches.push({ file, problem: 'in the expectations file but not in tests.txt' });
  }
  return mismatches;
}

/** The reason of the first rule that matches a failing subtest (or, with `subtest` null, a load error). */
export function ruleReason(
  rules: readonly ReasonRule[],
  file: string,
  subtest: { name: string; status: string; message: string | null } | null,
  loadError?: string,
): string | undefined {
  return rules.find((rule) => {
    if (rule.file !== undefined && !file.startsWith(rule.file)) return false;
    if (subtest === null) {
      return (
        rule.subtest === undefined &&
        rule.status === undefined &&
        (rule.message === undefined || new RegExp(rule.message, 'u').test(loadError ?? ''))
      );
    }
    if (rule.status !== undefined && rule.status !== subtest.status) return false;
    if (rule.subtest !== undefined && !new RegExp(rule.subtest, 'u').test(subtest.name)) return false;
    return rule.message === undefined || new RegExp(rule.message, 'u').test(subtest.message ?? '');
  })?.reason;
}

export interface NeedsReason {
  file: string;
  loadError?: string;
  subtests: string[];
}

/**
 * The expectations rewritten from a run of ours: files that ran get their new count, load error
 * and failing subtests; a failure already listed keeps its reason (a load error keeps its reason
 * only while its message is the same); a new one gets the first matching rule's reason, else
 * `reason`, else it is returned in `needsReason` (the caller then writes nothing). Files that did
 * not run keep their entries; with `suite` given, entries for files not in it are dropped.
 */
export function updateExpectations(
  previous: Expectations,
  outcomes: ReadonlyMap<string, FileOutcome>,
  reason?: string,
  suite?: readonly string[],
): { next: Expectations; needsReason: NeedsReason[] } {
  const files: Record<string, FileExpectation> = {};
  const listed = suite === undefined ? null : new Set(suite);
  for (const [file, entry] of Object.entries(previous.files))
    if (!outcomes.has(file) && (listed === null || listed.has(file))) files[file] = entry;
  const needsReason: NeedsReason[] = [];
  const given = reason?.trim() ? reason.trim() : undefined;
  for (const [file, outcome] of outcomes) {
    const old = previous.files[file];
    const next: FileExpectation = { subtests: outcome.subtests.length };
    const missing: NeedsReason = { file, subtests: [] };
    if (outcome.loadError !== null) {
      const kept =
        old?.loadError?.message === outcome.loadError
          ? old.loadError.reason
          : (ruleReason(previous.rules, file, null, outcome.loadError) ?? given);
      if (kept === undefined) missing.loadError = outcome.loadError;
      next.loadError = { message: outcome.loadError, reason: kept ?? '' };
    }
    const oldReasons = old === undefined ? new Map<string, string>() : expectedFailures(old);
    const groups = new Map<string, string[]>();
    for (const subtest of outcome.subtests) {
      if (subtest.status === 'PASS') continue;
      const why = oldReasons.get(subtest.name) ?? ruleReason(previous.rules, file, subtest) ?? given;
      if (why === undefined) {
        missing.subtests.push(subtest.name);
        continue;
      }
      groups.set(why, [...(groups.get(why) ?? []), subtest.name]);
    }
    if (groups.size > 0) next.failing = [...groups].map(([why, subtests]) => ({ reason: why, subtests }));
    if (missing.loadError !== undefined || missing.subtests.length > 0) needsReason.push(missing);
    files[file] = next;
  }
  return { next: { rules: previous.rules, files }, needsReason };
}
