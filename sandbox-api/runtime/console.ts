// The guest's console (the standard's namespace object): every call becomes one log(level, text)
// line, formatted by console-format.ts and capped at 8 KiB. No method throws into guest code but
// for what the standard rethrows: a label whose conversion to a string throws.
import type { LogLevel } from './contract.ts';
import { capLine, formatError, formatLogArgs, inspect } from './console-format.ts';
import { capturedFrames } from './stack-capture.ts';
import { toDOMString } from './webidl.ts';

export type LogSink = (level: LogLevel, text: string) => void;

export function createConsole(log: LogSink) {
  const counts = new Map<string, number>();
  const timers = new Map<string, number>();
  let indent = '';

  const emit = (level: LogLevel, text: string): void => {
    try {
      const line =
        indent === ''
          ? text
          : text
              .split('\n')
              .map((part) => indent + part)
              .join('\n');
      log(level, capLine(line));
    } catch {
      // console output is best effort
    }
  };
  const writer =
    (level: LogLevel) =>
    (...args: unknown[]): void =>
      emit(level, formatLogArgs(args));
  // WebIDL's `optional DOMString label = "default"`: the conversion throws what toString throws.
  const labelOf = (label: unknown): string => (label === undefined ? 'default' : toDOMString(label));
  const guard = (body: () => void): void => {
    try {
      body();
    } catch {
      // formatting a trace or a count is best effort, as the output is
    }
  };

  const methods = {
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
        // The frames V8 captured, whatever a guest's Error.prepareStackTrace makes of them (outside
        // a realm, where nothing records them, its stack).
        const here = new Error();
        const captured = capturedFrames(here);
        // Drop the header and this frame.
        const frames = (captured !== undefined ? `Error${captured}` : formatError(here)).split('\n').slice(2);
        emit('log', ['Trace' + (args.length > 0 ? ': ' + formatLogArgs(args) : ''), ...frames].join('\n'));
      }),
    assert: (condition?: unknown, ...args: unknown[]): void => {
      if (!condition) emit('error', 'Assertion failed' + (args.length > 0 ? ': ' + formatLogArgs(args) : ''));
    },
    count: (label?: unknown): void => {
      const key = labelOf(label);
      guard(() => {
        const count = (counts.get(key) ?? 0) + 1;
        counts.set(key, count);
        emit('log', `${key}: ${count}`);
      });
    },
    countReset: (label?: unknown): void => {
      const key = labelOf(label);
      counts.delete(key);
    },
    time: (label?: unknown): void => {
      const key = labelOf(label);
      timers.set(key, Date.now());
    },
    timeLog: (label?: unknown, ...args: unknown[]): void => {
      const key = labelOf(label);
      guard(() => {
        const started = timers.get(key);
        if (started === undefined) emit('warn', `No such label '${key}' for console.timeLog()`);
        else emit('log', `${key}: ${Date.now() - started}ms` + (args.length > 0 ? ' ' + formatLogArgs(args) : ''));
      });
    },
    timeEnd: (label?: unknown): void => {
      const key = labelOf(label);
      guard(() => {
        const started = timers.get(key);
        if (started === undefined) emit('warn', `No such label '${key}' for console.timeEnd()`);
        else {
          timers.delete(key);
          emit('log', `${key}: ${Date.now() - started}ms`);
        }
      });
    },
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
  // A WebIDL namespace: its [[Prototype]] is an empty object over Object.prototype (frozen here:
  // the console itself stays the guest's to change), and it is tagged "console".
  const console = Object.create(Object.freeze(Object.create(Object.prototype))) as typeof methods;
  Object.defineProperties(console, Object.getOwnPropertyDescriptors(methods));
  // The writers are made by one function: each is named after its method, as browsers name them.
  for (const [name, method] of Object.entries(methods)) {
    if (method.name !== name) Object.defineProperty(method, 'name', { value: name, configurable: true });
  }
  Object.defineProperty(console, Symbol.toStringTag, {
    value: 'console',
    writable: false,
    enumerable: false,
    configurable: true,
  });
  return console;
}
