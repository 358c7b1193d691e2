// How `npm run logs` prints an event-log entry: one line for the dispatch (time, installation,
// type, status or error code, duration, event and request ids), then its console lines indented.
// Guest text is made safe for a terminal: control characters and escape sequences are shown, never run.

import type { EventLogEntry } from '../dispatch/event-log.ts';
import { sanitizeLogText } from '../common/log-text.ts';

/** The host log's own escaping (controls, bidi overrides, line separators shown, never run). */
export const terminalSafe = sanitizeLogText;

export function formatEntry(entry: EventLogEntry): string {
  const time = /^\d{4}-\d\d-\d\dT(\d\d:\d\d:\d\d(?:\.\d+)?)/.exec(entry.createdAt)?.[1] ?? entry.createdAt;
  const outcome = entry.errorCode ? `${entry.status} ${entry.errorCode}` : String(entry.status);
  const head = [
    time,
    entry.integration,
    entry.installationId,
    entry.type,
    outcome,
    `${entry.durationMs} ms`,
    entry.eventId,
    ...(entry.requestId ? [`req=${entry.requestId}`] : []),
  ];
  const lines = [terminalSafe(head.join(' '))];
  for (const log of entry.logs) {
    const [first, ...rest] = String(log.text).split('\n');
    const level = terminalSafe(String(log.level)).padEnd(5);
    lines.push(`  ${level} ${terminalSafe(first)}`);
    for (const more of rest) lines.push(`        ${terminalSafe(more)}`);
  }
  return lines.join('\n');
}
