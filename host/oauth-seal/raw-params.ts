// One parameter of a raw `a=b&c=d` string (a URL's query, a form body) read or rewritten without
// re-encoding the others: providers compare what they receive byte for byte, and integrations
// spell their queries on purpose (GitBook's runtime writes scopes with `%20`, never `+`). Pure.

/** The decoded name and value of one `name=value` pair, decoded as a form is (`+` is a space). */
function decodePair(pair: string): [string, string] | undefined {
  const first = new URLSearchParams(pair).entries().next();
  return first.done ? undefined : first.value;
}

/** Every decoded value of `name` in `raw`, in order. */
export function paramValues(raw: string, name: string): string[] {
  const values: string[] = [];
  for (const pair of raw.split('&')) {
    const decoded = decodePair(pair);
    if (decoded !== undefined && decoded[0] === name) values.push(decoded[1]);
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
    if (decodePair(pair)?.[0] !== name) {
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
  return question === -1 ? { head: rest, query: '', fragment } : { head: rest.slice(0, question), query: rest.slice(question + 1), fragment };
}

export function joinUrl(parts: UrlParts): string {
  return `${parts.head}${parts.query === '' ? '' : `?${parts.query}`}${parts.fragment}`;
}

/** `url` with its `name` parameter rewritten as withParam does. */
export function urlWithParam(url: string, name: string, value: string | null): string {
  const parts = splitUrl(url);
  return joinUrl({ ...parts, query: withParam(parts.query, name, value) });
}
