// The figures of a WPT run: per area, subtests passed out of the file's total, ours beside
// workerd's, as a table for people or as JSON. A file's total is the most subtests any runtime
// (or the expectations file) reported for it, so a file that failed to load counts as failed.

import { areaOf, areaOrder } from './areas.ts';
import type { Expectations, Mismatch } from './expectations.ts';
import { passedCount, type FileOutcome } from './outcome.ts';

export interface RuntimeRun {
  /** `ours` or `workerd`: how report lines name the runtime. */
  label: string;
  version?: string;
  outcomes: Map<string, FileOutcome>;
  durationMs: number;
}

export interface AreaFigures {
  area: string;
  files: number;
  total: number;
  ours: number;
  workerd: number | null;
}

export interface Figures {
  areas: AreaFigures[];
  total: AreaFigures;
}

export function fileTotal(file: string, runs: RuntimeRun[], expectations?: Expectations): number {
  return Math.max(
    expectations?.files[file]?.subtests ?? 0,
    ...runs.map((run) => run.outcomes.get(file)?.subtests.length ?? 0),
  );
}

export function figures(
  files: readonly string[],
  ours: RuntimeRun,
  workerd: RuntimeRun | null,
  expectations?: Expectations,
): Figures {
  const runs = workerd === null ? [ours] : [ours, workerd];
  const rows = new Map<string, AreaFigures>();
  for (const file of files) {
    const area = areaOf(file);
    const row = rows.get(area) ?? { area, files: 0, total: 0, ours: 0, workerd: workerd === null ? null : 0 };
    row.files++;
    row.total += fileTotal(file, runs, expectations);
    row.ours += passedCount(ours.outcomes.get(file));
    if (workerd !== null) row.workerd = (row.workerd ?? 0) + passedCount(workerd.outcomes.get(file));
    rows.set(area, row);
  }
  const areas = areaOrder().flatMap((area) => rows.get(area) ?? []);
  const sum = (pick: (row: AreaFigures) => number) => areas.reduce((total, row) => total + pick(row), 0);
  const total = {
    area: 'total',
    files: sum((row) => row.files),
    total: sum((row) => row.total),
    ours: sum((row) => row.ours),
    workerd: workerd === null ? null : sum((row) => row.workerd ?? 0),
  };
  return { areas, total };
}

const number = (value: number) => value.toLocaleString('en-US');
const ratio = (passed: number, total: number) => `${number(passed)}/${number(total)}`;

export function formatTable(result: Figures, workerdLabel: string | null): string {
  const header = ['area', 'ours', ...(workerdLabel === null ? [] : ['workerd'])];
  const cells = [...result.areas, result.total].map((row) => [
    row.area,
    ratio(row.ours, row.total),
    ...(workerdLabel === null ? [] : [row.workerd === null ? '' : ratio(row.workerd, row.total)]),
  ]);
  const widths = header.map((title, column) => Math.max(title.length, ...cells.map((row) => row[column].length)));
  const line = (row: string[]) =>
    row.map((cell, column) => (column === 0 ? cell.padEnd(widths[column]) : cell.padStart(widths[column]))).join('   ');
  const rule = widths.map((width) => '-'.repeat(width)).join('   ');
  return [line(header), rule, ...cells.slice(0, -1).map(line), rule, line(cells[cells.length - 1])].join('\n');
}

/** Files that did not load or reached their deadline, one line per distinct reason. */
export function formatFileFailures(run: RuntimeRun): string[] {
  const byReason = new Map<string, string[]>();
  for (const [file, outcome] of run.outcomes) {
    if (outcome.loadError !== null) {
      const reason = `failed to load with "${outcome.loadError}"${outcome.detail ? ` (${outcome.detail})` : ''}`;
      byReason.set(reason, [...(byReason.get(reason) ?? []), file]);
    }
    if (outcome.timedOut)
      byReason.set('reached its deadline (testharness timeout)', [
        ...(byReason.get('reached its deadline (testharness timeout)') ?? []),
        file,
      ]);
  }
  return [...byReason].map(([reason, files]) => {
    const named = files.length <= 3 ? files.join(', ') : `${files.slice(0, 3).join(', ')} and ${files.length - 3} more`;
    return `${run.label}, ${files.length === 1 ? '1 file' : `${files.length} files`} ${reason}: ${named}`;
  });
}

export function formatMismatches(mismatches: Mismatch[], max = 40): string[] {
  const lines = mismatches.slice(0, max).map((mismatch) => `  ${mismatch.file}: ${mismatch.problem}`);
  if (mismatches.length > max) lines.push(`  … and ${mismatches.length - max} more (--json lists them all)`);
  return lines;
}

function runJson(run: RuntimeRun, file: string) {
  const outcome = run.outcomes.get(file);
  if (outcome === undefined) return null;
  return {
    passed: passedCount(outcome),
    subtests: outcome.subtests.length,
    loadError: outcome.loadError,
    ...(outcome.detail ? { detail: outcome.detail } : {}),
    harness: outcome.harness,
    timedOut: outcome.timedOut,
    durationMs: outcome.durationMs,
    failing: outcome.subtests.filter((subtest) => subtest.status !== 'PASS'),
  };
}

export function reportJson(input: {
  wptDir: string;
  files: readonly string[];
  ours: RuntimeRun;
  workerd: RuntimeRun | null;
  workerdUnavailable: string | null;
  result: Figures;
  mismatches: Mismatch[];
  expectations?: Expectations;
}): unknown {
  const runs = input.workerd === null ? [input.ours] : [input.ours, input.workerd];
  return {
    wptDir: input.wptDir,
    ours: { durationMs: input.ours.durationMs },
    workerd:
      input.workerd === null
        ? { unavailable: input.workerdUnavailable }
        : { version: input.workerd.version ?? null, durationMs: input.workerd.durationMs },
    areas: input.result.areas,
    total: input.result.total,
    expectations: { mismatches: input.mismatches },
    files: input.files.map((file) => ({
      path: file,
      area: areaOf(file),
      total: fileTotal(file, runs, input.expectations),
      ours: runJson(input.ours, file),
      workerd: input.workerd === null ? null : runJson(input.workerd, file),
    })),
  };
}
