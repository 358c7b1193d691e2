// Webhook bodies are exactly the shapes of docs/webhooks.md, in a fixed key order, with nothing extra.
import { describe, expect, it } from 'vitest';
import { buildWebhookPayload, serializeWebhookPayload } from '../../../host/webhooks/payload.ts';

const ids = { eventId: 'evt_1', installationId: 'inst_1' };
const visitor = { anonymousId: 'anon_1', userAgent: 'Mozilla/5.0', ip: '203.0.113.9', cookies: { theme: 'dark' } };

describe('buildWebhookPayload', () => {
  it('builds space_content_updated with only its own fields', () => {
    const payload = buildWebhookPayload(
      { type: 'space_content_updated', spaceId: 'space_1', revisionId: 'rev_2', extra: 'dropped' },
      ids,
    );
    expect(serializeWebhookPayload(payload)).toBe(
      '{"eventId":"evt_1","type":"space_content_updated","installationId":"inst_1",' +
        '"spaceId":"space_1","revisionId":"rev_2"}',
    );
  });

  it('builds site_view with the visitor object', () => {
    const payload = buildWebhookPayload(
      {
        type: 'site_view',
        siteId: 'site_1',
        visitor,
        url: 'https://docs.example/a',
        referrer: 'https://search.example/',
      },
      ids,
    );
    expect(Object.keys(payload)).toEqual(['eventId', 'type', 'installationId', 'siteId', 'visitor', 'url', 'referrer']);
    expect(payload).toEqual({
      ...ids,
      type: 'site_view',
      siteId: 'site_1',
      visitor,
      url: 'https://docs.example/a',
      referrer: 'https://search.example/',
    });
    expect(Object.keys((payload as { visitor: object }).visitor)).toEqual([
      'anonymousId',
      'userAgent',
      'ip',
      'cookies',
    ]);
  });

  it('builds page_feedback with feedback, visitor and both ids', () => {
    const payload = buildWebhookPayload(
      {
        type: 'page_feedback',
        siteId: 'site_1',
        spaceId: 'space_1',
        pageId: 'page_1',
        url: 'https://docs.example/a',
        referrer: '',
        feedback: { rating: 'good', comment: 'Clear', stars: 5 },
        visitor: { ...visitor, cookies: {}, tracking: 'x' },
      },
      ids,
    );
    expect(serializeWebhookPayload(payload)).toBe(
      '{"eventId":"evt_1","type":"page_feedback","installationId":"inst_1",' +
        '"siteId":"site_1","spaceId":"space_1","pageId":"page_1",' +
        '"feedback":{"rating":"good","comment":"Clear"},' +
        '"visitor":{"anonymousId":"anon_1","userAgent":"Mozilla/5.0","ip":"203.0.113.9","cookies":{}},' +
        '"url":"https://docs.example/a","referrer":""}',
    );
  });

  it(
    'keeps a visitor cookie named __proto__ as a cookie (JSON ' + 'input makes it an own key), never as a prototype',
    () => {
      const cookies = JSON.parse('{"__proto__":"x","theme":"dark"}') as Record<string, string>;
      const payload = buildWebhookPayload(
        {
          type: 'site_view',
          siteId: 'site_1',
          visitor: { ...visitor, cookies },
          url: 'https://docs.example/a',
          referrer: '',
        },
        ids,
      );
      expect(serializeWebhookPayload(payload)).toContain('"cookies":{"__proto__":"x","theme":"dark"}');
      expect(Object.getPrototypeOf((payload as { visitor: { cookies: object } }).visitor.cookies)).toBe(
        Object.prototype,
      );
    },
  );

  it('is deterministic whatever order the publisher sent the fields in', () => {
    const a = buildWebhookPayload({ revisionId: 'r', spaceId: 's', type: 'space_content_updated' }, ids);
    const b = buildWebhookPayload({ type: 'space_content_updated', spaceId: 's', revisionId: 'r' }, ids);
    expect(serializeWebhookPayload(a)).toBe(serializeWebhookPayload(b));
  });

  it('keeps only string cookie values', () => {
    const payload = buildWebhookPayload(
      { type: 'site_view', siteId: 's', visitor: { ...visitor, cookies: { a: '1', b: 2 } }, url: '', referrer: '' },
      ids,
    );
    expect((payload as { visitor: { cookies: object } }).visitor.cookies).toEqual({ a: '1' });
  });

  it('rejects an event type the webhook integration does not deliver', () => {
    expect(() => buildWebhookPayload({ type: 'space_view', spaceId: 's' }, ids)).toThrow(
      expect.objectContaining({ code: 'ERR_VALIDATION' }),
    );
  });

  it('names the missing field', () => {
    expect(() => buildWebhookPayload({ type: 'site_view', siteId: 's', url: '', referrer: '' }, ids)).toThrow(
      /\/visitor/,
    );
    expect(() =>
      buildWebhookPayload(
        {
          type: 'page_feedback',
          siteId: 's',
          spaceId: 's',
          pageId: 'p',
          url: '',
          referrer: '',
          visitor,
          feedback: { rating: 'good' },
        },
        ids,
      ),
    ).toThrow(/\/feedback\/comment/);
  });
});
