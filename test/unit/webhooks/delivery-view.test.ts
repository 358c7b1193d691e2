// The public JSON of the delivery log: ISO times, attempts with status or error, parsed payload.
import { describe, expect, it } from 'vitest';
import { toDeliveryView } from '../../../host/webhooks/delivery-view.ts';

describe('toDeliveryView', () => {
  it('shows each attempt with its status code or error and the next attempt time', () => {
    const view = toDeliveryView({
      id: 'dlv_1',
      installationId: 'inst_1',
      eventId: 'evt_1',
      eventType: 'site_view',
      url: 'https://a.example/',
      body: '{"eventId":"evt_1"}',
      status: 'pending',
      attempts: 2,
      nextAttemptAt: Date.parse('2026-01-01T00:00:03.100Z'),
      createdAt: Date.parse('2026-01-01T00:00:00Z'),
      redeliveryOf: null,
      attemptLog: [
        {
          attempt: 1,
          startedAt: Date.parse('2026-01-01T00:00:00Z'),
          durationMs: 4,
          statusCode: null,
          errorKind: 'refused',
          errorMessage: 'ECONNREFUSED',
          nextAttemptAt: Date.parse('2026-01-01T00:00:01.050Z'),
        },
        {
          attempt: 2,
          startedAt: Date.parse('2026-01-01T00:00:01.050Z'),
          durationMs: 9,
          statusCode: 503,
          errorKind: null,
          errorMessage: null,
          nextAttemptAt: Date.parse('2026-01-01T00:00:03.100Z'),
        },
      ],
    });
    expect(view).toEqual({
      id: 'dlv_1',
      installationId: 'inst_1',
      eventId: 'evt_1',
      eventType: 'site_view',
      url: 'https://a.example/',
      status: 'pending',
      attemptCount: 2,
      nextAttemptAt: '2026-01-01T00:00:03.100Z',
      createdAt: '2026-01-01T00:00:00.000Z',
      redeliveryOf: null,
      payload: { eventId: 'evt_1' },
      attempts: [
        {
          attempt: 1,
          startedAt: '2026-01-01T00:00:00.000Z',
          durationMs: 4,
          statusCode: null,
          error: { kind: 'refused', message: 'ECONNREFUSED' },
          nextAttemptAt: '2026-01-01T00:00:01.050Z',
        },
        {
          attempt: 2,
          startedAt: '2026-01-01T00:00:01.050Z',
          durationMs: 9,
          statusCode: 503,
          error: null,
          nextAttemptAt: '2026-01-01T00:00:03.100Z',
        },
      ],
    });
  });
});
