// The host side of the runtime's TextDecoder for every encoding but UTF-8 (which the isolate decodes
// itself): Node's ICU-backed TextDecoder, one set per realm holding the streams its guest has open
// (`{ stream: true }`), bounded. Only copies and data cross back: never a host error or object.

import type { BridgeResult } from '../../sandbox-api/runtime/contract.ts';
import { isOwnBytes } from './own-bytes.ts';

/**
 * Open streams one realm may hold at once. Each is a Node TextDecoder (an ICU converter, measured
 * at 0.1 to 2 KB); a stream ends with its last chunk or a decoding error, and all end with the realm. A
 * guest opening more (or abandoning streams half-way) loses its least recently used one: that
 * stream's next chunk fails with `stream_lost` rather than decoding from a wrong state.
 */
export const MAX_OPEN_STREAMS = 16;

/** The canonical names the runtime's label table resolves to, but UTF-8 and "replacement" (encodings.json). */
const ENCODINGS = new Set([
  'ibm866',
  'iso-8859-2',
  'iso-8859-3',
  'iso-8859-4',
  'iso-8859-5',
  'iso-8859-6',
  'iso-8859-7',
  'iso-8859-8',
  'iso-8859-8-i',
  'iso-8859-10',
  'iso-8859-13',
  'iso-8859-14',
  'iso-8859-15',
  'iso-8859-16',
  'koi8-r',
  'koi8-u',
  'macintosh',
  'windows-874',
  'windows-1250',
  'windows-1251',
  'windows-1252',
  'windows-1253',
  'windows-1254',
  'windows-1255',
  'windows-1256',
  'windows-1257',
  'windows-1258',
  'x-mac-cyrillic',
  'gbk',
  'gb18030',
  'big5',
  'euc-jp',
  'iso-2022-jp',
  'shift_jis',
  'euc-kr',
  'utf-16be',
  'utf-16le',
  'x-user-defined',
]);

export type DecodeText = (
  bytes: Uint8Array,
  encoding: string,
  fatal: boolean,
  ignoreBOM: boolean,
  stream: number,
  last: boolean,
) => BridgeResult<string>;

const failure = (code: string, message: string): BridgeResult<string> => ({ ok: false, code, message });

function decodeWith(decoder: TextDecoder, bytes: Uint8Array, stream: boolean): BridgeResult<string> {
  try {
    return { ok: true, value: decoder.decode(bytes, { stream }) };
  } catch {
    return failure('TypeError', 'the data is not valid for this encoding');
  }
}

/**
 * BridgePrimitives.decodeText for one realm. `stream` 0 decodes `bytes` on their own; any other
 * number is one of the realm's streams, opened by its first chunk (numbers only grow, so a number
 * already seen but no longer open was lost) and closed by `last` or an error.
 */
export function createTextDecoding(): DecodeText {
  const open = new Map<number, TextDecoder>();
  let newest = 0;
  return (bytes, encoding, fatal, ignoreBOM, stream, last) => {
    if (!isOwnBytes(bytes) || typeof encoding !== 'string' || !ENCODINGS.has(encoding))
      return failure('RangeError', 'unsupported encoding or input');
    if (typeof fatal !== 'boolean' || typeof ignoreBOM !== 'boolean' || typeof last !== 'boolean')
      return failure('TypeError', 'malformed options');
    if (!Number.isSafeInteger(stream) || stream < 0) return failure('TypeError', 'malformed stream');
    if (stream === 0) return decodeWith(new TextDecoder(encoding, { fatal, ignoreBOM }), bytes, false);
    let decoder = open.get(stream);
    if (decoder === undefined) {
      if (stream <= newest) return failure('stream_lost', 'this stream was closed to open newer ones');
      newest = stream;
      decoder = new TextDecoder(encoding, { fatal, ignoreBOM });
      if (open.size >= MAX_OPEN_STREAMS) open.delete(open.keys().next().value!);
    } else open.delete(stream); // re-inserted below as the most recently used
    const result = decodeWith(decoder, bytes, !last);
    if (result.ok && !last) open.set(stream, decoder);
    return result;
  };
}
