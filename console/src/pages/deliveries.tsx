// Webhook deliveries of a webhook installation with every attempt, redelivery, and signing-secret
// rotation (the new secret is shown once, here, and kept nowhere).
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, segment } from '../api/client.ts';
import type { Delivery, Page } from '../api/types.ts';
import { ErrorAlert, Notice } from '../ui/alert.tsx';
import { ConfirmButton } from '../ui/confirm.tsx';
import { CopyField } from '../ui/copy.tsx';
import { formatDuration, formatTime } from '../ui/format.ts';
import { useLoad } from '../ui/use-load.ts';
import { InstallationHeader, loadInstallation } from './installation.tsx';
import { StatusBadge } from './parts.tsx';

const PAGE_SIZE = 20;
const REFRESH_MS = 1000;

export function DeliveriesPage(props: { id: string }) {
  const loaded = useLoad(() => loadInstallation(props.id), [props.id]);
  const [deliveries, setDeliveries] = useState<Delivery[]>([]);
  const [cursor, setCursor] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [actionError, setActionError] = useState<unknown>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [secret, setSecret] = useState<string | null>(null);
  const timer = useRef<number | undefined>(undefined);

  const load = async () => {
    try {
      const page = await api.get<Page<Delivery>>(
        `/v1/installations/${segment(props.id)}/deliveries?limit=${PAGE_SIZE}`,
      );
      setDeliveries((previous) => {
        // The first page replaces its own entries; older ones already shown stay below it.
        const firstIds = new Set(page.items.map((item) => item.id));
        return [...page.items, ...previous.filter((item) => !firstIds.has(item.id))];
      });
      setCursor((previous) => previous ?? page.nextCursor);
      setError(null);
      return page.items;
    } catch (caught) {
      setError(caught);
      return [];
    }
  };

  // While a delivery is still being attempted, follow it once a second.
  const follow = async () => {
    if (timer.current !== undefined) clearTimeout(timer.current);
    const items = await load();
    if (items.some((item) => item.status !== 'succeeded' && item.status !== 'failed'))
      timer.current = window.setTimeout(follow, REFRESH_MS);
  };

  useEffect(() => {
    void follow();
    return () => {
      if (timer.current !== undefined) clearTimeout(timer.current);
    };
  }, [props.id]);

  const loadOlder = async () => {
    if (!cursor) return;
    try {
      const page = await api.get<Page<Delivery>>(
        `/v1/installations/${segment(props.id)}/deliveries?limit=${PAGE_SIZE}&cursor=${encodeURIComponent(cursor)}`,
      );
      setDeliveries((previous) => [
        ...previous,
        ...page.items.filter((item) => !previous.some((known) => known.id === item.id)),
      ]);
      setCursor(page.nextCursor);
    } catch (caught) {
      setError(caught);
    }
  };

  const redeliver = async (delivery: Delivery) => {
    setActionError(null);
    setNotice(null);
    try {
      const queued = await api.post<Delivery>(`/v1/deliveries/${segment(delivery.id)}/redeliver`);
      setNotice(`Queued ${queued.id}: the same event (${queued.eventId}) again to ${queued.url}.`);
      await follow();
    } catch (caught) {
      setActionError(caught);
    }
  };

  const rotate = async () => {
    setActionError(null);
    setSecret(null);
    try {
      const answer = await api.post<{ signingSecret: string }>(`/v1/installations/${segment(props.id)}/signing-secret`);
      setSecret(answer.signingSecret);
    } catch (caught) {
      setActionError(caught);
    }
  };

  if (loaded.error) return <ErrorAlert error={loaded.error} context="Could not load this installation" />;
  if (!loaded.data) return <p role="status">Loading…</p>;
  return (
    <section>
      <InstallationHeader context={loaded.data} current="deliveries" />
      <section class="panel">
        <h2>Signing secret</h2>
        <p>
          Rotating creates a new secret. For 24 hours the old one keeps signing too (one <code>v1=</code> per secret),
          so your receiver can switch without dropping deliveries.
        </p>
        <ConfirmButton
          label="Rotate the signing secret…"
          title="Rotate the signing secret?"
          confirmLabel="Rotate"
          onConfirm={rotate}
        >
          <p>The new secret is shown once, right after rotating. Copy it into your receiver.</p>
        </ConfirmButton>
        {secret ? (
          <div class="secret-once">
            <Notice tone="warning">
              This is the only time the host shows this secret. It is not kept in the console either: leaving this page
              forgets it.
            </Notice>
            <CopyField label="New signing secret" value={secret} secret />
          </div>
        ) : null}
      </section>
      <ErrorAlert error={actionError} context="The host refused" />
      {notice ? <Notice tone="success">{notice}</Notice> : null}
      <h2>Deliveries</h2>
      <ErrorAlert error={error} context="Could not read the delivery log" />
      <button type="button" onClick={() => void follow()}>
        Refresh
      </button>
      {deliveries.length === 0 && !error ? (
        <p>No delivery yet: publish an event this installation subscribes to.</p>
      ) : null}
      <ol class="deliveries">
        {deliveries.map((delivery) => (
          <li key={delivery.id} class="delivery panel" data-delivery-id={delivery.id}>
            <h3>
              <span class="mono">{delivery.eventType}</span> <StatusBadge status={delivery.status} />{' '}
              <span class="mono sub">{delivery.id}</span>
            </h3>
            <p class="sub">
              Event <span class="mono">{delivery.eventId}</span> to <span class="mono">{delivery.url}</span>, queued
              {' ' + formatTime(delivery.createdAt)}
              {delivery.redeliveryOf ? (
                <>
                  , a redelivery of <span class="mono">{delivery.redeliveryOf}</span>
                </>
              ) : null}
              {delivery.nextAttemptAt ? `; next attempt ${formatTime(delivery.nextAttemptAt)}` : ''}
            </p>
            <table class="list attempts">
              <caption>{`Attempts (${delivery.attempts.length})`}</caption>
              <thead>
                <tr>
                  <th scope="col">#</th>
                  <th scope="col">Started</th>
                  <th scope="col">Duration</th>
                  <th scope="col">Result</th>
                </tr>
              </thead>
              <tbody>
                {delivery.attempts.map((attempt) => (
                  <tr key={attempt.attempt}>
                    <td>{attempt.attempt}</td>
                    <td>{formatTime(attempt.startedAt)}</td>
                    <td>{formatDuration(attempt.durationMs)}</td>
                    <td>
                      {attempt.statusCode !== null ? `HTTP ${attempt.statusCode}` : ''}
                      {attempt.error ? `${attempt.error.kind}: ${attempt.error.message}` : ''}
                      {attempt.nextAttemptAt ? ` (retry ${formatTime(attempt.nextAttemptAt)})` : ''}
                    </td>
                  </tr>
                ))}
                {delivery.attempts.length === 0 ? (
                  <tr>
                    <td colSpan={4}>Not attempted yet.</td>
                  </tr>
                ) : null}
              </tbody>
            </table>
            <details>
              <summary>Payload</summary>
              <pre>{JSON.stringify(delivery.payload, null, 2)}</pre>
            </details>
            <button type="button" onClick={() => redeliver(delivery)}>
              Redeliver <span class="visually-hidden">{delivery.id}</span>
            </button>
          </li>
        ))}
      </ol>
      {cursor ? (
        <button type="button" onClick={loadOlder}>
          Load older deliveries
        </button>
      ) : null}
    </section>
  );
}
