// Reads one secret value for `npm run secrets -- set`: from a pipe or file on stdin (one final
// newline dropped), or typed at a terminal with echo off. Never from argv, never echoed, never
// more than the cap plus one byte held.

import { HostError } from '../common/errors.ts';
import { MAX_SECRET_VALUE_BYTES } from '../secrets/names.ts';

/** The whole of a non-terminal stdin, refusing more than `limit` bytes. */
export async function readPipedValue(input: NodeJS.ReadableStream, limit = MAX_SECRET_VALUE_BYTES): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of input) {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
    size += bytes.length;
    // One newline may follow the value (echo, a file's last line): allow for it before refusing.
    if (size > limit + 2)
      throw new HostError(
        'ERR_VALIDATION',
        `the value on stdin is larger than ${limit} bytes (64 KiB), the most a secret holds`,
      );
    chunks.push(bytes);
  }
  let text = Buffer.concat(chunks).toString('utf8');
  // `echo value |` and files end with a newline that is not part of the secret; only one goes.
  if (text.endsWith('\r\n')) text = text.slice(0, -2);
  else if (text.endsWith('\n')) text = text.slice(0, -1);
  return text;
}

export interface TerminalInput {
  setRawMode(mode: boolean): unknown;
  on(event: 'data', listener: (chunk: Buffer | string) => void): unknown;
  off(event: 'data', listener: (chunk: Buffer | string) => void): unknown;
  resume(): unknown;
  pause(): unknown;
}

/**
 * One line typed at a terminal with echo off: Enter ends it, Backspace deletes, Ctrl-C cancels.
 * Multi-line values (a PEM key) come through a pipe instead: `< key.pem`.
 */
export function readTypedValue(input: TerminalInput, endLine: () => void): Promise<string> {
  return new Promise((resolve, reject) => {
    let value = '';
    const finish = () => {
      input.off('data', onData);
      input.setRawMode(false);
      input.pause();
      endLine();
    };
    function onData(chunk: Buffer | string): void {
      for (const char of typeof chunk === 'string' ? chunk : chunk.toString('utf8')) {
        if (char === '\r' || char === '\n' || char === '\u0004') {
          finish();
          resolve(value);
          return;
        }
        if (char === '\u0003') {
          finish();
          reject(new HostError('ERR_VALIDATION', 'cancelled: nothing was stored'));
          return;
        }
        if (char === '\u007f' || char === '\b') {
          value = Array.from(value).slice(0, -1).join('');
          continue;
        }
        value += char;
        if (Buffer.byteLength(value) > MAX_SECRET_VALUE_BYTES) {
          finish();
          reject(
            new HostError(
              'ERR_VALIDATION',
              `the value is larger than ${MAX_SECRET_VALUE_BYTES} bytes (64 KiB), the most a secret holds`,
            ),
          );
          return;
        }
      }
    }
    input.setRawMode(true);
    input.on('data', onData);
    input.resume();
  });
}
