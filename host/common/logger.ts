// Log lines of the host process: human-readable `HH:MM:SS.mmm level message` by default, or one
// JSON object per line (pino; `--log-format json`) for a log pipeline. The only place that writes
// log lines to stdout/stderr; everything else takes a Logger. Every message is made safe here
// (log-text.ts): whatever a guest string contains, one message stays one entry.

import pino from 'pino';
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

/**
 * One JSON object per line on stdout: `{"level":"info","time":"…","pid":…,"msg":"…"}`. Written
 * synchronously, so the last lines before an exit are not lost. JSON keeps a message with
 * newlines one record; control characters are escaped as in the text format.
 */
export function createJsonLogger(destination: { write(line: string): unknown } = pino.destination({ dest: 1, sync: true })): Logger {
  const logger = pino(
    {
      base: { pid: process.pid },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
    },
    destination as pino.DestinationStream,
  );
  return {
    info: (message) => logger.info(sanitizeLogText(message)),
    warn: (message) => logger.warn(sanitizeLogText(message)),
    error: (message) => logger.error(sanitizeLogText(message)),
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
