// The arguments of a SubtleCrypto call turned into copies the bridge can carry (part of the
// webcrypto module): BufferSources copied at the call, as the standard says, a CryptoKey replaced by
// its handle, dictionaries reduced to the members WebCrypto defines. It validates no more than
// WebIDL needs to make a copy: the host's WebCrypto normalizes and rejects; this never decides
// what an algorithm allows, and never lets a guest's value pass as a handle.
import { copyBufferSource } from '../buffer-source.ts';
import { SUBTLE_ALGORITHM_MEMBERS, SUBTLE_LIMITS, SUBTLE_SIGNATURES, type SubtleOperation } from '../contract.ts';
// DOMException is the runtime's (a name of the module's scope, MODULE_SCOPE_NAMES), never imported:
// an import would bundle a second class of that name into the module.

const JWK_STRINGS = ['kty', 'use', 'alg', 'crv', 'x', 'y', 'd', 'n', 'e', 'p', 'q', 'dp', 'dq', 'qi', 'k'];
const MAX_LIST = 16;
const MAX_ITEMS = 1_024;

type Budget = { left: number };

const isObject = (value: unknown): value is Record<string, unknown> =>
  (typeof value === 'object' && value !== null) || typeof value === 'function';

function spend(budget: Budget, amount: number): void {
  budget.left -= amount;
  if (budget.left < 0)
    throw new DOMException(
      `the arguments of one crypto.subtle call may hold at most ${SUBTLE_LIMITS.inputBytes} bytes in this runtime`,
      'QuotaExceededError',
    );
}

/** WebIDL's DOMString conversion (a symbol throws a TypeError). */
function text(value: unknown, budget: Budget): string {
  const converted = `${value as string}`;
  spend(budget, converted.length);
  return converted;
}

/** A number member: primitives go as they are (the host converts them); objects through ToNumber here. */
function numeric(value: unknown): unknown {
  if (typeof value === 'symbol' || typeof value === 'bigint')
    throw new TypeError('Cannot convert this value to a number');
  return isObject(value) ? +(value as unknown as number) : value;
}

/** A BufferSource, copied now; anything else goes on as a value the host's WebCrypto refuses. */
function bytes(value: unknown, budget: Budget): unknown {
  const copy = copyBufferSource(value);
  if (copy !== null) {
    spend(budget, copy.byteLength);
    return copy;
  }
  if (typeof value === 'symbol' || typeof value === 'bigint' || isObject(value)) return null;
  return value;
}

/** A sequence of strings (usages, key_ops), as WebIDL iterates it; duplicates dropped. */
function strings(value: unknown, budget: Budget, what: string): string[] {
  if (!isObject(value) || typeof (value as { [Symbol.iterator]?: unknown })[Symbol.iterator] !== 'function') {
    throw new TypeError(`${what} is not a sequence`);
  }
  const seen = new Set<string>();
  let count = 0;
  for (const item of value as unknown as Iterable<unknown>) {
    // An endless iterator ends here, not in a hung isolate.
    if (++count > MAX_ITEMS) throw new TypeError(`${what} holds more than ${MAX_ITEMS} values`);
    seen.add(text(item, budget));
    if (seen.size > MAX_LIST) throw new TypeError(`${what} holds more than ${MAX_LIST} different values`);
  }
  return [...seen];
}

/** An AlgorithmIdentifier; a `hash` member is one too, normalized as a digest, whose only member is its name. */
function algorithm(value: unknown, budget: Budget, handleOf: (key: unknown) => number | undefined, depth = 0): unknown {
  if (!isObject(value)) return text(value, budget);
  if (depth > 0) return value.name === undefined ? {} : { name: text(value.name, budget) };
  const copy: Record<string, unknown> = {};
  for (const [member, kind] of SUBTLE_ALGORITHM_MEMBERS) {
    const item = value[member];
    if (item === undefined) continue;
    if (kind === 'string') copy[member] = text(item, budget);
    else if (kind === 'number') copy[member] = numeric(item);
    else if (kind === 'bytes') copy[member] = bytes(item, budget);
    else if (kind === 'key') copy[member] = handleOf(item) ?? null;
    else copy[member] = algorithm(item, budget, handleOf, 1);
  }
  return copy;
}

function jwk(value: Record<string, unknown>, budget: Budget): Record<string, unknown> {
  const copy: Record<string, unknown> = {};
  for (const member of JWK_STRINGS) {
    const item = value[member];
    if (item !== undefined) copy[member] = text(item, budget);
  }
  if (value.ext !== undefined) copy.ext = Boolean(value.ext);
  if (value.key_ops !== undefined) copy.key_ops = strings(value.key_ops, budget, 'key_ops');
  if (value.oth !== undefined) {
    if (!isObject(value.oth) || typeof (value.oth as { [Symbol.iterator]?: unknown })[Symbol.iterator] !== 'function')
      throw new TypeError('oth is not a sequence');
    const primes: Record<string, string>[] = [];
    for (const prime of value.oth as unknown as Iterable<unknown>) {
      if (primes.length >= MAX_LIST) throw new TypeError(`oth holds more than ${MAX_LIST} entries`);
      const entry: Record<string, string> = {};
      if (isObject(prime))
        for (const member of ['r', 'd', 't'])
          if (prime[member] !== undefined) entry[member] = text(prime[member], budget);
      primes.push(entry);
    }
    copy.oth = primes;
  }
  return copy;
}

/**
 * The call's arguments as copies, as many as were given (up to the method's own count, so the
 * host's WebCrypto sees a missing argument as missing). `handleOf` is the key's handle for a
 * runtime CryptoKey and undefined for anything else, which then crosses as null.
 */
export function convertArguments(
  operation: SubtleOperation,
  given: ArrayLike<unknown>,
  handleOf: (key: unknown) => number | undefined,
): unknown[] {
  const kinds = SUBTLE_SIGNATURES[operation];
  const budget: Budget = { left: SUBTLE_LIMITS.inputBytes };
  const count = Math.min(given.length, kinds.length);
  const args: unknown[] = [];
  for (let index = 0; index < count; index++) {
    const value = given[index];
    const kind = kinds[index];
    if (kind === 'algorithm') args.push(algorithm(value, budget, handleOf));
    else if (kind === 'key') args.push(handleOf(value) ?? null);
    else if (kind === 'bytes') args.push(bytes(value, budget));
    else if (kind === 'boolean') args.push(Boolean(value));
    else if (kind === 'usages') args.push(strings(value, budget, 'keyUsages'));
    else if (kind === 'format') args.push(text(value, budget));
    else if (kind === 'length') args.push(value === null || value === undefined ? value : numeric(value));
    else {
      const copy = copyBufferSource(value);
      if (copy !== null) spend(budget, copy.byteLength);
      args.push(
        copy ??
          (isObject(value)
            ? jwk(value, budget)
            : typeof value === 'symbol' || typeof value === 'bigint'
              ? null
              : value),
      );
    }
  }
  return args;
}
