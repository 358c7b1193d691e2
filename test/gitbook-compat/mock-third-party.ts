// The third parties GitBook's integrations call, played on one loopback address: HTTPS (a leaf per
// server name, from certificates.ts) and plain HTTP answering plausible JSON, an OAuth provider's
// authorize redirect and token answer. It records who was asked what; it never forwards anything.

import http from 'node:http';
import https from 'node:https';
import { isIP, type AddressInfo } from 'node:net';
import { createSecureContext, type SecureContext } from 'node:tls';
import { createCertificates, type Certificates } from './certificates.ts';

export interface MockRequest {
  scheme: 'https' | 'http';
  host: string;
  method: string;
  path: string;
  /** What the runner was exercising when the request came (see `label`). */
  label: string;
}

export interface MockThirdParty {
  address: string;
  httpsPort: number;
  httpPort: number;
  /** The CA the host's sandbox workers must trust (NODE_EXTRA_CA_CERTS). */
  caFile: string;
  /** `https://<host>` with the port when it is not 443: the origin a placeholder URL for `host` gets. */
  originFor(host: string): string;
  requests: MockRequest[];
  /** Set by the runner to the integration being exercised; recorded with each request. */
  label: string;
  /** Sends a browser's GET to a third-party URL, to this mock whatever the name resolves to elsewhere. */
  visit(url: string): Promise<{ status: number; location: string | null }>;
  close(): Promise<void>;
}

export interface MockOptions {
  /** A loopback address (127.0.0.0/8) to listen on. */
  address: string;
  /** 443 and 80 for integrations whose URLs carry no port (binding them needs privileges); 0 picks free ones. */
  httpsPort: number;
  httpPort: number;
}

const MAX_BODY = 1 << 20;

function readBody(request: http.IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY) chunks.push(chunk);
    });
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', () => resolve(''));
  });
}

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

const json = (value: unknown): Answer => ({
  status: 200,
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(value),
});

/**
 * Who the token or answer is about, under the names providers use for it, so an integration reading one finds an
 * object.
 */
const PARTIES = Object.fromEntries(
  ['team', 'user', 'authed_user', 'owner', 'account', 'workspace', 'organization', 'guild'].map((name) => [
    name,
    { id: `mock-${name}`, name: 'Placeholder' },
  ]),
);

/** What a third party plausibly answers: pure, so the test can check it without a server. */
export function mockAnswer(method: string, host: string, target: string, body: string, sequence: number): Answer {
  const url = new URL(target, `https://${host}`);
  const query = url.searchParams;
  const redirect = query.get('redirect_uri');
  if (
    method === 'GET' &&
    redirect !== null &&
    (query.has('state') || query.has('client_id') || query.get('response_type') === 'code')
  ) {
    // The user approves at once: back to the integration with a code and its own state.
    let back: URL;
    try {
      back = new URL(redirect);
    } catch {
      return {
        status: 400,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ error: 'invalid redirect_uri' }),
      };
    }
    back.searchParams.set('code', `mock-code-${sequence}`);
    const state = query.get('state');
    if (state !== null) back.searchParams.set('state', state);
    return { status: 302, headers: { location: back.toString() }, body: '' };
  }
  if (/(^|[&"{\s])grant_type["=:]/.test(body) || /\/(oauth2?\/)?(access_)?token$/.test(url.pathname)) {
    return json({
      ok: true,
      access_token: `mock-access-token-${sequence}`,
      token_type: 'bearer',
      refresh_token: `mock-refresh-token-${sequence}`,
      expires_in: 3600,
      scope: '',
      ...PARTIES,
    });
  }
  if (method === 'GET' && /\.m?js$/.test(url.pathname))
    return {
      status: 200,
      headers: { 'content-type': 'application/javascript' },
      body: '/* loopback third-party script */',
    };
  return json({
    ok: true,
    id: 'mock-1',
    name: 'Placeholder',
    title: 'Placeholder',
    login: 'placeholder',
    email: 'placeholder@mock.test',
    url: `https://${host}/placeholder`,
    width: 640,
    height: 360,
    content: btoa('placeholder\n'),
    encoding: 'base64',
    total_count: 0,
    data: [],
    items: [],
    results: [],
    values: [],
    installations: [],
    ...PARTIES,
  });
}

