// One webhook delivery attempt: POST the stored JSON body, freshly signed, to the configured URL
// through the same egress policy as guest fetch (checked again at connect time, socket pinned).
// Never follows redirects, never throws, never retries: the result is data for the dispatcher.

import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { performance } from 'node:perf_hooks';
import type { EgressPolicy } from '../bridge/egress-policy.ts';
import { EgressRefusal, checkedLookupFor } from '../bridge/egress-connect.ts';
import { SIGNATURE_HEADER, signatureHeader } from './sign.ts';
import type { AttemptErrorKind } from './schedule.ts';

export const DEFAULT_ATTEMPT_TIMEOUT_MS = 10_000;
const DEFAULT_USER_AGENT = 'integration-host-webhooks/0.1';
/** A receiver's answer body is drained and discarded; past this many bytes the socket is dropped. */
const MAX_DRAINED_BYTES = 64 * 1024;

export interface AttemptRequest {
  url: string;
  body: string;
  /** Active signing secrets, current first; each adds one `v1=`. */
  secrets: readonly string[];
}

export interface DeliverOptions {
  policy: EgressPolicy;
  timeoutMs?: number;
  userAgent?: string;
  /** DNS lookup at connect time; injectable for tests. */
  lookup?: LookupFunction;
  /** Wall clock for the signature's `t`. */
  nowMs?: () => number;
  /** Keep-alive agents (createDeliveryAgents); without them every attempt opens a new connection. */
  agents?: DeliveryAgents;
}

export interface DeliveryAgents {
  http: http.Agent;
  https: https.Agent;
  destroy(): void;
}

/**
 * Reusing connections triples loopback throughput and saves a TLS handshake per attempt. It does not
 * weaken the egress check: a socket is only ever opened through the pinned, checked lookup.
 */
export function createDeliveryAgents(maxSocketsPerOrigin: number, idleMs = 4_000): DeliveryAgents {
  const options = {
    keepAlive: true,
    maxSockets: maxSocketsPerOrigin,
    maxFreeSockets: maxSocketsPerOrigin,
    timeout: idleMs,
  };
  const agents = { http: new http.Agent(options), https: new https.Agent(options) };
  return { ...agents, destroy: () => (agents.http.destroy(), agents.https.destroy()) };
}

export type AttemptResult = ({ status: number } | { error: AttemptErrorKind; message: string }) & {
  durationMs: number;
};
export type DeliverFn = (request: AttemptRequest) => Promise<AttemptResult>;

/** Maps a Node network error to the retry classes of schedule.ts; the message never carries a stack. */
function describeAttemptError(error: unknown): { error: AttemptErrorKind; message: string } {
  const message = (error instanceof Error ? error.message : String(error)).split('\n')[0];
  if (error instanceof EgressRefusal) return { error: 'blocked', message };
  const code = (error as { code?: string }).code ?? '';
  const labelled = code ? `${code}: ${message}` : message;
  if (code === 'ECONNREFUSED') return { error: 'refused', message: labelled };
  if (code === 'ECONNRESET' || code === 'EPIPE') return { error: 'reset', message: labelled };
  if (code === 'ENOTFOUND' || code.startsWith('EAI_')) return { error: 'dns', message: labelled };
  if (code === 'ETIMEDOUT') return { error: 'timeout', message: labelled };
  return { error: 'network', message: labelled };
}

export function deliverAttempt(request: AttemptRequest, options: DeliverOptions): Promise<AttemptResult> {
  const startedAt = performance.now();
  const timeoutMs = options.timeoutMs ?? DEFAULT_ATTEMPT_TIMEOUT_MS;
  const elapsed = (): number => Math.round(performance.now() - startedAt);
  let url: URL;
  try {
    url = new URL(request.url);
  } catch {
    return Promise.resolve({ error: 'blocked', message: 'invalid URL', durationMs: 0 });
  }
  if (request.secrets.length === 0)
    return Promise.resolve({ error: 'unsigned', message: 'the installation has no signing secret', durationMs: 0 });
  const timestampSeconds = Math.floor((options.nowMs ?? Date.now)() / 1000);
  const headers = {
    'content-type': 'application/json',
    'content-length': String(Buffer.byteLength(request.body)),
    'user-agent': options.userAgent ?? DEFAULT_USER_AGENT,
    [SIGNATURE_HEADER.toLowerCase()]: signatureHeader(request.secrets, request.body, timestampSeconds),
  };

  return new Promise((resolve) => {
    let settled = false;
    let outgoing: http.ClientRequest | undefined;
    const finish = (result: { status: number } | { error: AttemptErrorKind; message: string }): void => {
      if (settled) return;
      settled = true;
      resolve({ ...result, durationMs: elapsed() });
    };
    // One deadline for DNS, connect, headers and the drained body; a late body only loses its socket.
    const timer = setTimeout(() => {
      finish({ error: 'timeout', message: `no response within ${timeoutMs} ms` });
      outgoing?.destroy();
    }, timeoutMs);
    checkedLookupFor(url, options.policy, { lookup: options.lookup }).then(
      (lookup) => {
        if (settled) return;
        const secure = url.protocol === 'https:';
        const agent = options.agents ? (secure ? options.agents.https : options.agents.http) : false;
        outgoing = (secure ? https : http).request(url, { method: 'POST', headers, lookup, agent });
        outgoing.on('error', (error) => {
          clearTimeout(timer);
          finish(describeAttemptError(error));
        });
        outgoing.on('response', (response) => {
          finish({ status: response.statusCode ?? 0 });
          let drained = 0;
          response.on('data', (chunk: Buffer) => {
            drained += chunk.length;
            if (drained > MAX_DRAINED_BYTES) response.destroy();
          });
          // Once the answer is fully read the socket may go back to the pool: the deadline must not touch it.
          for (const event of ['end', 'close', 'error']) response.on(event, () => clearTimeout(timer));
        });
        outgoing.end(request.body);
      },
      (error: unknown) => {
        clearTimeout(timer);
        finish(describeAttemptError(error));
      },
    );
  });
}
