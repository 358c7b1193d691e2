// Masks an integration's secret values in text it writes to logs (the event log, the host log):
// an integration that prints a credential by mistake does not leave it there. Pure. Values shorter
// than MIN_MASKED_LENGTH are not masked: masking "1" or "on" would garble every line.

export const MIN_MASKED_LENGTH = 4;
export const MASK = '***';

/** A function replacing every occurrence of any of `values` (and of each line of a multi-line one) with `***`. */
export function secretMasker(values: Iterable<string>): (text: string) => string {
  const needles = new Set<string>();
  for (const value of values) {
    needles.add(value);
    // A PEM key printed line by line must not survive line by line either.
    if (value.includes('\n')) for (const line of value.split(/\r?\n/)) needles.add(line.trim());
  }
  // Longest first: a value containing another is masked whole, not left half-masked.
  const ordered = [...needles]
    .filter((needle) => needle.length >= MIN_MASKED_LENGTH)
    .sort((a, b) => b.length - a.length);
  if (ordered.length === 0) return (text) => text;
  return (text) => {
    let masked = text;
    for (const needle of ordered) if (masked.includes(needle)) masked = masked.replaceAll(needle, MASK);
    return masked;
  };
}
