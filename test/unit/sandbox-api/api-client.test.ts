import { describe, it, expect, vi, afterEach } from 'vitest';
import { ApiError, createApiClient } from '../../../sandbox-api/api-client.ts';

const environment = { apiEndpoint: 'http://127.0.0.1:9/', apiTokens: { installation: 'iht_test' } };

function stubFetch(status: number, body: unknown) {
  const fetchMock = vi.fn(
    async (_url: string, _init?: RequestInit) =>
      new Response(typeof body === 'string' ? body : JSON.stringify(body), {
        status,
        headers: { 'content-type': 'application/json' },
      }),
  );
  vi.stubGlobal('fetch', fetchMock);
  return fetchMock;
}

afterEach(() => vi.unstubAllGlobals());

describe('createApiClient', () => {
  it('calls the route with the installation token and a JSON body, ids encoded', async () => {
    const fetchMock = stubFetch(200, { id: 'p' });
    await createApiClient(environment).spaces.putPage('space 1', 'p/1', { markdown: 'x' });
    const [url, init] = fetchMock.mock.calls[0];
    expect(url).toBe('http://127.0.0.1:9/v1/spaces/space%201/content/pages/p%2F1');
    expect(init?.method).toBe('PUT');
    expect(init?.headers).toMatchObject({ authorization: 'Bearer iht_test', 'content-type': 'application/json' });
    expect(init?.body).toBe('{"markdown":"x"}');
  });

  it('puts pagination in the query of listViews', async () => {
    const fetchMock = stubFetch(200, { items: [], next: null });
    await createApiClient(environment).sites.listViews('site_a', { limit: 5, cursor: '12' });
    expect(fetchMock.mock.calls[0][0]).toBe('http://127.0.0.1:9/v1/sites/site_a/views?limit=5&cursor=12');
  });

  it("throws ApiError with the host's status, code and message on a non-2xx answer", async () => {
    stubFetch(403, { error: { code: 'ERR_SCOPE_DENIED', message: 'no scope' } });
    const error = await createApiClient(environment)
      .spaces.update('s', { title: 't' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 403, code: 'ERR_SCOPE_DENIED', message: 'no scope' });
  });

  it("keeps a generic code when the error body is not the host's JSON", async () => {
    stubFetch(502, 'bad gateway');
    await expect(createApiClient(environment).sites.get('s')).rejects.toMatchObject({ status: 502, code: 'HTTP_502' });
  });

  it('fails on use, not on creation, when the environment has no API', async () => {
    const client = createApiClient({});
    await expect(client.spaces.get('s')).rejects.toMatchObject({ code: 'ERR_NO_API' });
  });
});
