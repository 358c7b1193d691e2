// Formats console arguments roughly like Node's util.format/inspect, on one line: %-specifiers,
// objects inspected with cycles as [Circular] and depth 4, errors as their stack. Never throws
// (guest getters and proxies can), and caps each line at 8 KiB. Pure: no bridge.
import { FRAMES_SET_BY_INTEGRATION } from './contract.ts';
import { capturedFrames, oneLine } from './stack-capture.ts';
import { utf8Length } from './utf8.ts';

export const MAX_LINE_BYTES = 8192;
const MAX_DEPTH = 4;
const MAX_ITEMS = 100;
const MAX_STRING_CHARS = 10_000;

function quote(text: string): string {
  const shown = text.length > MAX_STRING_CHARS ? text.slice(0, MAX_STRING_CHARS) : text;
  const escaped = shown.replace(/[\\'\u0000-\u001f\u007f]/g, (char) => {
    const named: Record<string, string> = {
      '\\': '\\\\',
      "'": "\\'",
      '\n': '\\n',
      '\r': '\\r',
      '\t': '\\t',
      '\b': '\\b',
      '\f': '\\f',
      '\v': '\\v',
    };
    return named[char] ?? '\\x' + char.charCodeAt(0).toString(16).padStart(2, '0');
  });
  const more = text.length - shown.length;
  return `'${escaped}'` + (more > 0 ? `... ${more} more character${more > 1 ? 's' : ''}` : '');
}

function formatKey(key: string | symbol): string {
  if (typeof key === 'symbol') return `[${key.toString()}]`;
  return /^[A-Za-z_$][\w$]*$/.test(key) ? key : quote(key);
}

function formatPrimitive(value: unknown, nested: boolean): string | null {
  switch (typeof value) {
    case 'string':
      return nested ? quote(value) : value;
    case 'number':
      return Object.is(value, -0) ? '-0' : String(value);
    case 'bigint':
      return `${value}n`;
    case 'symbol':
      return value.toString();
    case 'undefined':
      return 'undefined';
    case 'boolean':
      return String(value);
    default:
      return value === null ? 'null' : null;
  }
}

function functionLabel(fn: Function): string {
  let source = '';
  try {
    source = Function.prototype.toString.call(fn);
  } catch {
    // a revoked proxy, for instance
  }
  const name = typeof fn.name === 'string' && fn.name !== '' ? fn.name : '';
  if (source.startsWith('class')) return name ? `[class ${name}]` : '[class (anonymous)]';
  return name ? `[Function: ${name}]` : '[Function (anonymous)]';
}

function isError(value: object): value is Error {
  return value instanceof Error || Object.prototype.toString.call(value) === '[object Error]';
}

/** `name: message` plus the stack frames, as Node prints an error. */
export function formatError(error: unknown): string {
  try {
    if (error === null || typeof error !== 'object') return inspect(error);
    const err = error as Error;
    const name = String(err.name ?? 'Error');
    const message = String(err.message ?? '');
    const header = message ? `${name}: ${message}` : name;
    const stack = typeof err.stack === 'string' ? err.stack : '';
    if (stack === '') return header;
    const frames = stack.split('\n').filter((line) => /^\s+at /.test(line));
    return frames.length > 0 ? `${header}\n${frames.join('\n')}` : header;
  } catch {
    return '[error that could not be formatted]';
  }
}

/** What the runtime reports of an error: its name and message as read once, and the report's text. */
export interface ErrorReport {
  name: string;
  message: string;
  text: string;
}

/**
 * An error as the runtime reports it on the integration's behalf (an unhandled error, a failed
 * timer or start): `name: message` on one line and the frames V8 captured, never what a guest's
 * `Error.prepareStackTrace` or an assignment to `stack` made of them. An error V8 holds no trace
 * for shows the frames its `stack` gives under a marker saying whose they are. Reads the guest's
 * `name` and `message` once each.
 */
