// FormData (XHR standard): an ordered list of name → string | File entries. A Blob value becomes a
// File (named `blob` unless a filename is given), strings are USVStrings. Pure: no bridge;
// `formDataEntries`/`formDataFrom` are the runtime's internal access for bodies and parsing.
import { Blob, File } from './blob.ts';
import { defineIterable, forEachPair, pairIterators, requireArguments, toUSVString } from './webidl.ts';

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

/** The XHR standard's "create an entry". */
function entry(name: unknown, value: unknown, filename: unknown, argc: number): Entry {
  const key = toUSVString(name);
  if (value instanceof Blob) {
    const isFile = value instanceof File;
    if (isFile && argc < 3) return [key, value];
    const fileName = argc >= 3 ? toUSVString(filename) : isFile ? value.name : 'blob';
    return [
      key,
      new File([value], fileName, { type: value.type, lastModified: isFile ? value.lastModified : undefined }),
    ];
  }
  if (argc >= 3) throw new TypeError("Failed to execute 'append' on 'FormData': parameter 2 is not of type 'Blob'.");
  return [key, toUSVString(value)];
}

const iterate = pairIterators<FormData>('FormData', (form) => entriesOf(form));

// The class is a property value named as the standard spells it: the bundler renames bindings,
// never property keys, and a class takes its name, and its name in stack traces, from the key.
export const FormData = {
  FormData: class {
    #entries: Entry[] = [];

    static {
      entriesOf = (form) => form.#entries;
    }

    constructor(form: unknown = undefined) {
      if (form !== undefined)
        throw new TypeError("Failed to construct 'FormData': HTML form elements do not exist in this runtime");
    }

    append(name: string, value: string | Blob, filename: string | undefined = undefined): void {
      requireArguments(arguments.length, 2, 'FormData', 'append');
      this.#entries.push(entry(name, value, filename, arguments.length));
    }

    set(name: string, value: string | Blob, filename: string | undefined = undefined): void {
      requireArguments(arguments.length, 2, 'FormData', 'set');
      const replacement = entry(name, value, filename, arguments.length);
      const first = this.#entries.findIndex(([key]) => key === replacement[0]);
      if (first < 0) this.#entries.push(replacement);
      else
        this.#entries = this.#entries.flatMap((pair, i): Entry[] =>
          i === first ? [replacement] : pair[0] === replacement[0] ? [] : [pair],
        );
    }

    delete(name: string): void {
      requireArguments(arguments.length, 1, 'FormData', 'delete');
      const key = toUSVString(name);
      this.#entries = this.#entries.filter(([n]) => n !== key);
    }

    get(name: string): FormDataEntryValue | null {
      requireArguments(arguments.length, 1, 'FormData', 'get');
      const key = toUSVString(name);
      const found = this.#entries.find(([n]) => n === key);
      return found === undefined ? null : found[1];
    }

    getAll(name: string): FormDataEntryValue[] {
      requireArguments(arguments.length, 1, 'FormData', 'getAll');
      const key = toUSVString(name);
      return this.#entries.filter(([n]) => n === key).map(([, value]) => value);
    }

    has(name: string): boolean {
      requireArguments(arguments.length, 1, 'FormData', 'has');
      const key = toUSVString(name);
      return this.#entries.some(([n]) => n === key);
    }

    forEach(
      callback: (value: FormDataEntryValue, name: string, form: FormData) => void,
      thisArg: unknown = undefined,
    ): void {
      forEachPair(this, entriesOf, callback, thisArg, 'FormData');
    }

    entries(): IterableIterator<[string, FormDataEntryValue]> {
      return iterate(this, 'key+value') as IterableIterator<[string, FormDataEntryValue]>;
    }

    keys(): IterableIterator<string> {
      return iterate(this, 'key') as IterableIterator<string>;
    }

    values(): IterableIterator<FormDataEntryValue> {
      return iterate(this, 'value') as IterableIterator<FormDataEntryValue>;
    }

    declare [Symbol.iterator]: () => IterableIterator<[string, FormDataEntryValue]>;

    static {
      defineIterable(this.prototype, 'FormData');
    }
  },
}.FormData;
export type FormData = InstanceType<typeof FormData>;
