// One parameter of a raw `a=b&c=d` string (a URL's query, a form body) read or rewritten without
// re-encoding the others: providers compare what they receive byte for byte, and integrations
// spell their queries on purpose (GitBook's runtime writes scopes with `%20`, never `+`). Pure.

/** One part of a pair decoded as a form is (`+` is a space); the parser runs only when there is something to decode. */
function decodePart(part: string): string {
  return /[%+]/.test(part) ? (new URLSearchParams(`n=${part}`).get('n') ?? '') : part;
}

/** The decoded name of one `name=value` pair (undefined for an empty pair). */
function pairName(pair: string): string | undefined {
  if (pair === '') return undefined;
  const equals = pair.indexOf('=');
  return decodePart(equals === -1 ? pair : pair.slice(0, equals));
}

/** Every decoded value of `name` in `raw`, in order; linear in `raw`, values decoded only for `name`. */
export function paramValues(raw: string, name: string): string[] {
  const values: string[] = [];
  for (const pair of raw.split('&')) {
    if (pairName(pair) !== name) continue;
    const equals = pair.indexOf('=');
    values.push(equals === -1 ? '' : decodePart(pair.slice(equals + 1)));
  }
  return values;
}

/**
 * `raw` with every `name` pair removed and, unless `value` is null, one `name=<value>` in the place
 * of the first (at the end when there was none). Every other pair keeps its exact spelling.
 */
export function withParam(raw: string, name: string, value: string | null): string {
  const kept: string[] = [];
  let placed = value === null;
  const replacement = value === null ? '' : `${encodeURIComponent(name)}=${encodeURIComponent(value)}`;
  for (const pair of raw.split('&')) {
    if (pair === '') continue;
    if (pairName(pair) !== name) {
      kept.push(pair);
      continue;
    }
    if (!placed) {
      kept.push(replacement);
      placed = true;
    }
  }
  if (!placed) kept.push(replacement);
  return kept.join('&');
}

/** A URL (absolute or not) cut into what precedes its query, the query (without `?`) and its fragment (with `#`). */
export interface UrlParts {
  head: string;
  query: string;
  fragment: string;
}

export function splitUrl(url: string): UrlParts {
  const hash = url.indexOf('#');
  const fragment = hash === -1 ? '' : url.slice(hash);
  const rest = hash === -1 ? url : url.slice(0, hash);
  const question = rest.indexOf('?');
  return question === -1
    ? { head: rest, query: '', fragment }
    : { head: rest.slice(0, question), query: rest.slice(question + 1), fragment };
}

export function joinUrl(parts: UrlParts): string {
  return `${parts.head}${parts.query === '' ? '' : `?${parts.query}`}${parts.fragment}`;
}

/** `url` with its `name` parameter rewritten as withParam does. */
export function urlWithParam(url: string, name: string, value: string | null): string {
  const parts = splitUrl(url);
  return joinUrl({ ...parts, query: withParam(parts.query, name, value) });
}
