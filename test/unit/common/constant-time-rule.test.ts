// The rule that secret values (tokens, tickets, states, links, signatures, nonces, CSRF tokens) are
// compared in constant time, checked on every source file of host/ instead of left to review:
// `===`/`!==`, prefix/suffix/substring tests and Map or index lookups whose operands name a
// secret must go through sameBytes (host/common/same-bytes.ts) or secretsEqual (admin-auth.ts),
// except the reviewed cases below, each with why it is not a comparison of a secret.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { argumentsAfter, codeOnly, lineOf, operandAfter, operandBefore } from '../../helpers/source-scan.ts';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** Words that make an operand a secret (identifiers are split at camelCase and `_`). */
const SECRET_WORDS = new Set([
  'token',
  'tokens',
  'secret',
  'secrets',
  'signature',
  'signatures',
  'sig',
  'sign',
  'state',
  'ticket',
  'tickets',
  'link',
  'nonce',
  'csrf',
  'hmac',
  'mac',
  'digest',
  'binding',
  'password',
  'credential',
  'credentials',
  'expected',
  'given',
  'presented',
]);

/**
 * Reviewed matches: `file: the match as reported` → why it is not a secret compared in variable time.
 * A new match fails the suite until it is rewritten with the helper or reviewed and added here.
 */
const ALLOWED = new Map<string, string>([
  ['host/cli/scaffold.ts: values.get(token)', 'a template placeholder ({{name}}) of the scaffold, not a credential'],
  [
    "host/contentkit/describe-errors.ts: (node as Record<string, unknown>)[token.replaceAll(' ', ' " +
      "').replaceAll(' ', ' ')]",
    'a JSON pointer token walking a document the host validated',
  ],
  [
    'host/manifest/load.ts: Object.values(secrets.variables).includes(name)',
    'environment variable names a manifest reads, never their values',
  ],
  [
    'host/oauth-seal/sealed-states.ts: options.store.get(nonce)',
    'the nonce was authenticated by its HMAC (sameBytes) just before: a lookup of a verified, public-by-then value',
  ],
  [
    'host/store/sqlite/sealed-oauth-states.ts: statements.get.get(nonce)',
    'the store side of the lookup above (nonce already verified)',
  ],
  [
    'host/sandbox/isolate.ts: this.startingRealm === realmState',
    'identity of an in-process realm object, not a secret',
  ],
  [
    'host/store/installation-cache.ts: owners.get(tokenHash)',
    'keyed by the sha256 of the token: the timing says nothing about the token itself',
  ],
  [
    'host/store/sqlite/installations.ts: statements.tokenOwner.get(tokenHash)',
    'the store lookup by the sha256 of the token (as above)',
  ],
]);

/** The only files that may call timingSafeEqual themselves: the two helpers. */
const TIMING_SAFE_FILES = new Set(['host/common/same-bytes.ts', 'host/server/admin-auth.ts']);

function sourceFiles(dir: string): string[] {
  const found: string[] = [];
  for (const name of readdirSync(join(ROOT, dir))) {
    const path = join(dir, name);
    if (statSync(join(ROOT, path)).isDirectory()) found.push(...sourceFiles(path));
    else if (/\.tsx?$/.test(name) && !name.endsWith('.d.ts')) found.push(path);
  }
  return found;
}

function wordsOf(operand: string): string[] {
  const identifiers = operand.match(/[A-Za-z_$][\w$]*/g) ?? [];
  return identifiers.flatMap((identifier) =>
    identifier
      .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
      .toLowerCase()
      .split(/[\s_$]+/),
  );
}

const namesSecret = (operand: string): boolean => wordsOf(operand).some((word) => SECRET_WORDS.has(word));