export async function startMockThirdParty(options: MockOptions): Promise<MockThirdParty> {
  const certificates: Certificates = await createCertificates();
  const contexts = new Map<string, Promise<SecureContext>>();
  const contextFor = (name: string): Promise<SecureContext> => {
    const known = contexts.get(name);
    if (known) return known;
    const made = certificates.leafFor(name).then((cert) => createSecureContext({ key: certificates.key, cert }));
    contexts.set(name, made);
    return made;
  };
  const requests: MockRequest[] = [];
  let sequence = 0;
  const mock = { label: '' } as MockThirdParty;
  const handle = (scheme: 'https' | 'http') => async (request: http.IncomingMessage, response: http.ServerResponse) => {
    const host = (request.headers.host ?? options.address).replace(/:\d+$/, '');
    const path = request.url ?? '/';
    requests.push({ scheme, host, method: request.method ?? 'GET', path, label: mock.label });
    const answer = mockAnswer(request.method ?? 'GET', host, path, await readBody(request), ++sequence);
    response.writeHead(answer.status, answer.headers).end(answer.body);
  };
  const secure = https.createServer(
    {
      key: certificates.key,
      cert: await certificates.leafFor(options.address),
      SNICallback: (name, done) =>
        contextFor(name).then(
          (context) => done(null, context),
          (error: Error) => done(error),
        ),
    },
    handle('https'),
  );
  const plain = http.createServer(handle('http'));
  const listen = (server: http.Server, port: number) =>
    new Promise<number>((resolve, reject) => {
      server.once('error', (error: NodeJS.ErrnoException) =>
        reject(
          error.code === 'EACCES'
            ? new Error(
                `listening on ${options.address}:${port} needs privileges (root, CAP_NET_BIND_SERVICE, or ` +
                  `net.ipv4.ip_unprivileged_port_start=0)`,
              )
            : error,
        ),
      );
      server.listen(port, options.address, () => resolve((server.address() as AddressInfo).port));
    });
  let httpsPort: number;
  let httpPort: number;
  try {
    httpsPort = await listen(secure, options.httpsPort);
    httpPort = await listen(plain, options.httpPort);
  } catch (error) {
    secure.close();
    certificates.close();
    throw error;
  }
  return Object.assign(mock, {
    address: options.address,
    httpsPort,
    httpPort,
    caFile: certificates.caFile,
    requests,
    originFor: (host: string) => `https://${host}${httpsPort === 443 ? '' : `:${httpsPort}`}`,
    visit(target: string) {
      const url = new URL(target);
      const transport = url.protocol === 'http:' ? http : https;
      const port = url.protocol === 'http:' ? httpPort : httpsPort;
      return new Promise<{ status: number; location: string | null }>((resolve, reject) => {
        const outgoing = transport.request(
          {
            host: options.address,
            port,
            path: `${url.pathname}${url.search}`,
            method: 'GET',
            headers: { host: url.host },
            ...(isIP(url.hostname) === 0 ? { servername: url.hostname } : {}),
            ca: certificates.caPem,
          },
          (response) => {
            response.resume();
            resolve({ status: response.statusCode ?? 0, location: response.headers.location ?? null });
          },
        );
        outgoing.on('error', reject);
        outgoing.end();
      });
    },
    async close() {
      const closed = Promise.all([secure, plain].map((server) => new Promise((resolve) => server.close(resolve))));
      secure.closeAllConnections();
      plain.closeAllConnections();
      await closed;
      certificates.close();
    },
  });
}
