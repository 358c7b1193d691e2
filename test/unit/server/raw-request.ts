// A minimal HTTP client over node:http for what fetch hides: exact request headers, chunked
// uploads, raw response headers and bodies of HEAD requests.

import { request } from 'node:http';

export interface RawResponse {
  status: number;
  statusMessage: string;
  rawHeaders: string[];
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

export function rawRequest(
  url: string,
  options: { method?: string; headers?: Record<string, string | string[]>; body?: Buffer | Buffer[] } = {},
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: options.method ?? 'GET', headers: options.headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          statusMessage: res.statusMessage ?? '',
          rawHeaders: res.rawHeaders,
          headers: res.headers,
          body: Buffer.concat(chunks),
        }),
      );
      res.on('error', reject);
    });
    // The server may answer (413) and close before the upload ends: the response still counts.
    req.on('error', reject);
    const bodies = options.body === undefined ? [] : Array.isArray(options.body) ? options.body : [options.body];
    for (const body of bodies) req.write(body);
    req.end();
  });
}
