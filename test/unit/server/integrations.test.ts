import { describe, expect, it } from 'vitest';
import { ADMIN, useFakeApp } from './fake-services.ts';

const t = useFakeApp();

describe('GET /v1/integrations', () => {
  it('lists valid and invalid integrations with formatted problems', async () => {
    const res = await fetch(`${t.app.url}/v1/integrations`, { headers: ADMIN });
    expect(res.status).toBe(200);
    const { items } = await res.json();
    expect(items).toEqual([
      {
        name: 'hello',
        title: 'Hello',
        description: 'Says hello',
        visibility: 'public',
        scopes: ['space:content:read'],
        blocks: [{ id: 'greeting', title: 'Greeting', description: 'A greeting block' }],
        categories: ['other'],
        status: 'ready',
        warnings: ['platform-manifest.yaml: /summary: summary is long'],
      },
      {
        name: 'broken',
        status: 'invalid',
        errors: [
          'platform-manifest.yaml: /scopes/0: must be one of the known scopes',
          'platform-manifest.yaml: is not valid YAML',
        ],
      },
    ]);
  });

  it('never includes secrets, bundles or paths', async () => {
    const text = await (await fetch(`${t.app.url}/v1/integrations`, { headers: ADMIN })).text();
    for (const leaked of ['super-secret-value', 'HELLO_API_KEY', 'BUNDLE_CODE', '/fixtures/'])
      expect(text).not.toContain(leaked);
  });
});

describe('GET /v1/integrations/:name', () => {
  it('adds configurations, summary, externalLinks and organization', async () => {
    const res = await fetch(`${t.app.url}/v1/integrations/hello`, { headers: ADMIN });
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body).toMatchObject({
      name: 'hello',
      status: 'ready',
      organization: 'acme',
      summary: 'A longer summary',
      externalLinks: [{ label: 'Docs', url: 'https://example.com/docs' }],
      configurations: { account: { properties: { name: { type: 'string', title: 'Name', description: 'Who' } } } },
    });
    expect(JSON.stringify(body)).not.toContain('super-secret-value');
    expect(body).not.toHaveProperty('secrets');
  });

  it('answers 404 ERR_INTEGRATION_NOT_FOUND for an unknown name', async () => {
    const res = await fetch(`${t.app.url}/v1/integrations/ghost`, { headers: ADMIN });
    expect(res.status).toBe(404);
    expect((await res.json()).error.code).toBe('ERR_INTEGRATION_NOT_FOUND');
  });
});