/** A constant the comparison is with: then it tests a shape or presence, not a secret's value. */
function isConstant(operand: string): boolean {
  const text = operand.trim();
  // Literal text is blanked by codeOnly: a string is its quotes around spaces.
  return (
    /^(['"`])\s*\1$/.test(text) ||
    /^(undefined|null|true|false|-?\d[\d_.e]*n?)$/.test(text) ||
    text.startsWith('typeof ') ||
    /^[A-Z][A-Z0-9_]*$/.test(text)
  );
}

interface Match {
  file: string;
  line: number;
  text: string;
}

/** Every variable-time comparison or lookup in `code` that names a secret. */
function findSecretComparisons(file: string, source: string): Match[] {
  const code = codeOnly(source);
  const matches: Match[] = [];
  const add = (offset: number, text: string) =>
    matches.push({ file, line: lineOf(code, offset), text: text.replace(/\s+/g, ' ') });
  for (const found of code.matchAll(/[!=]==?/g)) {
    const at = found.index;
    // `=>`, `<=`, `>=` and assignments are not equality operators.
    if (
      found[0] === '=' ||
      (found[0] === '==' && (code[at - 1] === '=' || code[at - 1] === '!' || code[at + 2] === '='))
    )
      continue;
    if (found[0] === '!=' && code[at + 2] === '=') continue;
    if ('<>'.includes(code[at - 1])) continue;
    const left = operandBefore(code, at);
    const right = operandAfter(code, at + found[0].length);
    if (left === '' || right === '' || isConstant(left) || isConstant(right)) continue;
    if (namesSecret(left) || namesSecret(right)) add(at, `${left} ${found[0]} ${right}`);
  }
  for (const found of code.matchAll(
    /\.(startsWith|endsWith|includes|indexOf|lastIndexOf|localeCompare|equals|compare)\(/g,
  )) {
    const at = found.index;
    const receiver = operandBefore(code, at);
    const argument = argumentsAfter(code, at + found[0].length);
    if (isConstant(argument)) continue;
    if (namesSecret(receiver) || namesSecret(argument)) add(at, `${receiver}.${found[1]}(${argument})`);
  }
  for (const found of code.matchAll(/\.(get|has)\(/g)) {
    const at = found.index;
    const argument = operandAfter(code, at + found[0].length);
    if (!isConstant(argument) && namesSecret(argument)) add(at, `${operandBefore(code, at)}.${found[1]}(${argument})`);
  }
  for (const found of code.matchAll(/[\w$)\]]\[/g)) {
    const at = found.index + 1;
    const key = operandAfter(code, at + 1);
    if (!isConstant(key) && namesSecret(key) && !/^\d/.test(key)) add(at, `${operandBefore(code, at)}[${key}]`);
  }
  return matches;
}

const FILES = sourceFiles('host');
const MATCHES = FILES.flatMap((file) => findSecretComparisons(file, readFileSync(join(ROOT, file), 'utf8')));
const keyOf = (match: Match) => `${match.file}: ${match.text}`;

describe('secret values in host/', () => {
  it('are compared in constant time, or the comparison was reviewed', () => {
    const unreviewed = MATCHES.filter((match) => !ALLOWED.has(keyOf(match))).map(
      (match) => `${match.file}:${match.line}: ${match.text}`,
    );
    expect(
      unreviewed,
      'compare secrets with sameBytes (host/common/same-bytes.ts), or review the match and add it to ALLOWED with why',
    ).toEqual([]);
  });

  it('leave no reviewed entry that matches nothing any more', () => {
    const current = new Set(MATCHES.map(keyOf));
    expect([...ALLOWED.keys()].filter((key) => !current.has(key))).toEqual([]);
  });

  it('reach timingSafeEqual only through the two helpers', () => {
    const callers = FILES.filter((file) =>
      /timingSafeEqual\s*\(/.test(codeOnly(readFileSync(join(ROOT, file), 'utf8'))),
    );
    expect(callers.filter((file) => !TIMING_SAFE_FILES.has(file))).toEqual([]);
  });
});

describe('the rule itself', () => {
  const found = (source: string) => findSecretComparisons('x.ts', source).map((match) => match.text);

  it.each([
    ['if (signature !== sign(secret, payload)) throw refused();', 'signature !== sign(secret, payload)'],
    ['return expected.toString() === given.toString();', 'expected.toString() === given.toString()'],
    ['const ok = link.startsWith(input.installLink);', 'link.startsWith(input.installLink)'],
    ['if (!installLink.endsWith(presented)) return;', '!installLink.endsWith(presented)'],
    ['const session = byToken.get(token);', 'byToken.get(token)'],
    ['return expected.equals(given);', 'expected.equals(given)'],
    ['if (Buffer.compare(signature, mac) !== 0) return;', 'Buffer.compare(signature, mac)'],
    ['const owner = owners[apiToken];', 'owners[apiToken]'],
    ['rows.find((row) => row.ticket == ticket);', 'row.ticket == ticket'],
  ])('finds %s', (source, text) => {
    expect(found(source)).toEqual([text]);
  });

  it.each([
    "if (token === undefined || token === '') return;",
    "if (typeof ticket !== 'string') return;",
    'if (state.length !== 2) return;',
    "const prefixed = token.startsWith('iht_');",
    'if (!sameBytes(expected, given)) throw refused();',
    '// comparing token === other in a comment\nconst a = 1;',
    'const message = `token === ${1}`;',
    "const re = /token === x/; const s = 'signature !== y';",
    'if (payload.slice(0, dot) !== installationId) throw refused();',
  ])('leaves %s alone', (source) => {
    expect(found(source)).toEqual([]);
  });
});
