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

/**
 * Info lines (one per HTTP request) are gathered per turn of the event loop: stdout is corked at
 * the first line and uncorked once the turn is over, so a busy host writes its access log with one
 * system call per turn instead of one per request. Anything else written to stdout meanwhile
 * (the command line's own lines) joins the same buffer in order. A warning or an error first
 * releases what is gathered, so lines keep their order; so does the process exiting.
 */
let corked = false;

function release(): void {
  if (!corked) return;
  corked = false;
  process.stdout.uncork();
}

function gather(): void {
  if (corked) return;
  corked = true;
  process.stdout.cork();
  setImmediate(release);
}

let exitHooked = false;

export function createConsoleLogger(): Logger {
  if (!exitHooked) {
    exitHooked = true;
    process.on('exit', release);
  }
  return {
    info: (message) => {
      gather();
      process.stdout.write(`${stamp()} info  ${formatLogMessage(message)}\n`);
    },
    warn: (message) => {
      release();
      process.stderr.write(`${stamp()} warn  ${formatLogMessage(message)}\n`);
    },
    error: (message) => {
      release();
      process.stderr.write(`${stamp()} error ${formatLogMessage(message)}\n`);
    },
  };
}

/**
 * One JSON object per line on stdout: `{"level":"info","time":"…","pid":…,"msg":"…"}`. Written
 * synchronously, so the last lines before an exit are not lost. JSON keeps a message with
 * newlines one record; control characters are escaped as in the text format.
 */
export function createJsonLogger(
  destination: { write(line: string): unknown } = pino.destination({ dest: 1, sync: true }),
): Logger {
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
