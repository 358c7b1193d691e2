// The runtime's encoding module, loaded into an isolate the first time a TextDecoder is asked for a
// label that is not UTF-8's (modules.ts): the WHATWG Encoding label table and the decoders of every
// other encoding, which hand the bytes to the host's (ICU) decoder (ISO-2022-JP's escape sequences
// excepted: iso-2022-jp.ts). It holds no table of characters.
import type { BridgePrimitives } from '../contract.ts';
import { Iso2022JpDecoder } from './iso-2022-jp.ts';

export interface EncodingDeps {
  decodeText: BridgePrimitives['decodeText'];
}

/** What TextDecoder keeps for an encoding other than UTF-8 (the same contract as utf8.ts's Utf8Decoder). */
export interface LegacyDecoder {
  decode(bytes: Uint8Array, stream: boolean): string;
}

/**
 * Every encoding but UTF-8 (text-codec.ts knows its labels), one a line: its name (what
 * TextDecoder#encoding says), then its other labels, from the Encoding standard's encodings.json.
 * A line indented further continues the labels of the line above.
 */
const TABLE = `
  ibm866 866 cp866 csibm866
  iso-8859-2 csisolatin2 iso-ir-101 iso8859-2 iso88592 iso_8859-2 iso_8859-2:1987 l2 latin2
  iso-8859-3 csisolatin3 iso-ir-109 iso8859-3 iso88593 iso_8859-3 iso_8859-3:1988 l3 latin3
  iso-8859-4 csisolatin4 iso-ir-110 iso8859-4 iso88594 iso_8859-4 iso_8859-4:1988 l4 latin4
  iso-8859-5 csisolatincyrillic cyrillic iso-ir-144 iso8859-5 iso88595 iso_8859-5 iso_8859-5:1988
  iso-8859-6 arabic asmo-708 csiso88596e csiso88596i csisolatinarabic ecma-114 iso-8859-6-e
    iso-8859-6-i iso-ir-127 iso8859-6 iso88596 iso_8859-6 iso_8859-6:1987
  iso-8859-7 csisolatingreek ecma-118 elot_928 greek greek8 iso-ir-126 iso8859-7 iso88597 iso_8859-7
    iso_8859-7:1987 sun_eu_greek
  iso-8859-8 csiso88598e csisolatinhebrew hebrew iso-8859-8-e iso-ir-138 iso8859-8 iso88598
    iso_8859-8 iso_8859-8:1988 visual
  iso-8859-8-i csiso88598i logical
  iso-8859-10 csisolatin6 iso-ir-157 iso8859-10 iso885910 l6 latin6
  iso-8859-13 iso8859-13 iso885913
  iso-8859-14 iso8859-14 iso885914
  iso-8859-15 csisolatin9 iso8859-15 iso885915 iso_8859-15 l9
  iso-8859-16
  koi8-r cskoi8r koi koi8 koi8_r
  koi8-u koi8-ru
  macintosh csmacintosh mac x-mac-roman
  windows-874 dos-874 iso-8859-11 iso8859-11 iso885911 tis-620
  windows-1250 cp1250 x-cp1250
  windows-1251 cp1251 x-cp1251
  windows-1252 ansi_x3.4-1968 ascii cp1252 cp819 csisolatin1 ibm819 iso-8859-1 iso-ir-100 iso8859-1
    iso88591 iso_8859-1 iso_8859-1:1987 l1 latin1 us-ascii x-cp1252
  windows-1253 cp1253 x-cp1253
  windows-1254 cp1254 csisolatin5 iso-8859-9 iso-ir-148 iso8859-9 iso88599 iso_8859-9 iso_8859-9:1989 l5 latin5 x-cp1254
  windows-1255 cp1255 x-cp1255
  windows-1256 cp1256 x-cp1256
  windows-1257 cp1257 x-cp1257
  windows-1258 cp1258 x-cp1258
  x-mac-cyrillic x-mac-ukrainian
  gbk chinese csgb2312 csiso58gb231280 gb2312 gb_2312 gb_2312-80 iso-ir-58 x-gbk
  gb18030
  big5 big5-hkscs cn-big5 csbig5 x-x-big5
  euc-jp cseucpkdfmtjapanese x-euc-jp
  iso-2022-jp csiso2022jp
  shift_jis csshiftjis ms932 ms_kanji shift-jis sjis windows-31j x-sjis
  euc-kr cseuckr csksc56011987 iso-ir-149 korean ks_c_5601-1987 ks_c_5601-1989 ksc5601 ksc_5601 windows-949
  replacement csiso2022kr hz-gb-2312 iso-2022-cn iso-2022-cn-ext iso-2022-kr
  utf-16be unicodefffe
  utf-16le csunicode iso-10646-ucs-2 ucs-2 unicode unicodefeff utf-16
  x-user-defined
`;

