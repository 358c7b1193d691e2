// The isolate's URL class: parsing and every setter are the host's WHATWG implementation
// (BridgePrimitives.parseUrl and setUrlComponent), so the standard's rules, ignored values included,
// are Node's own. Never holds anything of the host but a copied UrlRecord.
import type { UrlComponent, UrlRecord } from './contract.ts';
import { URLSearchParams, bindSearchParams } from './url-search-params.ts';
import { defineInterface, requireArguments, toUSVString } from './webidl.ts';

export type ParseUrl = (input: string, base: string | undefined) => UrlRecord | null;
export type SetUrlComponent = (href: string, component: UrlComponent, value: string) => UrlRecord | null;

export function createUrlClass(parseUrl: ParseUrl, setUrlComponent: SetUrlComponent) {
  const parse = (url: unknown, base: unknown): UrlRecord | null =>
    parseUrl(toUSVString(url), base === undefined ? undefined : toUSVString(base));

  // The class is a property value named as the standard spells it: the bundler renames bindings
  // (URL is a global other bundled modules use: it named this class URL2), never property keys,
  // and a class takes its name, and its name in stack traces, from the key.
  const URL = {
    URL: class {
      #record: UrlRecord;
      #params: URLSearchParams;
      #syncParams: (query: string) => void;

      constructor(url: string, base: string | undefined = undefined) {
        requireArguments(arguments.length, 1, 'URL', 'constructor');
        const record = parse(url, base);
        if (record === null) throw new TypeError(`Invalid URL: ${String(url)}`);
        this.#record = record;
        this.#params = new URLSearchParams(record.search);
        this.#syncParams = bindSearchParams(this.#params, (serialized) => {
          // The standard's URLSearchParams update steps: the serialized list is the query, and an
          // empty list means no query at all (the search setter does exactly both).
          this.#set('search', serialized, false);
        });
      }

      static canParse(url: string, base: string | undefined = undefined): boolean {
        requireArguments(arguments.length, 1, 'URL', 'canParse');
        return parse(url, base) !== null;
      }

      static parse(url: string, base: string | undefined = undefined): URL | null {
        requireArguments(arguments.length, 1, 'URL', 'parse');
        return parse(url, base) === null ? null : new URL(url, base);
      }

      /** A setter: the host applies it to the href; a value the standard ignores changes nothing. */
      #set(component: UrlComponent, value: unknown, syncParams = component === 'search'): void {
        const record = setUrlComponent(this.#record.href, component, toUSVString(value));
        if (record === null) return;
        this.#record = record;
        if (syncParams) this.#syncParams(record.search);
      }

      get href(): string {
        return this.#record.href;
      }
      set href(value: string) {
        const record = parse(value, undefined);
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
        this.#set('protocol', value);
      }

      get username(): string {
        return this.#record.username;
      }
      set username(value: string) {
        this.#set('username', value);
      }

      get password(): string {
        return this.#record.password;
      }
      set password(value: string) {
        this.#set('password', value);
      }

      get host(): string {
        return this.#record.host;
      }
      set host(value: string) {
        this.#set('host', value);
      }

      get hostname(): string {
        return this.#record.hostname;
      }
      set hostname(value: string) {
        this.#set('hostname', value);
      }

      get port(): string {
        return this.#record.port;
      }
      set port(value: string) {
        this.#set('port', value);
      }

      get pathname(): string {
        return this.#record.pathname;
      }
      set pathname(value: string) {
        this.#set('pathname', value);
      }

      get search(): string {
        return this.#record.search;
      }
      set search(value: string) {
        this.#set('search', value);
      }

      get searchParams(): URLSearchParams {
        return this.#params;
      }

      get hash(): string {
        return this.#record.hash;
      }
      set hash(value: string) {
        this.#set('hash', value);
      }

      toString(): string {
        return this.#record.href;
      }

      toJSON(): string {
        return this.#record.href;
      }

      static {
        defineInterface(this.prototype, 'URL');
      }
    },
  }.URL;
  type URL = InstanceType<typeof URL>;
  return URL;
}

export type URLClass = ReturnType<typeof createUrlClass>;
