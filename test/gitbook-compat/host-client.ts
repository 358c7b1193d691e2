// The exercise's HTTP client for the host: admin calls with the token, anonymous calls to public
// endpoints (redirects not followed), each answer turned into a Step (evidence.ts) that says whether
// the host itself answered with an ERR_* code.

import { hostErrorCode, type Step } from './evidence.ts';

export interface Answer {
  status: number;
  /** The JSON body, or undefined when the body is not JSON. */
  json: unknown;
  text: string;
  headers: Headers;
}

export interface HostClient {
  url: string;
  admin(method: string, path: string, body?: unknown): Promise<Answer>;
  /** A request as a browser or a third party sends it: no token, redirects left to the caller. */
  open(
    method: string,
    url: string,
    init?: { body?: string | FormData; headers?: Record<string, string> },
  ): Promise<Answer>;
}

async function answerOf(response: Response): Promise<Answer> {
  const text = await response.text();
  let json: unknown;
  try {
    json = text === '' ? undefined : JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, json, text, headers: response.headers };
}

export function hostClient(url: string, adminToken: string): HostClient {
  return {
    url,
    async admin(method, path, body) {
      const headers: Record<string, string> = { authorization: `Bearer ${adminToken}` };
      if (body !== undefined && !(body instanceof FormData)) headers['content-type'] = 'application/json';
      const payload = body === undefined ? undefined : body instanceof FormData ? body : JSON.stringify(body);
      return answerOf(await fetch(`${url}${path}`, { method, headers, body: payload, redirect: 'manual' }));
    },
    async open(method, target, init = {}) {
      return answerOf(
        await fetch(target, {
          method,
          redirect: 'manual',
          ...(init.headers ? { headers: init.headers } : {}),
          ...(init.body !== undefined ? { body: init.body } : {}),
        }),
      );
    },
  };
}

/** The step an answer makes: the host's ERR_* code when the host answered, else the status (and text of a 5xx). */
export function stepOf(what: string, answer: Answer): Step {
  const error = hostErrorCode(answer.json);
  if (error !== undefined) return { what, status: answer.status, code: error.code, message: error.message };
  if (answer.status >= 500) return { what, status: answer.status, message: answer.text.slice(0, 160) };
  return { what, status: answer.status };
}
