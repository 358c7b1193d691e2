// WebIDL BufferSource handling shared by bodies, blobs, text codecs and crypto: the bytes of an
// ArrayBuffer or a view, always copied. Pure: no globals beyond JS built-ins.

/** Bytes of a view or buffer, copied so later writes by the caller do not change the result; null for anything else. */
export function copyBufferSource(value: unknown): Uint8Array | null {
  if (value instanceof ArrayBuffer) return new Uint8Array(value.slice(0));
  if (ArrayBuffer.isView(value)) return new Uint8Array(value.buffer, value.byteOffset, value.byteLength).slice();
  return null;
}
