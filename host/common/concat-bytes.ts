// Joins chunks of bytes into one new Uint8Array of its own memory (never a slice of Node's Buffer
// pool, whose neighbouring bytes belong to others). Pure.

export function concatBytes(chunks: readonly Uint8Array[]): Uint8Array {
  let length = 0;
  for (const chunk of chunks) length += chunk.byteLength;
  const all = new Uint8Array(length);
  let offset = 0;
  for (const chunk of chunks) {
    all.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return all;
}
