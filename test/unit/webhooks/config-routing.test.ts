// The webhook integration's configuration rules and which installations an event reaches.
import { describe, expect, it } from 'vitest';
import {
  checkWebhookConfiguration,
  checkWebhookUrl,
  isWebhookConfigurationComplete,
} from '../../../host/webhooks/config.ts';
import { planWebhookDeliveries } from '../../../host/webhooks/routing.ts';
import type { Installation } from '../../../host/installations/model.ts';

const egress = { allow: ['127.0.0.1', 'hooks.internal'] };

describe('checkWebhookUrl', () => {
  it.each([
    ['https://hooks.example.com/in', null],
    ['http://127.0.0.1:9000/in', null],
    ['http://hooks.internal/in', null],
    ['http://hooks.example.com/in', /must use https/],
    ['https://10.0.0.1/in', /private/],
    ['https://169.254.169.254/latest', /link-local/],
    ['https://[::1]/in', /loopback/],
    ['ftp://hooks.example.com/', /scheme "ftp:" is not allowed/],
    ['https://user:pw@hooks.example.com/', /credentials/],
    ['not a url', /absolute URL/],
  ])('judges %s', (url, expected) => {
    const reason = checkWebhookUrl(url, egress);
    if (expected === null) expect(reason).toBeNull();
    else expect(reason).toMatch(expected);
  });
});

describe('checkWebhookConfiguration', () => {
  it('accepts the events of the target', () => {
    expect(
      checkWebhookConfiguration({ url: 'https://a.example/', events: ['space_content_updated'] }, 'space', egress),
    ).toEqual([]);
    expect(
      checkWebhookConfiguration({ url: 'https://a.example/', events: ['site_view', 'page_feedback'] }, 'site', egress),
    ).toEqual([]);
  });

  it('rejects an event that does not fit the target, naming it', () => {
    expect(checkWebhookConfiguration({ events: ['site_view'] }, 'space', egress)).toEqual([
      { pointer: '/events/0', message: '"site_view" is not a space event (expected one of space_content_updated)' },
    ]);
    expect(checkWebhookConfiguration({ events: ['space_content_updated'] }, 'site', egress)[0].pointer).toBe(
      '/events/0',
    );
  });

  it('rejects organization targets, bad types, repeats and unknown properties', () => {
    expect(checkWebhookConfiguration({}, 'organization', egress)[0].pointer).toBe('/target');
    expect(
      checkWebhookConfiguration({ url: 5, events: 'site_view', extra: true }, 'site', egress).map((p) => p.pointer),
    ).toEqual(['/url', '/events', '/extra']);
    expect(checkWebhookConfiguration({ events: ['site_view', 'site_view'] }, 'site', egress)).toEqual([
      { pointer: '/events', message: 'must not repeat an event type' },
    ]);
  });

  it('leaves a partial configuration valid but incomplete', () => {
    expect(checkWebhookConfiguration({ url: 'https://a.example/' }, 'space', egress)).toEqual([]);
    expect(isWebhookConfigurationComplete({ url: 'https://a.example/' })).toBe(false);
    expect(isWebhookConfigurationComplete({ url: 'https://a.example/', events: [] })).toBe(false);
    expect(isWebhookConfigurationComplete({ url: 'https://a.example/', events: ['site_view'] })).toBe(true);
  });
});

describe('planWebhookDeliveries', () => {
  const installation = (overrides: Partial<Installation>): Installation => ({
    id: 'inst_x',
    integration: 'host:webhook',
    organization: 'org_1',
    target: 'space',
    space: 'space_1',
    status: 'active',
    configuration: { url: 'https://a.example/in', events: ['space_content_updated'] },
    createdAt: '2026-01-01T00:00:00Z',
    ...overrides,
  });
  const event = { type: 'space_content_updated', spaceId: 'space_1', revisionId: 'rev_1' };

  it('delivers to each active, subscribed webhook covering the space, with its own installationId', () => {
    const plan = planWebhookDeliveries(event, 'evt_1', [
      installation({ id: 'inst_a' }),
      installation({ id: 'inst_b', configuration: { url: 'https://b.example/in', events: ['space_content_updated'] } }),
      installation({ id: 'inst_other_space', space: 'space_2' }),
      installation({ id: 'inst_pending', status: 'pending' }),
      installation({
        id: 'inst_unsubscribed',
        target: 'site',
        site: 'site_1',
        space: undefined,
        configuration: { url: 'https://c.example/', events: ['site_view'] },
      }),
      installation({ id: 'inst_not_webhook', integration: 'slack' }),
    ]);
    expect(plan.map((d) => [d.installationId, d.url])).toEqual([
      ['inst_a', 'https://a.example/in'],
      ['inst_b', 'https://b.example/in'],
    ]);
    expect(JSON.parse(plan[1].body)).toEqual({
      eventId: 'evt_1',
      type: 'space_content_updated',
      installationId: 'inst_b',
      spaceId: 'space_1',
      revisionId: 'rev_1',
    });
    expect(plan[0]).toMatchObject({ eventId: 'evt_1', eventType: 'space_content_updated' });
  });

  it('routes site events by siteId to site installations subscribed to that type', () => {
    const site = installation({
      id: 'inst_site',
      target: 'site',
      site: 'site_1',
      space: undefined,
      configuration: { url: 'https://s.example/', events: ['page_feedback'] },
    });
    const visitor = { anonymousId: 'a', userAgent: 'u', ip: '203.0.113.1', cookies: {} };
    const feedback = {
      type: 'page_feedback',
      siteId: 'site_1',
      spaceId: 'space_1',
      pageId: 'p',
      feedback: { rating: 'good', comment: '' },
      visitor,
      url: '',
      referrer: '',
    };
    expect(planWebhookDeliveries(feedback, 'evt_2', [site])).toHaveLength(1);
    expect(
      planWebhookDeliveries({ type: 'site_view', siteId: 'site_1', visitor, url: '', referrer: '' }, 'evt_3', [site]),
    ).toEqual([]);
  });
});
