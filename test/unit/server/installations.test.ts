import { describe, expect, it } from 'vitest';
import { ADMIN, useFakeApp } from './fake-services.ts';

const t = useFakeApp();

function install(body: unknown, name = 'hello'): Promise<Response> {
  return fetch(`${t.app.url}/v1/integrations/${name}/installations`, {
    method: 'POST',
    headers: { ...ADMIN, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

async function validationError(
  res: Response,
): Promise<{ code: string; message: string; details: { pointer: string; message: string }[] }> {
  expect(res.status).toBe(400);
  const { error } = await res.json();
  expect(error.code).toBe('ERR_VALIDATION');
  return error;
}

describe('POST /v1/integrations/:name/installations', () => {
  it('creates an installation and answers 201 with the service result', async () => {
    const res = await install({ organization: 'acme', target: 'space', space: 'space-1' });
    expect(res.status).toBe(201);
    expect(await res.json()).toMatchObject({
      id: 'inst-new',
      integration: 'hello',
      organization: 'acme',
      target: 'space',
    });
    expect(t.services.createCalls).toEqual([
      { integration: 'hello', input: { organization: 'acme', target: 'space', space: 'space-1' } },
    ]);
  });

  it('names a missing organization', async () => {
    const error = await validationError(await install({ target: 'organization' }));
    expect(error.message).toBe('organization is required');
    expect(error.details).toContainEqual({ pointer: '/organization', message: 'is required' });
    expect(t.services.createCalls).toHaveLength(0);
  });

  it('names a target outside the enum', async () => {
    const error = await validationError(await install({ organization: 'acme', target: 'planet' }));
    expect(error.message).toBe('target must be one of: organization, space, site');
  });

  it('requires space exactly when the target is a space', async () => {
    const missing = await validationError(await install({ organization: 'acme', target: 'space' }));
    expect(missing.message).toBe('space is required when target is "space"');
    const extra = await validationError(await install({ organization: 'acme', target: 'organization', space: 's1' }));
    expect(extra.message).toBe('space is only allowed when target is "space"');
  });

  it('requires site exactly when the target is a site', async () => {
    const missing = await validationError(await install({ organization: 'acme', target: 'site' }));
    expect(missing.message).toBe('site is required when target is "site"');
    const extra = await validationError(
      await install({ organization: 'acme', target: 'space', space: 's', site: 'x' }),
    );
    expect(extra.message).toBe('site is only allowed when target is "site"');
  });

  it('names an unknown field and a wrong type', async () => {
    const unknown = await validationError(
      await install({ organization: 'acme', target: 'organization', orgnization: 'x' }),
    );
    expect(unknown.message).toBe('orgnization is not a known field');
    const wrongType = await validationError(await install({ organization: 42, target: 'organization' }));
    expect(wrongType.message).toBe('organization must be string');
  });

  it('passes the service errors through (unknown integration)', async () => {
    const res = await install({ organization: 'acme', target: 'organization' }, 'ghost');
    expect(res.status).toBe(404);
    expect((await res.json()).error.code).toBe('ERR_INTEGRATION_NOT_FOUND');
  });
});

describe('GET /v1/installations/:id', () => {
  it('returns the installation', async () => {
    const res = await fetch(`${t.app.url}/v1/installations/inst-1`, { headers: ADMIN });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({
      id: 'inst-1',
      integration: 'hello',
      urls: { publicEndpoint: expect.any(String) },
    });
  });

  it('answers 404 ERR_INSTALLATION_NOT_FOUND', async () => {
    const res = await fetch(`${t.app.url}/v1/installations/nope`, { headers: ADMIN });
    expect(res.status).toBe(404);
    expect((await res.json()).error.code).toBe('ERR_INSTALLATION_NOT_FOUND');
  });
});
