// Human-readable log lines for the host process: `HH:MM:SS.mmm level message`. The only place
// that writes log lines to stdout/stderr; everything else takes a Logger.

export interface Logger {
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

function stamp(): string {
  return new Date().toISOString().slice(11, 23);
}

export function createConsoleLogger(): Logger {
  return {
    info: (message) => process.stdout.write(`${stamp()} info  ${message}\n`),
    warn: (message) => process.stderr.write(`${stamp()} warn  ${message}\n`),
    error: (message) => process.stderr.write(`${stamp()} error ${message}\n`),
  };
}

/** A logger that keeps lines in memory (tests, benchmarks). */
export function createMemoryLogger(): Logger & { lines: string[] } {
  const lines: string[] = [];
  return {
    lines,
    info: (message) => void lines.push(`info ${message}`),
    warn: (message) => void lines.push(`warn ${message}`),
    error: (message) => void lines.push(`error ${message}`),
  };
}
