// One-time values handed from one view to the next in memory (never in the URL or storage): the
// signing secret a webhook installation returns once.
const values = new Map<string, string>();

export function putFlash(key: string, value: string): void {
  values.set(key, value);
}

export function takeFlash(key: string): string | undefined {
  const value = values.get(key);
  values.delete(key);
  return value;
}
