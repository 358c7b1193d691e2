// The JSON body of each webhook delivery, exactly the shape docs/webhooks.md gives per event type: common
// fields first (eventId, type, installationId), then the type's own fields in the documented order (docs/webhooks.md).
// Pure; copies only the listed fields, so nothing else a publisher sent can leak to a receiver.

import { HostError } from '../common/errors.ts';

const WEBHOOK_EVENT_TYPES = ['space_content_updated', 'site_view', 'page_feedback'] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

export interface WebhookVisitor {
  anonymousId: string;
  userAgent: string;
  ip: string;
  cookies: Record<string, string>;
}

export interface WebhookPayloadIds {
  eventId: string;
  installationId: string;
}
export type SpaceContentUpdatedPayload = {
  eventId: string;
  type: 'space_content_updated';
  installationId: string;
  spaceId: string;
  revisionId: string;
};
export type SiteViewPayload = {
  eventId: string;
  type: 'site_view';
  installationId: string;
  siteId: string;
  visitor: WebhookVisitor;
  url: string;
  referrer: string;
};
export type PageFeedbackPayload = {
  eventId: string;
  type: 'page_feedback';
  installationId: string;
  siteId: string;
  spaceId: string;
  pageId: string;
  feedback: { rating: string; comment: string };
  visitor: WebhookVisitor;
  url: string;
  referrer: string;
};
export type WebhookPayload = SpaceContentUpdatedPayload | SiteViewPayload | PageFeedbackPayload;

export function isWebhookEventType(type: unknown): type is WebhookEventType {
  return typeof type === 'string' && (WEBHOOK_EVENT_TYPES as readonly string[]).includes(type);
}

function field(source: Record<string, unknown>, name: string, path = name): string {
  const value = source[name];
  if (typeof value !== 'string')
    throw new HostError('ERR_VALIDATION', `/${path}: required string`, [
      { pointer: `/${path}`, message: 'required string' },
    ]);
  return value;
}

function record(source: Record<string, unknown>, name: string): Record<string, unknown> {
  const value = source[name];
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new HostError('ERR_VALIDATION', `/${name}: required object`, [
      { pointer: `/${name}`, message: 'required object' },
    ]);
  }
  return value as Record<string, unknown>;
}

function visitorOf(event: Record<string, unknown>): WebhookVisitor {
  const visitor = record(event, 'visitor');
  const cookies: Record<string, string> = {};
  const rawCookies = visitor.cookies;
  if (typeof rawCookies === 'object' && rawCookies !== null && !Array.isArray(rawCookies)) {
    // Defined, not assigned: a cookie named `__proto__` stays a cookie, never the object's prototype.
    for (const [name, value] of Object.entries(rawCookies)) {
      if (typeof value === 'string')
        Object.defineProperty(cookies, name, { value, enumerable: true, writable: true, configurable: true });
    }
  }
  return {
    anonymousId: field(visitor, 'anonymousId', 'visitor/anonymousId'),
    userAgent: field(visitor, 'userAgent', 'visitor/userAgent'),
    ip: field(visitor, 'ip', 'visitor/ip'),
    cookies,
  };
}

/** Builds the payload for one installation; throws ERR_VALIDATION for an unknown type or a missing field. */
export function buildWebhookPayload(event: Record<string, unknown>, ids: WebhookPayloadIds): WebhookPayload {
  const { eventId, installationId } = ids;
  switch (event.type) {
    case 'space_content_updated':
      return {
        eventId,
        type: 'space_content_updated',
        installationId,
        spaceId: field(event, 'spaceId'),
        revisionId: field(event, 'revisionId'),
      };
    case 'site_view':
      return {
        eventId,
        type: 'site_view',
        installationId,
        siteId: field(event, 'siteId'),
        visitor: visitorOf(event),
        url: field(event, 'url'),
        referrer: field(event, 'referrer'),
      };
    case 'page_feedback': {
      const feedback = record(event, 'feedback');
      return {
        eventId,
        type: 'page_feedback',
        installationId,
        siteId: field(event, 'siteId'),
        spaceId: field(event, 'spaceId'),
        pageId: field(event, 'pageId'),
        feedback: {
          rating: field(feedback, 'rating', 'feedback/rating'),
          comment: field(feedback, 'comment', 'feedback/comment'),
        },
        visitor: visitorOf(event),
        url: field(event, 'url'),
        referrer: field(event, 'referrer'),
      };
    }
    default:
      throw new HostError(
        'ERR_VALIDATION',
        `/type: "${String(event.type)}" is not a webhook event (expected one of ${WEBHOOK_EVENT_TYPES.join(', ')})`,
        [{ pointer: '/type', message: 'not a webhook event' }],
      );
  }
}

/** The exact bytes that are stored, signed and sent: compact JSON in the builder's key order. */
export function serializeWebhookPayload(payload: WebhookPayload): string {
  return JSON.stringify(payload);
}