export function reportOf(error: unknown): ErrorReport {
  try {
    if (error === null || typeof error !== 'object') {
      const text = inspect(error);
      return { name: 'Error', message: typeof error === 'string' ? error : text, text };
    }
    const err = error as Error;
    const name = String(err.name ?? 'Error');
    const message = String(err.message ?? '');
    const header = oneLine(message ? `${name}: ${message}` : name);
    const frames = capturedFrames(error);
    if (frames !== undefined) return { name, message, text: header + frames };
    const stack = typeof err.stack === 'string' ? err.stack : '';
    const own = stack.split('\n').filter((line) => /^\s+at /.test(line));
    return {
      name,
      message,
      text: own.length > 0 ? `${header}\n${FRAMES_SET_BY_INTEGRATION}\n${own.join('\n')}` : header,
    };
  } catch {
    return { name: 'Error', message: '', text: '[error that could not be formatted]' };
  }
}

export function formatReport(error: unknown): string {
  return reportOf(error).text;
}

function constructorName(value: object): string | null {
  const proto = Object.getPrototypeOf(value);
  if (proto === null) return null;
  const ctor = Object.getOwnPropertyDescriptor(proto, 'constructor')?.value;
  return typeof ctor === 'function' && typeof ctor.name === 'string' ? ctor.name : '';
}

function formatProperties(value: object, seen: object[], depth: number, skipIndices: boolean): string[] {
  const parts: string[] = [];
  const keys = Reflect.ownKeys(value);
  let shown = 0;
  for (const key of keys) {
    if (skipIndices && typeof key === 'string' && /^(0|[1-9]\d*)$/.test(key)) continue;
    const descriptor = Reflect.getOwnPropertyDescriptor(value, key);
    if (descriptor === undefined || !descriptor.enumerable) continue;
    if (shown++ >= MAX_ITEMS) {
      parts.push(`... more properties`);
      break;
    }
    const shownValue =
      'value' in descriptor
        ? inspectValue(descriptor.value, seen, depth + 1)
        : descriptor.get && descriptor.set
          ? '[Getter/Setter]'
          : descriptor.get
            ? '[Getter]'
            : '[Setter]';
    parts.push(`${formatKey(key)}: ${shownValue}`);
  }
  return parts;
}

function braces(prefix: string, open: string, parts: string[], close: string): string {
  const body = parts.length === 0 ? `${open}${close}` : `${open} ${parts.join(', ')} ${close}`;
  return prefix ? `${prefix} ${body}` : body;
}

function listItems(
  items: Iterable<unknown>,
  size: number,
  seen: object[],
  depth: number,
  render?: (item: unknown) => string,
): string[] {
  const parts: string[] = [];
  for (const item of items) {
    if (parts.length >= MAX_ITEMS) {
      parts.push(`... ${size - MAX_ITEMS} more item${size - MAX_ITEMS > 1 ? 's' : ''}`);
      break;
    }
    parts.push(render ? render(item) : inspectValue(item, seen, depth + 1));
  }
  return parts;
}

function inspectObject(value: object, seen: object[], depth: number): string {
  if (typeof value === 'function') return functionLabel(value);
  if (isError(value)) return depth === 0 ? formatError(value) : `[${formatError(value).split('\n')[0]}]`;
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? 'Invalid Date' : value.toISOString();
  if (value instanceof RegExp) return String(value);
  if (value instanceof Promise) return 'Promise { <unknown> }';
  if (value instanceof WeakMap || value instanceof WeakSet)
    return `${value instanceof WeakMap ? 'WeakMap' : 'WeakSet'} { <items unknown> }`;
  if (value instanceof ArrayBuffer) return `ArrayBuffer { byteLength: ${value.byteLength} }`;
  if (seen.includes(value)) return '[Circular]';
  const name = constructorName(value);
  const prefix = name === null ? '[Object: null prototype]' : name === 'Object' ? '' : name;
  if (depth > MAX_DEPTH) return Array.isArray(value) ? '[Array]' : `[${name || 'Object'}]`;
  seen.push(value);
  try {
    if (Array.isArray(value)) {
      const parts = listItems(value, value.length, seen, depth);
      return braces(name === 'Array' ? '' : prefix, '[', parts.concat(formatProperties(value, seen, depth, true)), ']');
    }
    if (ArrayBuffer.isView(value) && !(value instanceof DataView)) {
      const view = value as unknown as ArrayLike<unknown>;
      return braces(`${name}(${view.length})`, '[', listItems(Array.from(view), view.length, seen, depth), ']');
    }
    if (value instanceof Map) {
      const render = (entry: unknown): string => {
        const [key, item] = entry as [unknown, unknown];
        return `${inspectValue(key, seen, depth + 1)} => ${inspectValue(item, seen, depth + 1)}`;
      };
      return braces(`${name}(${value.size})`, '{', listItems(value.entries(), value.size, seen, depth, render), '}');
    }
    if (value instanceof Set)
      return braces(`${name}(${value.size})`, '{', listItems(value.values(), value.size, seen, depth), '}');
    return braces(prefix, '{', formatProperties(value, seen, depth, false), '}');
  } finally {
    seen.pop();
  }
}

