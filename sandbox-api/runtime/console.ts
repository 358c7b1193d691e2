// The guest's console: every call becomes one log(level, text) line, formatted by
// console-format.ts and capped at 8 KiB. No method ever throws into guest code.
import type { LogLevel } from './contract.ts';
import { capLine, formatError, formatLogArgs, inspect } from './console-format.ts';

export type LogSink = (level: LogLevel, text: string) => void;

export function createConsole(log: LogSink) {
  const counts = new Map<string, number>();
  const timers = new Map<string, number>();
  let indent = '';

  const emit = (level: LogLevel, text: string): void => {
    try {
      const line = indent === '' ? text : text.split('\n').map((part) => indent + part).join('\n');
      log(level, capLine(line));
    } catch {
      // console output is best effort
    }
  };
  const writer = (level: LogLevel) => (...args: unknown[]): void => emit(level, formatLogArgs(args));
  const labelOf = (label: unknown): string => (label === undefined ? 'default' : String(label));
  const guard = (body: () => void): void => {
    try {
      body();
    } catch {
      // e.g. a label whose toString throws
    }
  };

  return {
    log: writer('log'),
    info: writer('info'),
    warn: writer('warn'),
    error: writer('error'),
    debug: writer('debug'),
    dir: (value: unknown): void => emit('log', inspect(value)),
    dirxml: writer('log'),
    table: (value: unknown): void => emit('log', inspect(value)),
    trace: (...args: unknown[]): void =>
      guard(() => {
        const frames = formatError(new Error()).split('\n').slice(2); // drop the header and this frame
        emit('log', ['Trace' + (args.length > 0 ? ': ' + formatLogArgs(args) : ''), ...frames].join('\n'));
      }),
    assert: (condition?: unknown, ...args: unknown[]): void => {
      if (!condition) emit('error', 'Assertion failed' + (args.length > 0 ? ': ' + formatLogArgs(args) : ''));
    },
    count: (label?: unknown): void =>
      guard(() => {
        const key = labelOf(label);
        const count = (counts.get(key) ?? 0) + 1;
        counts.set(key, count);
        emit('log', `${key}: ${count}`);
      }),
    countReset: (label?: unknown): void => guard(() => void counts.delete(labelOf(label))),
    time: (label?: unknown): void => guard(() => void timers.set(labelOf(label), Date.now())),
    timeLog: (label?: unknown, ...args: unknown[]): void =>
      guard(() => {
        const key = labelOf(label);
        const started = timers.get(key);
        if (started === undefined) emit('warn', `No such label '${key}' for console.timeLog()`);
        else emit('log', `${key}: ${Date.now() - started}ms` + (args.length > 0 ? ' ' + formatLogArgs(args) : ''));
      }),
    timeEnd: (label?: unknown): void =>
      guard(() => {
        const key = labelOf(label);
        const started = timers.get(key);
        if (started === undefined) emit('warn', `No such label '${key}' for console.timeEnd()`);
        else {
          timers.delete(key);
          emit('log', `${key}: ${Date.now() - started}ms`);
        }
      }),
    group: (...label: unknown[]): void => {
      if (label.length > 0) emit('log', formatLogArgs(label));
      indent += '  ';
    },
    groupCollapsed: (...label: unknown[]): void => {
      if (label.length > 0) emit('log', formatLogArgs(label));
      indent += '  ';
    },
    groupEnd: (): void => {
      indent = indent.slice(2);
    },
  };
}
