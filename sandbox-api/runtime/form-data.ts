// FormData (XHR standard): an ordered list of name → string | File entries. A Blob value becomes a
// File (named `blob` unless a filename is given), strings are USVStrings. Pure: no bridge;
// `formDataEntries`/`formDataFrom` are the runtime's internal access for bodies and parsing.
import { Blob, File } from './blob.ts';
import { utf8Decode, utf8Encode } from './utf8.ts';

export type FormDataEntryValue = string | File;
type Entry = [string, FormDataEntryValue];

let entriesOf: (form: FormData) => Entry[];

/** The live entry list (callers must not change it). */
export function formDataEntries(form: FormData): readonly Entry[] {
  return entriesOf(form);
}

/** A FormData holding `entries` (already normalised), for Body#formData(). */
export function formDataFrom(entries: Entry[]): FormData {
  const form = new FormData();
  entriesOf(form).push(...entries);
  return form;
}

function usv(value: unknown): string {
  const text = String(value);
  return /[\ud800-\udfff]/.test(text) ? utf8Decode(utf8Encode(text), false, true) : text; // a leading U+FEFF is text here, not a byte order mark
}

/** The XHR standard's "create an entry". */
function entry(name: unknown, value: unknown, filename: unknown, argc: number): Entry {
  const key = usv(name);
  if (value instanceof Blob) {
    const isFile = value instanceof File;
    if (isFile && argc < 3) return [key, value];
    const fileName = argc >= 3 ? usv(filename) : isFile ? value.name : 'blob';
    return [key, new File([value], fileName, { type: value.type, lastModified: isFile ? value.lastModified : undefined })];
  }
  if (argc >= 3) throw new TypeError("Failed to execute 'append' on 'FormData': parameter 2 is not of type 'Blob'.");
  return [key, usv(value)];
}

export class FormData {
  #entries: Entry[] = [];

  static {
    entriesOf = (form) => form.#entries;
  }

  constructor(form?: unknown) {
    if (form !== undefined) throw new TypeError("Failed to construct 'FormData': HTML form elements do not exist in this runtime");
  }

  append(name: string, value: string | Blob, filename?: string): void {
    if (arguments.length < 2) throw new TypeError("Failed to execute 'append' on 'FormData': 2 arguments required.");
    this.#entries.push(entry(name, value, filename, arguments.length));
  }

  set(name: string, value: string | Blob, filename?: string): void {
    if (arguments.length < 2) throw new TypeError("Failed to execute 'set' on 'FormData': 2 arguments required.");
    const replacement = entry(name, value, filename, arguments.length);
    const first = this.#entries.findIndex(([key]) => key === replacement[0]);
    if (first < 0) this.#entries.push(replacement);
    else this.#entries = this.#entries.filter(([key], index) => index <= first || key !== replacement[0]).map((pair, index) => (index === first ? replacement : pair));
  }

  delete(name: string): void {
    const key = usv(name);
    this.#entries = this.#entries.filter(([n]) => n !== key);
  }

  get(name: string): FormDataEntryValue | null {
    const key = usv(name);
    const found = this.#entries.find(([n]) => n === key);
    return found === undefined ? null : found[1];
  }

  getAll(name: string): FormDataEntryValue[] {
    const key = usv(name);
    return this.#entries.filter(([n]) => n === key).map(([, value]) => value);
  }

  has(name: string): boolean {
    const key = usv(name);
    return this.#entries.some(([n]) => n === key);
  }

  forEach(callback: (value: FormDataEntryValue, name: string, form: FormData) => void, thisArg?: unknown): void {
    if (typeof callback !== 'function') throw new TypeError('FormData.forEach: callback is not a function');
    for (const [name, value] of [...this.#entries]) callback.call(thisArg, value, name, this);
  }

  *entries(): IterableIterator<[string, FormDataEntryValue]> {
    for (const [name, value] of [...this.#entries]) yield [name, value];
  }

  *keys(): IterableIterator<string> {
    for (const [name] of [...this.#entries]) yield name;
  }

  *values(): IterableIterator<FormDataEntryValue> {
    for (const [, value] of [...this.#entries]) yield value;
  }

  [Symbol.iterator](): IterableIterator<[string, FormDataEntryValue]> {
    return this.entries();
  }

  get [Symbol.toStringTag](): string {
    return 'FormData';
  }
}