function inspectValue(value: unknown, seen: object[], depth: number): string {
  const primitive = formatPrimitive(value, true);
  if (primitive !== null) return primitive;
  try {
    return inspectObject(value as object, seen, depth);
  } catch {
    return '[Uninspectable]';
  }
}

/** util.inspect-like rendering of any value (strings quoted). */
export function inspect(value: unknown): string {
  return inspectValue(value, [], 0);
}

function formatSpecifier(specifier: string, arg: unknown): string {
  switch (specifier) {
    case 's':
      return typeof arg === 'string' ? arg : (formatPrimitive(arg, false) ?? inspect(arg));
    case 'd':
      return typeof arg === 'bigint'
        ? `${arg}n`
        : typeof arg === 'symbol'
          ? 'NaN'
          : formatPrimitive(Number(arg), false)!;
    case 'i':
      return typeof arg === 'bigint' ? `${arg}n` : typeof arg === 'symbol' ? 'NaN' : String(parseInt(String(arg), 10));
    case 'f':
      return typeof arg === 'symbol' ? 'NaN' : String(parseFloat(String(arg)));
    case 'j':
      try {
        return JSON.stringify(arg) ?? 'undefined';
      } catch (error) {
        return error instanceof TypeError && /circular/i.test(error.message) ? '[Circular]' : '[Unserializable]';
      }
    case 'c':
      return '';
    default:
      return inspect(arg);
  }
}

/** Node's util.format, roughly, on one line per call (multi-line only for stacks). */
export function formatLogArgs(args: readonly unknown[]): string {
  try {
    let out = '';
    let next = 0;
    if (typeof args[0] === 'string' && args.length > 1) {
      next = 1;
      out = args[0].replace(/%([sdifjoOc%])/g, (match, specifier: string) => {
        if (specifier === '%') return '%';
        if (next >= args.length) return match;
        return formatSpecifier(specifier, args[next++]);
      });
    }
    for (; next < args.length; next++) {
      const arg = args[next];
      const text = typeof arg === 'string' ? arg : inspect(arg);
      out = out === '' && next === 0 ? text : `${out} ${text}`;
    }
    return out;
  } catch {
    return '[console: arguments could not be formatted]';
  }
}

/** Truncates `text` to at most `maxBytes` UTF-8 bytes, ending with a marker saying how much was cut. */
export function capLine(text: string, maxBytes: number = MAX_LINE_BYTES): string {
  if (text.length * 3 <= maxBytes) return text;
  const total = utf8Length(text);
  if (total <= maxBytes) return text;
  const budget = maxBytes - 48; // room for the marker
  let bytes = 0;
  let end = 0;
  while (end < text.length) {
    const unit = text.charCodeAt(end);
    const low = text.charCodeAt(end + 1);
    const pair = unit >= 0xd800 && unit <= 0xdbff && low >= 0xdc00 && low <= 0xdfff;
    const size = unit < 0x80 ? 1 : unit < 0x800 ? 2 : pair ? 4 : 3;
    if (bytes + size > budget) break;
    bytes += size;
    end += pair ? 2 : 1;
  }
  return `${text.slice(0, end)}… [truncated ${total - bytes} bytes]`;
}
