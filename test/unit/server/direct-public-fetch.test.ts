// The direct public path (host/server/direct-public-fetch.ts) in front of Koa must answer every
// request it takes exactly as the Koa app alone does: status, reason phrase, raw headers in order
// and case, body, the event dispatched, the access-log and error lines. Each case runs against
// both, side by side, with the same fake services and the same request ids; the cases also pin
// which requests the direct path takes and which it leaves to Koa.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createApp, type AppLimits } from '../../../host/server/app.ts';
import { createDirectPublicFetch } from '../../../host/server/direct-public-fetch.ts';
import { createPublicFetch } from '../../../host/server/public-fetch.ts';
import { HostError } from '../../../host/common/errors.ts';
import {
  createFakeServices,
  jsonResponse,
  sandboxResponse,
  type DispatchCall,
  type FakeServices,
} from './fake-services.ts';
import { rawRequest, type RawResponse } from './raw-request.ts';

const LIMITS: AppLimits = { maxPublicBodyBytes: 1024, maxEnvelopeBytes: 1024 };
const PATH = '/v1/integrations/hello/installations/inst-1';

interface Side {
  services: FakeServices;
  url: string;
  /** Requests the direct path took (always 0 for the Koa-only side). */
  taken: number;
  close(): Promise<void>;
}

const open: Side[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((side) => side.close()));
});

/** Request ids that are the same on both sides: `id-0`, `id-1`, … */
function countingIds(): () => string {
  let next = 0;
  return () => `id-${next++}`;
}

