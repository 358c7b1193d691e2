// multipart/form-data encoding (the HTML standard's algorithm, as Fetch's "extract a body" uses it)
// and parsing (RFC 7578, as Body#formData() needs it). Pure: no bridge. The boundary is checked
// against every part, so no content, however hostile, can contain the delimiter and forge a part.
import { File, blobBytes } from './blob.ts';
import type { FormDataEntryValue } from './form-data.ts';
import { utf8Decode, utf8Encode } from './utf8.ts';

type Entry = readonly [string, FormDataEntryValue];

const CRLF = [13, 10];
const HYPHENS = [45, 45];

/** Line breaks of names and string values become CRLF, as form submission normalises them. */
function normalizeNewlines(text: string): string {
  return text.replace(/\r\n|\r|\n/g, '\r\n');
}

/** Quotes in names and filenames are written as %22 and line breaks as %0D/%0A (HTML standard). */
function escapeQuoted(text: string): string {
  return text.replace(/\n/g, '%0A').replace(/\r/g, '%0D').replace(/"/g, '%22');
}

function randomBoundary(): string {
  let suffix = '';
  for (let i = 0; i < 24; i++) suffix += '0123456789abcdefghijklmnopqrstuvwxyz'[Math.floor(Math.random() * 36)];
  return `----formdata-sandbox-${suffix}`;
}

function indexOf(haystack: Uint8Array, needle: Uint8Array, from = 0): number {
  const first = needle[0];
  const last = haystack.length - needle.length;
  outer: for (let i = haystack.indexOf(first, from); i !== -1 && i <= last; i = haystack.indexOf(first, i + 1)) {
    for (let j = 1; j < needle.length; j++) if (haystack[i + j] !== needle[j]) continue outer;
    return i;
  }
  return -1;
}

export interface EncodeOptions {
  /**
   * `browser` (default): a file part without a type says `application/octet-stream`, as browsers
   * and Node do. `exact`: it carries no Content-Type, so parsing gives back a File with type ''.
   */
  fileTypes?: 'browser' | 'exact';
}

/** The bytes and Content-Type of `entries` as multipart/form-data. */
export function encodeMultipart(
  entries: readonly Entry[],
  options: EncodeOptions = {},
): { bytes: Uint8Array; contentType: string } {
  const parts = entries.map(([name, value]) => {
    const disposition = `form-data; name="${escapeQuoted(normalizeNewlines(name))}"`;
    if (typeof value === 'string')
      return { head: `Content-Disposition: ${disposition}\r\n\r\n`, body: utf8Encode(normalizeNewlines(value)) };
    const file = value as File;
    const type = file.type !== '' ? file.type : options.fileTypes === 'exact' ? '' : 'application/octet-stream';
    const head =
      `Content-Disposition: ${disposition}; ` +
      `filename="${escapeQuoted(file.name)}"\r\n${type !== '' ? `Content-Type: ${type}\r\n` : ''}\r\n`;
    return { head, body: blobBytes(file) };
  });
  let boundary = randomBoundary();
  // A guessed boundary inside a part would split it: pick another until none contains it.
  while (parts.some((part) => indexOf(part.body, utf8Encode(`--${boundary}`)) !== -1)) boundary = randomBoundary();
  const chunks: Uint8Array[] = [];
  for (const part of parts) chunks.push(utf8Encode(`--${boundary}\r\n${part.head}`), part.body, utf8Encode('\r\n'));
  chunks.push(utf8Encode(`--${boundary}--\r\n`));
  let length = 0;
  for (const chunk of chunks) length += chunk.length;
  const bytes = new Uint8Array(length);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.length;
  }
  return { bytes, contentType: `multipart/form-data; boundary=${boundary}` };
}

/** The `boundary` parameter of a multipart/form-data Content-Type, or null. */
export function multipartBoundary(contentType: string): string | null {
  const [essence, ...params] = contentType.split(';');
  if (essence.trim().toLowerCase() !== 'multipart/form-data') return null;
  for (const param of params) {
    const eq = param.indexOf('=');
    if (eq < 0 || param.slice(0, eq).trim().toLowerCase() !== 'boundary') continue;
    let value = param.slice(eq + 1).trim();
    if (value.startsWith('"') && value.endsWith('"') && value.length >= 2) value = value.slice(1, -1);
    return value !== '' && value.length <= 70 ? value : null;
  }
  return null;
}

function parseFailure(why: string): TypeError {
  return new TypeError(`Failed to parse body as FormData: ${why}`);
}

/**
 * `name="…"`-style parameters of a Content-Disposition value (quoted or bare; `\"` unescaped, and
 * %22, %0D, %0A decoded back, as browsers write them and Node reads them).
 */
function dispositionParams(value: string): Map<string, string> {
  const params = new Map<string, string>();
  const pattern = /;\s*([^\s=;]+)\s*=\s*("((?:[^"\\]|\\.)*)"|[^;]*)/g;
  for (let match = pattern.exec(value); match !== null; match = pattern.exec(value)) {
    const key = match[1].toLowerCase();
    const raw = match[3] !== undefined ? match[3].replace(/\\(.)/g, '$1') : match[2].trim();
    const decoded = raw.replace(/%0A/gi, '\n').replace(/%0D/gi, '\r').replace(/%22/g, '"');
    if (!params.has(key)) params.set(key, decoded);
  }
  return params;
}

/** The entries of a multipart/form-data body. Throws a TypeError naming what is malformed. */
export function parseMultipart(bytes: Uint8Array, boundary: string): [string, FormDataEntryValue][] {
  const delimiter = utf8Encode(`--${boundary}`);
  const entries: [string, FormDataEntryValue][] = [];
  let position = indexOf(bytes, delimiter);
  if (position !== 0 && (position < 2 || bytes[position - 2] !== 13 || bytes[position - 1] !== 10))
    throw parseFailure('no opening boundary');
  const nextDelimiter = utf8Encode(`\r\n--${boundary}`);
  for (;;) {
    position += delimiter.length;
    if (bytes[position] === HYPHENS[0] && bytes[position + 1] === HYPHENS[1]) return entries; // the close delimiter
    while (bytes[position] === 32 || bytes[position] === 9) position++; // transport padding
    if (bytes[position] !== CRLF[0] || bytes[position + 1] !== CRLF[1])
      throw parseFailure('a boundary is not followed by a line break');
    position += 2;
    const headerEnd = indexOf(bytes, utf8Encode('\r\n\r\n'), position);
    if (headerEnd < 0) throw parseFailure('a part has no end of headers');
    const headers = new Map<string, string>();
    for (const line of utf8Decode(bytes.subarray(position, headerEnd)).split('\r\n')) {
      const colon = line.indexOf(':');
      if (colon <= 0) throw parseFailure('a part has a malformed header line');
      headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
    }
    const bodyStart = headerEnd + 4;
    const bodyEnd = indexOf(bytes, nextDelimiter, bodyStart);
    if (bodyEnd < 0) throw parseFailure('a part is not closed by a boundary');
    const disposition = headers.get('content-disposition') ?? '';
    if (!/^form-data\s*(;|$)/i.test(disposition)) throw parseFailure('a part is not "Content-Disposition: form-data"');
    const params = dispositionParams(disposition);
    const name = params.get('name');
    if (name === undefined) throw parseFailure('a part has no name');
    const content = bytes.slice(bodyStart, bodyEnd);
    const filename = params.get('filename');
    if (filename !== undefined)
      entries.push([name, new File([content], filename, { type: headers.get('content-type') ?? '' })]);
    else entries.push([name, utf8Decode(content)]);
    position = bodyEnd + 2;
  }
}