/** Encodings whose decoder keeps state between bytes: only their streams need the host to remember them. */
const STATEFUL = new Set(['gbk', 'gb18030', 'big5', 'euc-jp', 'shift_jis', 'euc-kr', 'utf-16be', 'utf-16le']);

export function createEncoding(deps: EncodingDeps) {
  const decodeText = deps.decodeText;
  const names = new Map<string, string>();
  let name = '';
  for (const line of TABLE.split('\n')) {
    const labels = line.trim().split(' ');
    if (labels[0] === '') continue;
    if (!line.startsWith('    ')) name = labels[0];
    for (const label of labels) names.set(label, name);
  }
  // The numbers of the host's streams (BridgePrimitives.decodeText): only ever growing, per isolate.
  let lastStream = 0;

  class HostDecoder implements LegacyDecoder {
    readonly #encoding: string;
    readonly #fatal: boolean;
    readonly #ignoreBOM: boolean;
    readonly #stateful: boolean;
    #stream = 0;

    constructor(encoding: string, fatal: boolean, ignoreBOM: boolean) {
      this.#encoding = encoding;
      this.#fatal = fatal;
      this.#ignoreBOM = ignoreBOM;
      this.#stateful = STATEFUL.has(encoding);
    }

    decode(bytes: Uint8Array, stream: boolean): string {
      const open = this.#stream;
      if (bytes.length === 0 && (stream || open === 0)) return '';
      let id = 0;
      if (this.#stateful && (stream || open !== 0)) id = open !== 0 ? open : ++lastStream;
      this.#stream = stream ? id : 0;
      const result = decodeText(bytes, this.#encoding, this.#fatal, this.#ignoreBOM, id, !stream);
      if (result.ok) return result.value;
      this.#stream = 0;
      if (result.code === 'stream_lost')
        throw new TypeError(
          `TextDecoder: this ${this.#encoding} stream was dropped: too many streams were open at once`,
        );
      throw new TypeError(`The encoded data was not valid for encoding ${this.#encoding}`);
    }
  }

  /** JIS X 0208 characters for ISO-2022-JP: EUC-JP bytes decoded on the host. */
  const jis0208 = (euc: Uint8Array): string => {
    const result = decodeText(euc, 'euc-jp', false, false, 0, true);
    if (!result.ok) throw new TypeError('TextDecoder: the host could not decode iso-2022-jp');
    return result.value;
  };

  return {
    /** The encoding's name for an ASCII-lowercased, trimmed label, or null for an unknown one. */
    encodingOf(label: string): string | null {
      return names.get(label) ?? null;
    },
    createDecoder(encoding: string, fatal: boolean, ignoreBOM: boolean): LegacyDecoder {
      return encoding === 'iso-2022-jp'
        ? new Iso2022JpDecoder(jis0208, fatal)
        : new HostDecoder(encoding, fatal, ignoreBOM);
    },
  };
}

export type EncodingExports = ReturnType<typeof createEncoding>;

export default createEncoding;
