import { describe, it, expect } from 'vitest';
import { planConfigurationEdit } from '../../../host/installations/configuration.ts';
import type { LoadedIntegration } from '../../../host/manifest/types.ts';
import type { Installation } from '../../../host/installations/model.ts';

const integration: LoadedIntegration = {
  name: 'demo',
  dir: '/x',
  manifestPath: '/x/platform-manifest.yaml',
  status: 'ready',
  manifest: {
    name: 'demo',
    title: 'Demo',
    description: '',
    organization: 'acme',
    visibility: 'public',
    scopes: [],
    configurations: {
      site: {
        properties: {
          channel: { type: 'string', title: 'C', description: '', enum: ['a', 'b'] },
          size: { type: 'number', title: 'S', description: '', default: 3 },
          connect: { type: 'button', title: 'B', description: '', button_text: 'Go', callback_url: '/oauth' },
        },
        required: ['channel', 'connect'],
      },
    },
  },
  secrets: {},
  errors: [],
  warnings: [],
};

const installation: Installation = {
  id: 'inst_1',
  integration: 'demo',
  organization: 'acme',
  target: 'space',
  space: 's',
  status: 'pending',
  configuration: { size: 3, removed: 'old' },
  createdAt: '',
};

describe('planConfigurationEdit', () => {
  it('lists every problem at once', () => {
    expect(() =>
      planConfigurationEdit(integration, installation, { channel: 'z', size: 'big', nope: 1, connect: {} }, 'admin'),
    ).toThrow(
      expect.objectContaining({
        status: 422,
        details: expect.arrayContaining([
          { pointer: '/channel', message: 'must be one of: a, b' },
          { pointer: '/size', message: 'must be number' },
          { pointer: '/nope', message: 'is not a property of this configuration' },
          expect.objectContaining({ pointer: '/connect' }),
        ]),
      }),
    );
  });

  it('stays pending until the button property is filled by the integration, then is active', () => {
    const half = planConfigurationEdit(integration, installation, { channel: 'a' }, 'admin');
    expect(half).toEqual({ status: 'pending', configuration: { size: 3, channel: 'a' } });
    const full = planConfigurationEdit(
      integration,
      { ...installation, ...half },
      { connect: { access_token: 't' } },
      'integration',
    );
    expect(full.status).toBe('active');
  });

  it('drops stored properties the manifest no longer declares, and re-applies a default on null', () => {
    const planned = planConfigurationEdit(
      integration,
      { ...installation, configuration: { size: 9, removed: 'old' } },
      { size: null },
      'admin',
    );
    expect(planned.configuration).toEqual({ size: 3 });
  });

  it('refuses a button object of the wrong type even from the integration', () => {
    expect(() => planConfigurationEdit(integration, installation, { connect: 'token' }, 'integration')).toThrow(
      /\/connect: must be object/,
    );
  });
});
