import { describe, it, expect } from 'vitest';
import { validatePublishedEvent } from '../../../host/events/schemas.ts';

const visitor = { anonymousId: 'anon', userAgent: 'ua', ip: '203.0.113.9', cookies: {} };

describe('validatePublishedEvent', () => {
  it('accepts each seed payload shape', () => {
    expect(validatePublishedEvent({ type: 'space_content_updated', spaceId: 's', revisionId: 'r' }).type).toBe(
      'space_content_updated',
    );
    expect(
      validatePublishedEvent({ type: 'site_view', siteId: 's', visitor, url: 'https://x', referrer: '' }).type,
    ).toBe('site_view');
    expect(
      validatePublishedEvent({
        type: 'page_feedback',
        siteId: 's',
        spaceId: 'p',
        pageId: 'g',
        feedback: { rating: 'good', comment: 'ok' },
        visitor,
        url: 'u',
        referrer: 'r',
      }).type,
    ).toBe('page_feedback');
  });

  it('names a missing field', () => {
    expect(() => validatePublishedEvent({ type: 'space_content_updated', spaceId: 's' })).toThrow(
      /\/revisionId: required/,
    );
  });

  it('names an unknown type', () => {
    expect(() => validatePublishedEvent({ type: 'space_exploded' })).toThrow(/unknown event type "space_exploded"/);
  });

  it('refuses a client-chosen eventId', () => {
    expect(() =>
      validatePublishedEvent({ type: 'space_content_updated', spaceId: 's', revisionId: 'r', eventId: 'x' }),
    ).toThrow(/eventId/);
  });

  it('validates nested visitor fields', () => {
    expect(() =>
      validatePublishedEvent({
        type: 'site_view',
        siteId: 's',
        visitor: { anonymousId: 'a' },
        url: 'u',
        referrer: 'r',
      }),
    ).toThrow(/\/visitor\/userAgent: required/);
  });
});
