// Human-readable log lines for the host process: `HH:MM:SS.mmm level message`. The only place
// that writes log lines to stdout/stderr; everything else takes a Logger. Every message is made
// safe here (log-text.ts): whatever a guest string contains, one message stays one entry.

import { continuationLines, sanitizeLogText } from './log-text.ts';

export interface Logger {
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

function stamp(): string {
  return new Date().toISOString().slice(11, 23);
}

/** What a message looks like in the log: control characters escaped, extra lines indented. */
export function formatLogMessage(message: string): string {
  return continuationLines(sanitizeLogText(message));
}

export function createConsoleLogger(): Logger {
  return {
    info: (message) => process.stdout.write(`${stamp()} info  ${formatLogMessage(message)}\n`),
    warn: (message) => process.stderr.write(`${stamp()} warn  ${formatLogMessage(message)}\n`),
    error: (message) => process.stderr.write(`${stamp()} error ${formatLogMessage(message)}\n`),
  };
}

/** A logger that keeps lines in memory (tests, benchmarks). */
export function createMemoryLogger(): Logger & { lines: string[] } {
  const lines: string[] = [];
  return {
    lines,
    info: (message) => void lines.push(`info ${formatLogMessage(message)}`),
    warn: (message) => void lines.push(`warn ${formatLogMessage(message)}`),
    error: (message) => void lines.push(`error ${formatLogMessage(message)}`),
  };
}
