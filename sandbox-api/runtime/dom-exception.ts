// A minimal DOMException for the isolate (plain V8 has none): name, message and the legacy code.
// Not the 25 legacy code constants (INDEX_SIZE_ERR…): 12 KB of every isolate's heap, for code that
// compares `error.code` with them instead of `error.name`. Pure: built on JS built-ins only.

const LEGACY_CODES: Record<string, number> = {
  IndexSizeError: 1,
  HierarchyRequestError: 3,
  WrongDocumentError: 4,
  InvalidCharacterError: 5,
  NoModificationAllowedError: 7,
  NotFoundError: 8,
  NotSupportedError: 9,
  InvalidStateError: 11,
  SyntaxError: 12,
  InvalidModificationError: 13,
  NamespaceError: 14,
  InvalidAccessError: 15,
  TypeMismatchError: 17,
  SecurityError: 18,
  NetworkError: 19,
  AbortError: 20,
  URLMismatchError: 21,
  QuotaExceededError: 22,
  TimeoutError: 23,
  InvalidNodeTypeError: 24,
  DataCloneError: 25,
};

export class DOMException extends Error {
  /** The brand: the getters below answer only for real DOMExceptions (WebIDL). */
  #name: string;

  constructor(message: string = '', name: string = 'Error') {
    super(String(message));
    this.#name = String(name);
    Object.defineProperty(this, 'name', { value: this.#name, writable: true, configurable: true, enumerable: false });
  }

  get code(): number {
    if (!(#name in this)) throw new TypeError('Illegal invocation: not a DOMException');
    return Object.hasOwn(LEGACY_CODES, this.#name) ? LEGACY_CODES[this.#name] : 0;
  }

  get [Symbol.toStringTag](): string {
    return 'DOMException';
  }
}

// WebIDL attributes are enumerable: a record read from the prototype meets the brand check.
Object.defineProperty(DOMException.prototype, 'code', { enumerable: true });
