// What the exercise prints: a Markdown table (integration, what was exercised, outcome, evidence),
// the summary line `N of M work, …`, and the JSON form with every step. Pure.

import type { Outcome } from './evidence.ts';
import type { IntegrationResult } from './exercise.ts';

const ORDER: Outcome[] = ['works', 'cannot be built', 'fails in its own code', 'broken by the host'];

/** A table cell: one line, pipes escaped, and what differs from run to run (the host's port, ids) elided. */
const cell = (text: string) =>
  text
    .replace(/https?:\/\/127\.0\.0\.1:\d+/g, '<host>')
    .replace(/\b(inst|evt)_[0-9a-f]{20,32}\b/g, '$1_…')
    .replace(/\|/g, '\\|')
    .replace(/\s+/g, ' ')
    .trim();

function clip(text: string, length: number): string {
  return text.length <= length ? text : `${text.slice(0, length - 1)}…`;
}

export function formatTable(results: IntegrationResult[]): string {
  const lines = ['| integration | exercised | outcome | evidence |', '|---|---|---|---|'];
  for (const result of results) {
    const evidence =
      result.evidence
        .slice(0, 3)
        .map((line) => clip(line, 220))
        .join('; ') + (result.evidence.length > 3 ? `; (+${result.evidence.length - 3} more)` : '');
    lines.push(
      `| ${cell(result.name)} | ${cell(result.exercised.join(' · '))} | ${result.outcome} | ${cell(evidence)} |`,
    );
  }
  return lines.join('\n');
}

/** `40 of 57 work, 3 cannot be built, 7 fail in their own code, 7 broken by the host` */
export function summaryLine(results: IntegrationResult[]): string {
  const count = (outcome: Outcome) => results.filter((result) => result.outcome === outcome).length;
  const [works, unbuilt, own, host] = ORDER.map(count);
  return (
    `${works} of ${results.length} work, ${unbuilt} cannot be built, ${own} fail in their own code, ${host} broken ` +
    `by the host`
  );
}

/** Which integrations each outcome holds, for the lines under the table. */
export function byOutcome(results: IntegrationResult[]): string {
  return ORDER.filter((outcome) => outcome !== 'works')
    .map(
      (outcome) =>
        `${outcome}: ${
          results
            .filter((result) => result.outcome === outcome)
            .map((result) => result.name)
            .join(', ') || 'none'
        }`,
    )
    .join('\n');
}

export function reportJson(results: IntegrationResult[], meta: Record<string, unknown>): string {
  return JSON.stringify({ ...meta, summary: summaryLine(results), results }, null, 2);
}
