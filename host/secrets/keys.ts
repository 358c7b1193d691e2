// The operator's key ring for stored integration secrets: `HOST_SECRETS_KEYS` (or the file named
// by `HOST_SECRETS_KEYS_FILE`) lists `ID:KEY` entries, KEY 32 random bytes in base64; the highest
// id encrypts, every listed key decrypts. Parses and reads only; never prints key material.

import { commandLine } from '../common/invocation.ts';
import { randomBytes } from 'node:crypto';
import { HostError } from '../common/errors.ts';
import { readRegularFile, UnreadableFileError } from '../manifest/read-file.ts';

export const KEYS_VARIABLE = 'HOST_SECRETS_KEYS';
export const KEYS_FILE_VARIABLE = 'HOST_SECRETS_KEYS_FILE';
const MAX_KEYS_FILE_BYTES = 64 * 1024;
const MAX_KEY_ID = 1_000_000;
const KEY_BYTES = 32;
const ENTRY = /^(\d{1,7}):([A-Za-z0-9+/_-]+={0,2})$/;

export interface KeyRing {
  /** Key id → 32 bytes of AES-256 key. */
  readonly keys: ReadonlyMap<number, Buffer>;
  /** The id new values are encrypted with (the highest), or undefined when no key is configured. */
  readonly current: number | undefined;
  /** Where the keys came from, for messages: `HOST_SECRETS_KEYS`, `HOST_SECRETS_KEYS_FILE (/path)`, or `none`. */
  readonly source: string;
}

export const EMPTY_KEY_RING: KeyRing = { keys: new Map(), current: undefined, source: 'none' };

/** How an operator provides a key: the one sentence every "no key" message ends with. */
export const HOW_TO_PROVIDE_A_KEY =
  `set ${KEYS_VARIABLE}=1:<key> (or ${KEYS_FILE_VARIABLE}=<file> holding that line) where the ` +
  `host and this command run; ${commandLine('secrets', 'new-key')} prints a fresh one`;

function invalid(where: string, message: string): HostError {
  return new HostError('ERR_OPTIONS_INVALID', `${where}: ${message}`);
}

/**
 * Parses `ID:KEY` entries separated by commas, spaces or lines (`#` starts a comment). Messages
 * name the entry by position and id, never by its key.
 */
export function parseKeyRing(text: string, where: string): KeyRing {
  const entries = text
    .split(/\r?\n/)
    .map((line) => line.replace(/#.*$/, ''))
    .flatMap((line) => line.split(/[,\s]+/))
    .filter((entry) => entry !== '');
  if (entries.length === 0)
    throw invalid(
      where,
      `lists no key; expected ID:KEY entries such as 1:<base64 of 32 random ` +
        `bytes> (${commandLine('secrets', 'new-key')} prints one)`,
    );
  const keys = new Map<number, Buffer>();
  entries.forEach((entry, index) => {
    const position = `entry ${index + 1}`;
    const match = ENTRY.exec(entry);
    if (match === null)
      throw invalid(
        where,
        `${position} is not ID:KEY (a number from 1 to ${MAX_KEY_ID}, a colon, then the key in base64)`,
      );
    const id = Number(match[1]);
    if (id < 1 || id > MAX_KEY_ID)
      throw invalid(where, `${position}: key id ${match[1]} is not from 1 to ${MAX_KEY_ID}`);
    if (keys.has(id)) throw invalid(where, `key id ${id} is listed twice`);
    const key = Buffer.from(match[2].replaceAll('-', '+').replaceAll('_', '/'), 'base64');
    if (key.length !== KEY_BYTES)
      throw invalid(
        where,
        `key ${id} is ${key.length} bytes once decoded from base64; AES-256 needs exactly ${KEY_BYTES}`,
      );
    keys.set(id, key);
  });
  return { keys, current: Math.max(...keys.keys()), source: where };
}

/**
 * The key ring the environment names: the variable, or the file (a regular file of at most 64 KiB),
 * or none. Both at once is refused: which one is meant cannot be guessed.
 */
export async function readKeyRing(env: Record<string, string | undefined>): Promise<KeyRing> {
  const inline = env[KEYS_VARIABLE] || undefined;
  const file = env[KEYS_FILE_VARIABLE] || undefined;
  if (inline !== undefined && file !== undefined)
    throw invalid(KEYS_VARIABLE, `${KEYS_VARIABLE} and ${KEYS_FILE_VARIABLE} are both set; keep one of them`);
  if (inline !== undefined) return parseKeyRing(inline, KEYS_VARIABLE);
  if (file === undefined) return EMPTY_KEY_RING;
  const where = `${KEYS_FILE_VARIABLE} (${file})`;
  let bytes: Buffer;
  try {
    bytes = await readRegularFile(file, MAX_KEYS_FILE_BYTES);
  } catch (error) {
    const reason =
      error instanceof UnreadableFileError
        ? error.message
        : `cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`;
    throw invalid(where, `the key file ${reason}`);
  }
  return parseKeyRing(bytes.toString('utf8'), where);
}

/** A fresh key line, `ID:KEY`, for a ring whose highest id is `after` (0 for the first key). */
export function newKeyLine(after = 0): string {
  return `${after + 1}:${randomBytes(KEY_BYTES).toString('base64')}`;
}
