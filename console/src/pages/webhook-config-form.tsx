// The built-in webhook integration's configuration (docs/webhooks.md#configuration): the receiver `url` and the
// `events` to forward, which depend on the target (a space: space_content_updated; a site:
// site_view, page_feedback). The host checks both; a 422 shows by the field.
import { useState } from 'preact/hooks';
import { ApiError, api, segment } from '../api/client.ts';
import type { Installation } from '../api/types.ts';
import { ErrorAlert } from '../ui/alert.tsx';
import { FieldError, fieldErrors } from './field-errors.tsx';

const EVENTS_BY_TARGET: Record<string, string[]> = {
  space: ['space_content_updated'],
  site: ['site_view', 'page_feedback'],
};

export function WebhookConfigForm(props: { installation: Installation; onSaved(next: Installation): void }) {
  const { installation } = props;
  const configured = installation.configuration;
  const [url, setUrl] = useState(typeof configured.url === 'string' ? configured.url : '');
  const [events, setEvents] = useState<string[]>(
    Array.isArray(configured.events) ? configured.events.filter((e): e is string => typeof e === 'string') : [],
  );
  const [error, setError] = useState<unknown>(null);
  const [saved, setSaved] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const errors = fieldErrors(error, ['url', 'events']);
  const choices = Object.hasOwn(EVENTS_BY_TARGET, installation.target) ? EVENTS_BY_TARGET[installation.target] : [];

  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    setSaved(null);
    try {
      const next = await api.patch<Installation>(`/v1/installations/${segment(installation.id)}/configuration`, {
        url: url.trim() === '' ? null : url.trim(),
        events: events.length === 0 ? null : events,
      });
      setSaved(`Saved. The installation is ${next.status}.`);
      props.onSaved(next);
    } catch (caught) {
      setError(caught);
    } finally {
      setBusy(false);
    }
  };

  return (
    <form onSubmit={submit} noValidate>
      <div class={`field ${errors.has('url') ? 'invalid' : ''}`}>
        <label for="webhook-url">
          Receiver URL<span class="required"> (required)</span> <span class="mono sub">url</span>
        </label>
        <input
          id="webhook-url"
          type="text"
          inputMode="url"
          value={url}
          aria-invalid={errors.has('url') ? 'true' : undefined}
          aria-describedby={`webhook-url-hint${errors.has('url') ? ' webhook-url-error' : ''}`}
          onInput={(event) => setUrl((event.currentTarget as HTMLInputElement).value)}
        />
        <p class="hint" id="webhook-url-hint">
          https://…; plain http:// only to a host the operator allowed with --allow-egress.
        </p>
        <FieldError id="webhook-url-error" messages={errors.get('url')} />
      </div>
      <fieldset
        class={errors.has('events') ? 'invalid' : ''}
        aria-describedby={errors.has('events') ? 'webhook-events-error' : undefined}
      >
        <legend>
          Events to forward<span class="required"> (required)</span>
        </legend>
        {choices.map((choice) => (
          <label key={choice} class="inline">
            <input
              type="checkbox"
              checked={events.includes(choice)}
              onChange={(event) => {
                const checked = (event.currentTarget as HTMLInputElement).checked;
                setEvents((previous) =>
                  checked ? [...previous.filter((e) => e !== choice), choice] : previous.filter((e) => e !== choice),
                );
              }}
            />{' '}
            <span class="mono">{choice}</span>
          </label>
        ))}
        <FieldError id="webhook-events-error" messages={errors.get('events')} />
      </fieldset>
      {error instanceof ApiError && error.status === 422 ? (
        <div class="alert alert-error" role="alert">
          <p class="alert-title">The host refused these values</p>
          <p>{error.message}</p>
        </div>
      ) : (
        <ErrorAlert error={error} context="Could not save" />
      )}
      {saved ? (
        <p class="saved" role="status">
          {saved}
        </p>
      ) : null}
      <button type="submit" class="primary" disabled={busy}>
        {busy ? 'Saving…' : 'Save configuration'}
      </button>
    </form>
  );
}