async function start(direct: boolean, respond: FakeServices['respond']): Promise<Side> {
  const services = createFakeServices();
  services.respond = respond;
  const ids = countingIds();
  const koa = createApp(services, LIMITS, {}, ids).callback();
  const front = createDirectPublicFetch(createPublicFetch(services, LIMITS.maxPublicBodyBytes), ids, services.log);
  const side = { services, url: '', taken: 0, close: async () => undefined } as Side;
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    if (direct && front(req, res)) side.taken++;
    else void koa(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  side.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  side.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  open.push(side);
  return side;
}

/** What a client and the operator see, minus the clock. */
function observed(response: RawResponse, side: Side) {
  const rawHeaders = response.rawHeaders.map((value, index) =>
    index % 2 === 1 && response.rawHeaders[index - 1].toLowerCase() === 'date' ? '<date>' : value,
  );
  return {
    status: response.status,
    statusMessage: response.statusMessage,
    rawHeaders,
    body: response.body.toString('latin1'),
    logs: side.services.logs.map(({ level, message }) => ({
      level,
      message: message.replace(/ \d+ms /, ' <ms> ').replace(/\n[\s\S]*$/, ''),
    })),
    dispatched: side.services.dispatchCalls.map((call: DispatchCall) => ({
      ...call,
      fetchBody: call.fetchBody === null ? null : Buffer.from(call.fetchBody).toString('hex'),
    })),
  };
}

type Request = Parameters<typeof rawRequest>[1] & { path: string };

/** Runs the requests in order against the Koa app alone and against the direct path in front of it. */
async function compare(respond: FakeServices['respond'], requests: Request[]) {
  const koa = await start(false, respond);
  const direct = await start(true, respond);
  for (const { path, ...rest } of requests) {
    // The same Host on both sides (it is passed on in the event).
    const init = { ...rest, headers: { host: 'host.test', ...rest.headers } };
    const fromKoa = await rawRequest(`${koa.url}${path}`, init);
    const fromDirect = await rawRequest(`${direct.url}${path}`, init);
    expect(observed(fromDirect, direct), `${init.method ?? 'GET'} ${path}`).toEqual(observed(fromKoa, koa));
  }
  return { koa: observed(await rawRequest(`${koa.url}/health`), koa), taken: direct.taken };
}

describe('the direct public path answers as the Koa app does', () => {
  it('for an integration answer with a reason, repeated headers, cookies and a body, by every method', async () => {
    const respond = () =>
      sandboxResponse(
        201,
        [
          ['content-type', 'text/plain'],
          ['x-one', 'a'],
          ['set-cookie', 'session=1; Path=/'],
          ['X-Two', 'b'],
          ['set-cookie', 'theme=dark'],
          ['x-one', 'c'],
          ['connection', 'close'],
          ['content-length', '999'],
          ['x-request-id', 'forged'],
        ],
        'hello body',
        'Made It',
      );
    const headers = { cookie: `ih_inst-1_a=1; other=2`, 'x-custom': 'v' };
    const { taken } = await compare(respond, [
      { path: `${PATH}/sub/path?a=1&b=%20x`, headers },
      {
        path: PATH,
        method: 'POST',
        headers: { 'content-type': 'application/octet-stream' },
        body: Buffer.from([0, 1, 2, 255]),
      },
      { path: PATH, method: 'PUT', body: [Buffer.from('chunk-1'), Buffer.from('chunk-2')] },
      { path: PATH, method: 'HEAD' },
      { path: PATH, method: 'OPTIONS' },
      { path: PATH, method: 'DELETE' },
      { path: PATH, method: 'PATCH', body: Buffer.from('{}') },
      { path: `${PATH}/`, headers: { authorization: 'Bearer the-callers-own-token' } },
      { path: `${PATH}//double`, headers: { 'x-multi': ['1', '2'] } },
      { path: '/v1/integrations/hello/integration/oauth?code=x', headers },
      { path: '/v1/integrations/hello/integration' },
      { path: '/v1/integrations/hello/integration/', method: 'HEAD' },
    ]);
    expect(taken).toBe(12);
  });

  it('for answers without a type, without a body, with empty statuses and unusual codes', async () => {
    for (const response of [
      sandboxResponse(200, [], 'no type'),
      sandboxResponse(200, [['content-type', 'application/json']], ''),
      sandboxResponse(
        204,
        [
          ['content-type', 'text/plain'],
          ['x-kept', '1'],
        ],
        'dropped body',
      ),
      sandboxResponse(205, [], ''),
      sandboxResponse(304, [['etag', '"x"']], 'dropped'),
      sandboxResponse(299, [['x-a', '1']], 'unknown code'),
      sandboxResponse(599, [], 'last code', 'Custom Reason'),
      sandboxResponse(302, [['location', '/elsewhere']], ''),
    ]) {
      const { taken } = await compare(() => response, [{ path: PATH }, { path: PATH, method: 'HEAD' }]);
      expect(taken).toBe(2);
    }
  });

  it('for answers the host refuses: a bad status, header, reason or body, and two content types', async () => {
    for (const response of [
      sandboxResponse(700, [], ''),
      sandboxResponse(200, [['bad header', 'x']], ''),
      sandboxResponse(200, [['x-a', 'line\nbreak']], ''),
      sandboxResponse(200, [], '', 'bad\r\nreason'),
      { status: 200, headers: [], body: 'not bytes' } as unknown as ReturnType<typeof sandboxResponse>,
      sandboxResponse(
        200,
        [
          ['content-type', 'text/plain'],
          ['content-type', 'text/html'],
        ],
        'two types',
      ),
    ]) {
      const { taken } = await compare(() => response, [{ path: PATH }, { path: PATH, method: 'HEAD' }]);
      expect(taken).toBe(2);
    }
  });

  it('for failures: dispatch errors, unknown installations and integrations, methods, body limits', async () => {
    const { taken } = await compare(
      (call) => {
        const url = (call.event.request as { url: string }).url;
        if (url.includes('timeout'))
          throw new HostError('ERR_SANDBOX_TIMEOUT', 'the integration did not answer within 10000 ms');
        if (url.includes('crash')) throw new Error('something broke inside the host');
        if (url.includes('status')) throw Object.assign(new Error('refused'), { status: 403, expose: true });
        return jsonResponse(200, { ok: true });
      },
      [
        { path: `${PATH}/timeout` },
        { path: `${PATH}/crash` },
        { path: `${PATH}/crash`, method: 'HEAD' },
        { path: `${PATH}/status` },
        { path: '/v1/integrations/hello/installations/no-such' },
        { path: '/v1/integrations/hello/installations/inst-other' },
        { path: '/v1/integrations/nobody/integration' },
        { path: PATH, method: 'TRACE' },
        { path: PATH, method: 'POST', headers: { 'content-length': '2000' }, body: Buffer.alloc(2000) },
        { path: PATH, method: 'POST', body: [Buffer.alloc(700), Buffer.alloc(700)] },
        { path: PATH },
      ],
    );
    expect(taken).toBe(11);
  });

  it('leaves to Koa what it does not take plainly: API tokens, other cases and encodings, other routes', async () => {
    const { taken } = await compare(
      () => jsonResponse(200, { ok: true }),
      [
        { path: PATH, headers: { authorization: 'Bearer iht_0123456789abcdef' } },
        { path: '/V1/integrations/hello/installations/inst-1' },
        { path: '/v1/integrations/hello/INSTALLATIONS/inst-1' },
        { path: '/v1/integrations/hello/installations/inst%2D1' },
        { path: '/v1/integrations/hel%6Co/integration' },
        { path: '/v1/integrations/hello/installations' },
        { path: '/v1/integrations/hello/integrationx' },
        { path: '/v1/integrations/hello/installations/' },
        { path: '/v1/integrations//integration' },
        { path: '/v1/integrations/hello' },
      ],
    );
    expect(taken).toBe(0);
  });
});
