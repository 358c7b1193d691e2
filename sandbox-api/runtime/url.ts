// The isolate's URL class: parsing is the host's spec implementation (BridgePrimitives.parseUrl);
// setters rebuild an href from the parts and re-parse it, which matches the spec's setter
// results for what integrations do. Never holds anything of the host but a copied UrlRecord.
import type { UrlRecord } from './contract.ts';
import { URLSearchParams, bindSearchParams } from './url-search-params.ts';

export type ParseUrl = (input: string, base: string | undefined) => UrlRecord | null;

const SPECIAL_SCHEMES = ['ftp:', 'file:', 'http:', 'https:', 'ws:', 'wss:'];
const USERINFO_ASCII = ' "#<>?`{}/:;=@[\\]^|';

interface Parts {
  scheme: string;
  authority: string | null;
  userinfoAt: string;
  path: string;
  query: string | null;
  fragment: string | null;
}

function splitHref(record: UrlRecord): Parts {
  const scheme = record.protocol;
  let rest = record.href.slice(scheme.length);
  let authority: string | null = null;
  if (rest.startsWith('//')) {
    const end = rest.slice(2).search(/[/?#]/);
    authority = end < 0 ? rest.slice(2) : rest.slice(2, 2 + end);
    rest = end < 0 ? '' : rest.slice(2 + end);
  }
  const at = authority === null ? -1 : authority.lastIndexOf('@');
  const userinfoAt = at < 0 ? '' : (authority as string).slice(0, at + 1);
  const hashAt = rest.indexOf('#');
  const fragment = hashAt < 0 ? null : rest.slice(hashAt + 1);
  const beforeHash = hashAt < 0 ? rest : rest.slice(0, hashAt);
  const queryAt = beforeHash.indexOf('?');
  const query = queryAt < 0 ? null : beforeHash.slice(queryAt + 1);
  const path = queryAt < 0 ? beforeHash : beforeHash.slice(0, queryAt);
  return { scheme, authority, userinfoAt, path, query, fragment };
}

function joinParts(parts: Parts): string {
  let path = parts.path;
  if (parts.authority === null && path.startsWith('//')) path = '/.' + path;
  return (
    parts.scheme +
    (parts.authority === null ? '' : '//' + parts.authority) +
    path +
    (parts.query === null ? '' : '?' + parts.query) +
    (parts.fragment === null ? '' : '#' + parts.fragment)
  );
}

/** Percent-encodes C0 controls, space, DEL and the given ASCII characters; the parser does the rest. */
function encodeAscii(value: string, extra: string): string {
  let out = '';
  for (const char of value) {
    const code = char.charCodeAt(0);
    if (code <= 0x20 || code === 0x7f || (code < 0x80 && extra.includes(char))) {
      out += '%' + code.toString(16).toUpperCase().padStart(2, '0');
    } else out += char;
  }
  return out;
}

const stripTabAndNewline = (value: unknown): string => String(value).replace(/[\t\n\r]/g, '');

export function createUrlClass(parseUrl: ParseUrl) {
  class URL {
    #record: UrlRecord;
    #params: URLSearchParams;
    #syncParams: (query: string) => void;

    constructor(url: unknown, base?: unknown) {
      const record = parseUrl(String(url), base === undefined ? undefined : String(base));
      if (record === null) throw new TypeError(`Invalid URL: ${String(url)}`);
      this.#record = record;
      this.#params = new URLSearchParams(record.search);
      this.#syncParams = bindSearchParams(this.#params, (serialized) => {
        // The spec's URLSearchParams "update steps": an empty list means no query at all.
        this.#reparse({ ...splitHref(this.#record), query: serialized === '' ? null : serialized }, false);
      });
    }

    static canParse(url: unknown, base?: unknown): boolean {
      return parseUrl(String(url), base === undefined ? undefined : String(base)) !== null;
    }

    static parse(url: unknown, base?: unknown): URL | null {
      try {
        return new URL(url, base);
      } catch {
        return null;
      }
    }

    #reparse(parts: Parts, syncParams = true): void {
      const record = parseUrl(joinParts(parts), undefined);
      if (record === null) return; // setters fail silently, as the spec's do
      this.#record = record;
      if (syncParams) this.#syncParams(record.search);
    }

    #isSpecial(): boolean {
      return SPECIAL_SCHEMES.includes(this.#record.protocol);
    }

    #cannotHaveCredentials(parts: Parts): boolean {
      return parts.authority === null || this.#record.host === '' || this.#record.protocol === 'file:';
    }

    get href(): string {
      return this.#record.href;
    }
    set href(value: string) {
      const record = parseUrl(String(value), undefined);
      if (record === null) throw new TypeError(`Invalid URL: ${String(value)}`);
      this.#record = record;
      this.#syncParams(record.search);
    }

    get origin(): string {
      return this.#record.origin;
    }

    get protocol(): string {
      return this.#record.protocol;
    }
    set protocol(value: string) {
      const scheme = stripTabAndNewline(value).split(':')[0].toLowerCase();
      if (!/^[a-z][a-z0-9+.-]*$/.test(scheme)) return;
      const next = scheme + ':';
      if (SPECIAL_SCHEMES.includes(next) !== this.#isSpecial()) return;
      const record = this.#record;
      if (next === 'file:' && (record.username !== '' || record.password !== '' || record.port !== '')) return;
      if (record.protocol === 'file:' && record.host === '') return;
      this.#reparse({ ...splitHref(record), scheme: next });
    }

    get username(): string {
      return this.#record.username;
    }
    set username(value: string) {
      const parts = splitHref(this.#record);
      if (this.#cannotHaveCredentials(parts)) return;
      this.#reparse({ ...parts, authority: this.#authority(encodeAscii(String(value), USERINFO_ASCII), this.#record.password) });
    }

    get password(): string {
      return this.#record.password;
    }
    set password(value: string) {
      const parts = splitHref(this.#record);
      if (this.#cannotHaveCredentials(parts)) return;
      this.#reparse({ ...parts, authority: this.#authority(this.#record.username, encodeAscii(String(value), USERINFO_ASCII)) });
    }

    #authority(username: string, password: string, hostAndPort = this.#record.host): string {
      const userinfo = username !== '' || password !== '' ? username + (password !== '' ? ':' + password : '') + '@' : '';
      return userinfo + hostAndPort;
    }

    get host(): string {
      return this.#record.host;
    }
    set host(value: string) {
      this.#setHost(value, true);
    }

    get hostname(): string {
      return this.#record.hostname;
    }
    set hostname(value: string) {
      this.#setHost(value, false);
    }

    #setHost(value: unknown, withPort: boolean): void {
      const parts = splitHref(this.#record);
      if (parts.authority === null && !parts.path.startsWith('/')) return; // opaque path
      const input = stripTabAndNewline(value);
      const end = input.search(this.#isSpecial() ? /[/?#\\]/ : /[/?#]/);
      const hostAndPort = end < 0 ? input : input.slice(0, end);
      const record = this.#record;
      // file: hosts have no port, so a colon is just an invalid host character there
      const isFile = record.protocol === 'file:';
      const closing = hostAndPort.startsWith('[') ? hostAndPort.indexOf(']') : -1;
      const colon = isFile ? -1 : hostAndPort.indexOf(':', closing < 0 ? 0 : closing);
      const hostname = colon < 0 ? hostAndPort : hostAndPort.slice(0, colon);
      if (colon >= 0 && (!withPort || hostname === '')) return;
      if (/[\u0000-\u0020@]/.test(hostname)) return;
      if (isFile && /^[A-Za-z][:|]$/.test(hostname)) return; // a Windows drive letter is not a host
      const mayBeEmpty = isFile || (!this.#isSpecial() && record.username === '' && record.password === '' && record.port === '');
      if (hostname === '' && !mayBeEmpty) return;
      const portDigits = colon < 0 ? '' : (/^\d*/.exec(hostAndPort.slice(colon + 1)) as RegExpExecArray)[0];
      const port = portDigits !== '' ? portDigits : record.port;
      const authority = this.#authority(record.username, record.password, hostname + (port !== '' ? ':' + port : ''));
      this.#reparse({ ...parts, authority, path: parts.authority === null ? parts.path.replace(/^\/\.(?=\/\/)/, '') : parts.path });
    }

    get port(): string {
      return this.#record.port;
    }
    set port(value: string) {
      const parts = splitHref(this.#record);
      if (this.#cannotHaveCredentials(parts)) return;
      const raw = String(value);
      const digits = (/^\d*/.exec(stripTabAndNewline(raw)) as RegExpExecArray)[0];
      if (raw !== '' && digits === '') return;
      const hostAndPort = this.#record.hostname + (digits !== '' ? ':' + digits : '');
      this.#reparse({ ...parts, authority: this.#authority(this.#record.username, this.#record.password, hostAndPort) });
    }

    get pathname(): string {
      return this.#record.pathname;
    }
    set pathname(value: string) {
      const parts = splitHref(this.#record);
      if (parts.authority === null && !parts.path.startsWith('/')) return; // opaque path
      let path = encodeAscii(stripTabAndNewline(value), '?#');
      const startsWithSlash = path.startsWith('/') || (this.#isSpecial() && path.startsWith('\\'));
      if (this.#isSpecial() || parts.authority === null) {
        if (!startsWithSlash) path = '/' + path;
      } else if (path !== '' && !startsWithSlash) path = '/' + path;
      this.#reparse({ ...parts, path });
    }

    get search(): string {
      return this.#record.search;
    }
    set search(value: string) {
      // As in the spec: the empty check and the one leading "?" apply before tabs/newlines are dropped.
      const raw = String(value);
      const query = raw === '' ? null : encodeAscii(stripTabAndNewline(raw.startsWith('?') ? raw.slice(1) : raw), '#');
      this.#reparse({ ...splitHref(this.#record), query });
    }

    get searchParams(): URLSearchParams {
      return this.#params;
    }

    get hash(): string {
      return this.#record.hash;
    }
    set hash(value: string) {
      const raw = String(value);
      const fragment = raw === '' ? null : encodeAscii(stripTabAndNewline(raw.startsWith('#') ? raw.slice(1) : raw), '');
      this.#reparse({ ...splitHref(this.#record), fragment });
    }

    toString(): string {
      return this.#record.href;
    }

    toJSON(): string {
      return this.#record.href;
    }

    get [Symbol.toStringTag](): string {
      return 'URL';
    }
  }
  return URL;
}

export type URLClass = ReturnType<typeof createUrlClass>;
