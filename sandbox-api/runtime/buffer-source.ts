// WebIDL BufferSource handling shared by bodies, blobs, text codecs and crypto: the bytes of an
// ArrayBuffer or a view, always copied. Pure: no globals beyond JS built-ins.

/** The chunks' bytes one after another, in a new array (the only chunk itself when there is one). */
export function concatBytes(chunks: readonly Uint8Array[]): Uint8Array {
  if (chunks.length === 1) return chunks[0];
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

/** Bytes of a view or buffer, copied so later writes by the caller do not change the result; null for anything else. */
export function copyBufferSource(value: unknown): Uint8Array | null {
  if (value instanceof ArrayBuffer) return new Uint8Array(value.slice(0));
  if (ArrayBuffer.isView(value)) return new Uint8Array(value.buffer, value.byteOffset, value.byteLength).slice();
  return null;
}
