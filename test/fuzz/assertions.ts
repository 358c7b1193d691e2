// Shared checks of the fuzz properties: well-formed JSON pointers, the host's error bodies, and
// HTTP requests with a deadline, so a hang fails the property instead of stalling the run.

import { request } from 'node:http';
import { connect } from 'node:net';
import { expect } from 'vitest';

/** RFC 6901: '' or a sequence of '/'-prefixed tokens whose '~' is always '~0' or '~1'. */
export const JSON_POINTER = /^(\/([^~/]|~[01])*)*$/;

export const REQUEST_TIMEOUT_MS = 10_000;

export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  json: any;
}

/** One request over node:http (any method, raw header values, Buffer bodies); never hangs. */
export function send(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: Uint8Array | string } = {},
): Promise<Answer> {
  const headers = { ...options.headers };
  const framed = Object.keys(headers).some((name) => /^(content-length|transfer-encoding)$/i.test(name));
  // Node frames a DELETE or OPTIONS body with neither header: the server would read it as the next request.
  if (options.body !== undefined && !framed) headers['content-length'] = String(Buffer.byteLength(options.body));
  return new Promise((resolve, reject) => {
    // agent: false, a connection per request: a refused request never poisons a kept-alive socket.
    const req = request(
      url,
      { method: options.method ?? 'GET', headers, agent: false, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', reject);
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let json: unknown;
          try {
            json = JSON.parse(text);
          } catch {
            json = undefined;
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
        });
      },
    );
    req.on('error', (error) => reject(new Error(`request ${options.method ?? 'GET'} ${url} failed: ${error.message}`)));
    req.end(options.body);
  });
}

/** True when the body is the host's own `{ error: { code, message } }`. */
export function isHostError(answer: Answer): boolean {
  return typeof answer.json?.error?.code === 'string';
}

/** The host's verdict: 2xx, or a 4xx with `{ error: { code: "ERR_…", message } }`; never 5xx. */
export function expectHostVerdict(answer: Answer): void {
  const where = `status ${answer.status}: ${answer.text.slice(0, 300)}`;
  expect(answer.status, where).toBeLessThan(500);
  if (answer.status >= 400) {
    expect(answer.json?.error?.code, where).toMatch(/^ERR_[A-Z_]+$/);
    expect(typeof answer.json?.error?.message, where).toBe('string');
  }
}

/** Writes raw bytes to the host and parses the one response it gets back; never hangs. */
export function sendRaw(port: number, bytes: Uint8Array | string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    // write, not end: Node drops in-flight requests of a client that half-closes.
    const socket = connect(port, '127.0.0.1', () => socket.write(bytes));
    socket.setTimeout(REQUEST_TIMEOUT_MS, () => socket.destroy(new Error(`no answer within ${REQUEST_TIMEOUT_MS} ms`)));
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', (error: NodeJS.ErrnoException) =>
      error.code === 'ECONNRESET' || error.code === 'EPIPE' ? undefined : reject(error),
    );
    socket.on('close', () => {
      // Interim answers (100 Continue) come first: the final response follows them.
      const raw = Buffer.concat(chunks)
        .toString('latin1')
        .replace(/^(HTTP\/1\.1 1\d\d [^\r\n]*\r\n(?:[^\r\n]+\r\n)*\r\n)+/, '');
      const status = Number(/^HTTP\/1\.1 (\d{3}) /.exec(raw)?.[1] ?? 0);
      const text = Buffer.from(raw.slice(raw.indexOf('\r\n\r\n') + 4), 'latin1').toString('utf8');
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch {
        json = undefined;
      }
      resolve({ status, headers: {}, text, json });
    });
  });
}
