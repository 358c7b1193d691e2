// Builds multipart/form-data bodies by hand, so tests can send malformed ones on purpose.

export interface RawPart {
  name?: string;
  filename?: string;
  contentType?: string;
  body: string | Uint8Array;
}

export const BOUNDARY = '----test-boundary-7MA4YWxkTrZu0gW';

export function multipartBody(parts: RawPart[], boundary = BOUNDARY, { close = true } = {}): Buffer {
  const chunks: Buffer[] = [];
  for (const part of parts) {
    let disposition = 'Content-Disposition: form-data';
    if (part.name !== undefined) disposition += `; name="${part.name}"`;
    if (part.filename !== undefined) disposition += `; filename="${part.filename}"`;
    let head = `--${boundary}\r\n${disposition}\r\n`;
    if (part.contentType) head += `Content-Type: ${part.contentType}\r\n`;
    chunks.push(Buffer.from(`${head}\r\n`), Buffer.from(part.body), Buffer.from('\r\n'));
  }
  if (close) chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return Buffer.concat(chunks);
}

export function multipartHeaders(boundary = BOUNDARY): Record<string, string> {
  return { 'content-type': `multipart/form-data; boundary=${boundary}` };
}
