// JSON nested far deeper than any real document, wherever the host parses it: admin request
// bodies, multipart envelope parts, platform API bodies from an integration, a component's 4xx
// answer and a completion answer. Each is refused with a 4xx (a 502 for an integration's answer)
// naming the problem, never a 500 from a stack overflow, also when a string with escaped quotes comes
// before the deep part (the depth scan must not lose track of strings). Platform event types that name
// Object.prototype members are unknown types, not a crash.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { endpointOf, installationOf, startTestHost, type TestHost } from '../helpers/host.ts';
import { expectHostHealthy } from '../helpers/host-health.ts';

const nested = (depth: number): string => '['.repeat(depth) + ']'.repeat(depth);
const TOO_DEEP = 'nests objects and arrays deeper than 128 levels';
let host: TestHost;

beforeAll(async () => {
  host = await startTestHost({ dirs: ['fixtures/integrations', 'fixtures/hostile'] });
});
afterAll(() => host?.close());

async function errorOf(response: Response): Promise<{ status: number; code: string; message: string }> {
  const body = await response.json();
  return { status: response.status, code: body.error?.code, message: body.error?.message };
}

describe('deeply nested JSON', () => {
  it('refuses 100,000-deep props to render with 400 naming the depth', async () => {
    const id = installationOf(host, 'counter');
    const body = `{"componentId":"counter","props":{"x":${nested(100_000)}}}`;
    expect(await errorOf(await host.admin(`/v1/installations/${id}/render`, { method: 'POST', body }))).toEqual({
      status: 400,
      code: 'ERR_VALIDATION',
      message: `request body ${TOO_DEEP}`,
    });
  });

  it.each([String.raw`"\""`, String.raw`"\\\""`, String.raw`"a\"b"`])(
    'refuses 100,000-deep props after the string %s with 400, never a 500',
    async (crafted) => {
      // A scan that mis-tracked escaped quotes would see the deep part as string text and let it through.
      const id = installationOf(host, 'counter');
      const body = `{"componentId":"counter","props":{"q":${crafted},"x":${nested(100_000)}}}`;
      expect(await errorOf(await host.admin(`/v1/installations/${id}/render`, { method: 'POST', body }))).toEqual({
        status: 400,
        code: 'ERR_VALIDATION',
        message: `request body ${TOO_DEEP}`,
      });
    },
  );

  it('accepts props nested as deep as the limit', async () => {
    const id = installationOf(host, 'counter');
    // Objects (GitBook's props hold no arrays), 120 levels inside the render answer's own 2.
    const body = `{"componentId":"counter","props":{"x":${'{"a":'.repeat(120)}1${'}'.repeat(120)}}}`;
    const answer = await host.admin(`/v1/installations/${id}/render`, { method: 'POST', body });
    expect(answer.status, await answer.clone().text()).toBe(200);
  });

  it.each([
    ['a 4xx body', 'deep-4xx', 1_000_000],
    ['an element', 'deep-element', 100_000],
  ])(
    'refuses a render answer whose %s nests deeper than the limit as a bad response, not a crash',
    async (_what, componentId, depth) => {
      const id = installationOf(host, 'deep-json');
      const answer = await host.admin(`/v1/installations/${id}/render`, {
        method: 'POST',
        body: JSON.stringify({ componentId, props: { depth } }),
      });
      expect(await errorOf(answer)).toEqual({
        status: 502,
        code: 'ERR_SANDBOX_BAD_RESPONSE',
        message: `the integration's render answer ${TOO_DEEP}`,
      });
    },
  );

  it('refuses a completion answer nested 100,000 levels as an invalid completion', async () => {
    const id = installationOf(host, 'deep-json');
    const answer = await host.admin(`/v1/installations/${id}/completions/channel`);
    const error = await errorOf(answer);
    expect(error.status).toBe(502);
    expect(error.code).toBe('ERR_COMPLETION_INVALID');
    expect(error.message).toContain(TOO_DEEP);
  });

  it.each(['adaptive', 'openapi', 'openapi-yaml'])(
    'refuses a 100,000-deep %s body sent through the platform API with 400',
    async (target) => {
      const answer = await fetch(`${endpointOf(host, 'deep-json')}?target=${target}&depth=100000`);
      const error = await errorOf(answer);
      expect(error.status).toBe(400);
      expect(error.code).toBe('ERR_VALIDATION');
    },
  );

  it.each(['', String.raw`"q":"\"",`])(
    'refuses a 100,000-deep multipart envelope part (%s before it)',
    async (crafted) => {
      const form = new FormData();
      form.set(
        'event',
        `{${crafted}"type":"fetch","installationId":"${installationOf(host, 'hello')}","x":${nested(100_000)}}`,
      );
      form.set('environment', '{}');
      const request = new Request(host.url, { method: 'POST', body: form });
      const headers = { 'content-type': request.headers.get('content-type')! };
      const error = await errorOf(
        await host.admin('/v1', { method: 'POST', headers, body: await request.arrayBuffer() }),
      );
      expect(error.status).toBe(400);
      expect(error.code).toBe('ERR_MULTIPART_INVALID');
      expect(error.message).toContain(TOO_DEEP);
    },
  );

  it.each(['constructor', 'toString', 'hasOwnProperty', '__proto__', 'valueOf'])(
    'answers a published event of type "%s" with 400 unknown type',
    async (type) => {
      const answer = await host.admin('/v1/events', {
        method: 'POST',
        body: JSON.stringify({ type, spaceId: 'space_acme_docs' }),
      });
      const error = await errorOf(answer);
      expect(error.status).toBe(400);
      expect(error.message).toContain(`unknown event type "${type}"`);
    },
  );

  it('leaves the host and its neighbour answering', async () => {
    await expectHostHealthy(host);
  });
});
