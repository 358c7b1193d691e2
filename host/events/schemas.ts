// The shapes of platform events accepted by `POST /v1/events` (docs/events.md)
// and the scopes an integration needs to receive each. Pure data plus one validating function.

import { Ajv } from 'ajv';
import { HostError } from '../common/errors.ts';
import type { Scope } from '../manifest/types.ts';

const str = { type: 'string', minLength: 1 } as const;
const visitor = {
  type: 'object',
  required: ['anonymousId', 'userAgent', 'ip', 'cookies'],
  additionalProperties: false,
  properties: {
    anonymousId: str,
    userAgent: { type: 'string' },
    ip: { type: 'string' },
    cookies: { type: 'object', additionalProperties: { type: 'string' } },
  },
} as const;

function shape(required: Record<string, object>, optional: Record<string, object> = {}) {
  return {
    type: 'object',
    required: ['type', ...Object.keys(required)],
    additionalProperties: false,
    properties: { type: str, ...required, ...optional },
  };
}

/** GitBook's ContentVisibility and PageFeedbackRating: the values its integrations are written for. */
const contentVisibility = {
  enum: ['public', 'unlisted', 'share-link', 'visitor-auth', 'in-collection', 'private'],
} as const;
const feedbackRating = { enum: ['bad', 'ok', 'good'] } as const;

export const PUBLISHABLE_EVENTS = {
  space_content_updated: shape({ spaceId: str, revisionId: str }),
  space_view: shape({ spaceId: str, visitor, url: { type: 'string' }, referrer: { type: 'string' } }, { pageId: str }),
  space_visibility_updated: shape({
    spaceId: str,
    previousVisibility: contentVisibility,
    visibility: contentVisibility,
  }),
  space_gitsync_started: shape({ spaceId: str, revisionId: str, commitId: str }),
  space_gitsync_completed: shape({
    spaceId: str,
    revisionId: str,
    commitId: str,
    state: { enum: ['success', 'failure'] },
  }),
  site_view: shape({ siteId: str, visitor, url: { type: 'string' }, referrer: { type: 'string' } }),
  page_feedback: shape({
    siteId: str,
    spaceId: str,
    pageId: str,
    feedback: {
      type: 'object',
      required: ['rating', 'comment'],
      additionalProperties: false,
      properties: { rating: feedbackRating, comment: { type: 'string', maxLength: 512 } },
    },
    visitor,
    url: { type: 'string' },
    referrer: { type: 'string' },
  }),
} as const;

export type PublishableEventType = keyof typeof PUBLISHABLE_EVENTS;

/**
 * The event as integrations receive it, in GitBook's shape (its `Event` schemas): a content update
 * names who made it (`updatedBy`; this platform does not know, so none), and feedback without a
 * comment carries none (GitBook's comments are never empty).
 */
export function toIntegrationPayload(
  event: { type: PublishableEventType } & Record<string, unknown>,
): Record<string, unknown> {
  if (event.type === 'space_content_updated') return { ...event, updatedBy: [] };
  if (event.type === 'page_feedback') {
    const feedback = event.feedback as { rating: string; comment: string };
    return { ...event, feedback: feedback.comment === '' ? { rating: feedback.rating } : feedback };
  }
  return event;
}

/**
 * An integration receives space events with either read scope, site events with views, page feedback also with
 * GitBook's page:feedback:read (docs/platform-api.md).
 */
export const EVENT_SCOPES: Record<PublishableEventType, Scope[]> = {
  space_content_updated: ['space:content:read', 'space:metadata:read'],
  space_view: ['space:content:read', 'space:metadata:read'],
  space_visibility_updated: ['space:content:read', 'space:metadata:read'],
  space_gitsync_started: ['space:content:read', 'space:metadata:read'],
  space_gitsync_completed: ['space:content:read', 'space:metadata:read'],
  site_view: ['site:views:read'],
  page_feedback: ['site:views:read', 'page:feedback:read'],
};

const ajv = new Ajv({ allErrors: true, strict: false });
// A Map: `type` comes from the request, and a plain object would answer "constructor" or "__proto__".
const validators = new Map(Object.entries(PUBLISHABLE_EVENTS).map(([type, schema]) => [type, ajv.compile(schema)]));

/** Validates a published event; throws ERR_VALIDATION naming the type or each bad field. */
export function validatePublishedEvent(body: unknown): { type: PublishableEventType } & Record<string, unknown> {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw new HostError('ERR_VALIDATION', 'event must be a JSON object');
  const { type } = body as { type?: unknown };
  if (typeof type !== 'string')
    throw new HostError('ERR_VALIDATION', '/type: required, one of ' + Object.keys(PUBLISHABLE_EVENTS).join(', '), [
      { pointer: '/type', message: 'required' },
    ]);
  if ('eventId' in body)
    throw new HostError('ERR_VALIDATION', '/eventId: assigned by the host, must not be sent', [
      { pointer: '/eventId', message: 'must not be sent' },
    ]);
  const validate = validators.get(type);
  if (!validate)
    throw new HostError(
      'ERR_VALIDATION',
      `/type: unknown event type "${type}" (expected one of ${Object.keys(PUBLISHABLE_EVENTS).join(', ')})`,
      [{ pointer: '/type', message: 'unknown event type' }],
    );
  if (!validate(body)) {
    const details = (validate.errors ?? []).map((e) => {
      const missing = (e.params as { missingProperty?: string }).missingProperty;
      const extra = (e.params as { additionalProperty?: string }).additionalProperty;
      const escape = (token: string): string => token.replaceAll('~', '~0').replaceAll('/', '~1');
      const pointer = missing
        ? `${e.instancePath}/${escape(missing)}`
        : extra
          ? `${e.instancePath}/${escape(extra)}`
          : e.instancePath || '/';
      const message = missing ? 'required' : extra ? 'unknown field' : (e.message ?? 'invalid');
      return { pointer, message };
    });
    throw new HostError(
      'ERR_VALIDATION',
      `invalid ${type} event: ${details.map((d) => `${d.pointer}: ${d.message}`).join('; ')}`,
      details,
    );
  }
  return body as { type: PublishableEventType } & Record<string, unknown>;
}
