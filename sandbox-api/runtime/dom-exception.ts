// A minimal DOMException for the isolate (plain V8 has none): name, message, the legacy code and
// the legacy code constants (WebIDL: on the interface and its prototype). Pure: JS built-ins only.

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

/** The legacy constants (INDEX_SIZE_ERR = 1, …), read-only and enumerable as WebIDL constants are. */
const CONSTANT_NAMES = [
  'INDEX_SIZE_ERR', 'DOMSTRING_SIZE_ERR', 'HIERARCHY_REQUEST_ERR', 'WRONG_DOCUMENT_ERR', 'INVALID_CHARACTER_ERR',
  'NO_DATA_ALLOWED_ERR', 'NO_MODIFICATION_ALLOWED_ERR', 'NOT_FOUND_ERR', 'NOT_SUPPORTED_ERR', 'INUSE_ATTRIBUTE_ERR',
  'INVALID_STATE_ERR', 'SYNTAX_ERR', 'INVALID_MODIFICATION_ERR', 'NAMESPACE_ERR', 'INVALID_ACCESS_ERR', 'VALIDATION_ERR',
  'TYPE_MISMATCH_ERR', 'SECURITY_ERR', 'NETWORK_ERR', 'ABORT_ERR', 'URL_MISMATCH_ERR', 'QUOTA_EXCEEDED_ERR', 'TIMEOUT_ERR',
  'INVALID_NODE_TYPE_ERR', 'DATA_CLONE_ERR',
];
const constants: PropertyDescriptorMap = {};
CONSTANT_NAMES.forEach((name, index) => (constants[name] = { value: index + 1, enumerable: true }));
Object.defineProperties(DOMException, constants);
Object.defineProperties(DOMException.prototype, constants);
// WebIDL attributes are enumerable: a record read from the prototype meets the brand check.
Object.defineProperty(DOMException.prototype, 'code', { enumerable: true });
