// Bounds on how deeply nested a JSON document from outside may be. Validators, serializers and the
// isolate copy recurse once per level, so a 100,000-deep array would overflow the stack: depth is
// measured without recursion (on the text before parsing, or on a parsed value) and refused early.

/** Deepest nesting of objects and arrays the host accepts from a client or an integration. */
export const MAX_JSON_DEPTH = 128;

/** Whether JSON text nests objects/arrays deeper than `max`, scanned without parsing (strings skipped). */
export function jsonTextTooDeep(text: string, max = MAX_JSON_DEPTH): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const char = text.charCodeAt(i);
    if (inString) {
      if (char === 0x5c)
        i++; // backslash: skip the escaped character
      else if (char === 0x22) inString = false;
    } else if (char === 0x22) inString = true;
    else if (char === 0x7b || char === 0x5b) {
      if (++depth > max) return true;
    } else if (char === 0x7d || char === 0x5d) depth--;
  }
  return false;
}

/** Whether a parsed value (e.g. from YAML) nests objects/arrays deeper than `max`; iterative. */
export function valueTooDeep(value: unknown, max = MAX_JSON_DEPTH): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  const seen = new Set<object>();
  while (stack.length > 0) {
    const [current, depth] = stack.pop()!;
    if (current === null || typeof current !== 'object' || seen.has(current)) continue;
    if (depth + 1 > max) return true;
    seen.add(current);
    for (const child of Object.values(current)) stack.push([child, depth + 1]);
  }
  return false;
}

export function tooDeepMessage(max = MAX_JSON_DEPTH): string {
  return `nests objects and arrays deeper than ${max} levels`;
}
