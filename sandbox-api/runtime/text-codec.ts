// TextEncoder (UTF-8, written here) and TextDecoder (UTF-8 here; other encodings through the
// host's decoder passed in). Streaming decode is not supported: `{ stream: true }` throws.
import type { BridgeResult } from './contract.ts';
import { copyBufferSource } from './buffer-source.ts';
import { encodeIntoBuffer, utf8Decode, utf8Encode } from './utf8.ts';

export type DecodeText = (bytes: Uint8Array, label: string, fatal: boolean, ignoreBOM: boolean) => BridgeResult<string>;

export class TextEncoder {
  get encoding(): string {
    return 'utf-8';
  }

  encode(input: string = ''): Uint8Array {
    return utf8Encode(String(input));
  }

  encodeInto(source: string, destination: Uint8Array): { read: number; written: number } {
    if (!(destination instanceof Uint8Array)) throw new TypeError('TextEncoder.encodeInto: destination must be a Uint8Array');
    return encodeIntoBuffer(String(source), destination);
  }

  get [Symbol.toStringTag](): string {
    return 'TextEncoder';
  }
}

const UTF8_LABELS = ['unicode-1-1-utf-8', 'unicode11utf8', 'unicode20utf8', 'utf-8', 'utf8', 'x-unicode20utf8'];
// Names for the labels people actually use; any other label the host accepts keeps its own name.
const KNOWN_NAMES: Record<string, string> = {
  'utf-16': 'utf-16le',
  'utf-16le': 'utf-16le',
  'utf-16be': 'utf-16be',
  ucs2: 'utf-16le',
  'ucs-2': 'utf-16le',
  unicode: 'utf-16le',
  ascii: 'windows-1252',
  'us-ascii': 'windows-1252',
  'iso-8859-1': 'windows-1252',
  latin1: 'windows-1252',
  l1: 'windows-1252',
  'windows-1252': 'windows-1252',
  cp1252: 'windows-1252',
};

export function createTextDecoderClass(decodeText: DecodeText) {
  class TextDecoder {
    #encoding: string;
    #label: string;
    #fatal: boolean;
    #ignoreBOM: boolean;

    constructor(label: string = 'utf-8', options: { fatal?: boolean; ignoreBOM?: boolean } = {}) {
      const normalized = String(label).trim().toLowerCase();
      this.#fatal = Boolean(options?.fatal);
      this.#ignoreBOM = Boolean(options?.ignoreBOM);
      this.#label = normalized;
      if (UTF8_LABELS.includes(normalized)) this.#encoding = 'utf-8';
      else {
        const probe = decodeText(new Uint8Array(0), normalized, false, false);
        if (!probe.ok) throw new RangeError(`The encoding label provided ('${String(label)}') is invalid.`);
        this.#encoding = Object.hasOwn(KNOWN_NAMES, normalized) ? KNOWN_NAMES[normalized] : normalized;
      }
    }

    get encoding(): string {
      return this.#encoding;
    }

    get fatal(): boolean {
      return this.#fatal;
    }

    get ignoreBOM(): boolean {
      return this.#ignoreBOM;
    }

    decode(input?: ArrayBuffer | ArrayBufferView | null, options?: { stream?: boolean }): string {
      if (options?.stream) throw new TypeError('TextDecoder: streaming decode ({ stream: true }) is not supported in this runtime');
      if (input === undefined || input === null) return '';
      const bytes = copyBufferSource(input);
      if (bytes === null) throw new TypeError('TextDecoder.decode: input must be an ArrayBuffer or ArrayBufferView');
      if (this.#encoding === 'utf-8') return utf8Decode(bytes, this.#fatal, this.#ignoreBOM);
      const result = decodeText(bytes, this.#label, this.#fatal, this.#ignoreBOM);
      if (!result.ok) throw new TypeError(`The encoded data was not valid for encoding ${this.#encoding}`);
      return result.value;
    }

    get [Symbol.toStringTag](): string {
      return 'TextDecoder';
    }
  }
  return TextDecoder;
}
