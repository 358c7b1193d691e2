// The configuration form generated from an integration's schema: string → text, number → number
// text (the host validates it), boolean → checkbox, `enum` → dropdown, `completion_url` →
// dropdown fed by the completions route, `button` → starts its flow in a new tab and shows
// "Connected" once the installation stores it. A 422 puts each problem next to its field.
import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, api, segment } from '../api/client.ts';
import type { ConfigProperty, ConfigurationSchema, Installation } from '../api/types.ts';
import { safeHttpUrl } from '../contentkit/urls.ts';
import { ErrorAlert } from '../ui/alert.tsx';
import { FieldError, fieldErrors, type FieldErrors } from './field-errors.tsx';
import { isSet } from './parts.tsx';

type Value = string | boolean;

function initialValue(property: ConfigProperty, value: unknown): Value {
  if (property.type === 'boolean') return value === true;
  if (value === undefined || value === null) return '';
  return typeof value === 'string' ? value : String(value);
}

const NUMBER = /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/;

/** What the PATCH carries for an edited field: empty → null (unset), a number's text → number. */
function patchValue(property: ConfigProperty, value: Value): unknown {
  if (property.type === 'boolean') return value === true;
  const text = String(value).trim();
  if (text === '') return null;
  // Text that is not a number goes as typed: the host answers 422 naming the field.
  if (property.type === 'number') return NUMBER.test(text) ? Number(text) : text;
  return String(value);
}

let formCount = 0;

export function ConfigForm(props: {
  installation: Installation;
  schema: ConfigurationSchema;
  onSaved(next: Installation): void;
}) {
  const { installation, schema } = props;
  const [formId] = useState(() => `config-${++formCount}`);
  const entries = Object.entries(schema.properties);
  const editable = entries.filter(([, property]) => property.type !== 'button');
  const initial = () =>
    new Map(
      editable.map(([name, property]) => [
        name,
        initialValue(
          property,
          Object.hasOwn(installation.configuration, name) ? installation.configuration[name] : undefined,
        ),
      ]),
    );
  const [values, setValues] = useState<Map<string, Value>>(initial);
  const [dirty, setDirty] = useState<Set<string>>(new Set());
  const [error, setError] = useState<unknown>(null);
  const [saved, setSaved] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const errors = fieldErrors(
    error,
    entries.map(([name]) => name),
  );

  const change = (name: string, value: Value) => {
    setValues((previous) => new Map(previous).set(name, value));
    setDirty((previous) => new Set(previous).add(name));
    setSaved(null);
  };

  const submit = async (event: Event) => {
    event.preventDefault();
    const patch: Record<string, unknown> = {};
    for (const [name, property] of editable)
      if (dirty.has(name)) patch[name] = patchValue(property, values.get(name) ?? '');
    if (Object.keys(patch).length === 0) {
      setSaved('Nothing changed.');
      return;
    }
    setBusy(true);
    setError(null);
    setSaved(null);
    try {
      const next = await api.patch<Installation>(`/v1/installations/${segment(installation.id)}/configuration`, patch);
      setDirty(new Set());
      setSaved(`Saved. The installation is ${next.status}.`);
      props.onSaved(next);
    } catch (caught) {
      setError(caught);
    } finally {
      setBusy(false);
    }
  };

  const required = new Set(schema.required ?? []);
  return (
    <form onSubmit={submit} noValidate aria-describedby={`${formId}-summary`}>
      {entries.map(([name, property]) => {
        const id = `${formId}-${name.replace(/[^A-Za-z0-9_-]/g, '_')}`;
        if (property.type === 'button') {
          const connected = (next: Installation) => {
            setSaved(null);
            props.onSaved(next);
          };
          return (
            <ButtonProperty
              key={name}
              id={id}
              name={name}
              property={property}
              installation={installation}
              required={required.has(name)}
              errors={errors}
              onConnected={connected}
            />
          );
        }
        return (
          <Field
            key={name}
            id={id}
            name={name}
            property={property}
            installation={installation}
            required={required.has(name)}
            value={values.get(name) ?? ''}
            errors={errors}
            onChange={(value) => change(name, value)}
          />
        );
      })}
      <div id={`${formId}-summary`}>
        {error instanceof ApiError && error.status === 422 ? (
          <div class="alert alert-error" role="alert">
            <p class="alert-title">The host refused these values</p>
            <p>{error.message}</p>
            {errors.unmatched.length > 0 ? (
              <ul>
                {errors.unmatched.map((message, index) => (
                  <li key={index}>{message}</li>
                ))}
              </ul>
            ) : (
              <p>Each problem is shown next to its field.</p>
            )}
          </div>
        ) : (
          <ErrorAlert error={error} context="Could not save" />
        )}
        {saved ? (
          <p class="saved" role="status">
            {saved}
          </p>
        ) : null}
      </div>
      {editable.length > 0 ? (
        <button type="submit" class="primary" disabled={busy}>
          {busy ? 'Saving…' : 'Save configuration'}
        </button>
      ) : null}
    </form>
  );
}

function Describe(props: { id: string; property: ConfigProperty; errors: FieldErrors; name: string }) {
  return (
    <>
      {props.property.description ? (
        <p class="hint" id={`${props.id}-hint`}>
          {props.property.description}
        </p>
      ) : null}
      <FieldError id={`${props.id}-error`} messages={props.errors.get(props.name)} />
    </>
  );
}

function describedBy(id: string, property: ConfigProperty, errors: FieldErrors, name: string): string | undefined {
  return (
    [property.description ? `${id}-hint` : '', errors.has(name) ? `${id}-error` : ''].filter(Boolean).join(' ') ||
    undefined
  );
}

function Label(props: { id: string; property: ConfigProperty; name: string; required: boolean }) {
  return (
    <label for={props.id}>
      {props.property.title || props.name}
      {props.required ? <span class="required"> (required)</span> : null} <span class="mono sub">{props.name}</span>
    </label>
  );
}

function Field(props: {
  id: string;
  name: string;
  property: ConfigProperty;
  installation: Installation;
  required: boolean;
  value: Value;
  errors: FieldErrors;
  onChange(value: Value): void;
}) {
  const { id, name, property, errors } = props;
  const invalid = errors.has(name) ? 'true' : undefined;
  const described = describedBy(id, property, errors, name);
  if (property.type === 'boolean') {
    return (
      <div class={`field field-checkbox ${invalid ? 'invalid' : ''}`}>
        <input
          id={id}
          type="checkbox"
          checked={props.value === true}
          aria-invalid={invalid}
          aria-describedby={described}
          onChange={(event) => props.onChange((event.currentTarget as HTMLInputElement).checked)}
        />
        <Label id={id} property={property} name={name} required={props.required} />
        <Describe id={id} property={property} errors={errors} name={name} />
      </div>
    );
  }
  if (property.type === 'string' && property.enum) {
    return (
      <div class={`field ${invalid ? 'invalid' : ''}`}>
        <Label id={id} property={property} name={name} required={props.required} />
        <select
          id={id}
          value={String(props.value)}
          aria-invalid={invalid}
          aria-describedby={described}
          onChange={(event) => props.onChange((event.currentTarget as HTMLSelectElement).value)}
        >
          <option value="">(not set)</option>
          {property.enum.map((option) => (
            <option key={option} value={option}>
              {option}
            </option>
          ))}
        </select>
        <Describe id={id} property={property} errors={errors} name={name} />
      </div>
    );
  }
  if (property.type === 'string' && property.completion_url) {
    return <CompletionField {...props} />;
  }
  return (
    <div class={`field ${invalid ? 'invalid' : ''}`}>
      <Label id={id} property={property} name={name} required={props.required} />
      <input
        id={id}
        type="text"
        inputMode={property.type === 'number' ? 'decimal' : undefined}
        value={String(props.value)}
        aria-invalid={invalid}
        aria-describedby={described}
        onInput={(event) => props.onChange((event.currentTarget as HTMLInputElement).value)}
      />
      <Describe id={id} property={property} errors={errors} name={name} />
    </div>
  );
}

/** A `completion_url` property: its options come from GET /v1/installations/:id/completions/:property. */
function CompletionField(props: Parameters<typeof Field>[0]) {
  const { id, name, property, installation, errors } = props;
  const [options, setOptions] = useState<{ label: string; value: string }[] | null>(null);
  const [loadError, setLoadError] = useState<unknown>(null);
  const [loading, setLoading] = useState(true);
  const load = async () => {
    setLoading(true);
    setLoadError(null);
    try {
      const answer = await api.get<{ items: { label: string; value: string }[] }>(
        `/v1/installations/${segment(installation.id)}/completions/${segment(name)}`,
      );
      setOptions(answer.items);
    } catch (caught) {
      setLoadError(caught);
      setOptions(null);
    } finally {
      setLoading(false);
    }
  };
  useEffect(() => {
    void load();
  }, [installation.id, name]);
  const invalid = errors.has(name) ? 'true' : undefined;
  const described =
    [describedBy(id, property, errors, name), loadError ? `${id}-load-error` : ''].filter(Boolean).join(' ') ||
    undefined;
  const value = String(props.value);
  const known = options?.some((option) => option.value === value) ?? false;
  return (
    <div class={`field ${invalid ? 'invalid' : ''}`}>
      <Label id={id} property={property} name={name} required={props.required} />
      {options ? (
        <select
          id={id}
          value={value}
          aria-invalid={invalid}
          aria-describedby={described}
          onChange={(event) => props.onChange((event.currentTarget as HTMLSelectElement).value)}
        >
          <option value="">(not set)</option>
          {value !== '' && !known ? <option value={value}>{`${value} (current value, not offered now)`}</option> : null}
          {options.map((option, index) => (
            <option key={`${index}-${option.value}`} value={option.value}>
              {option.label}
            </option>
          ))}
        </select>
      ) : (
        <input
          id={id}
          type="text"
          value={value}
          aria-invalid={invalid}
          aria-describedby={described}
          disabled={loading}
          onInput={(event) => props.onChange((event.currentTarget as HTMLInputElement).value)}
        />
      )}
      {loading ? (
        <p class="hint" role="status">
          Loading the options from the integration…
        </p>
      ) : null}
      {loadError ? (
        <div class="field-error" id={`${id}-load-error`} role="alert">
          <p>
            Could not load the options: {(loadError as Error).message}
            {loadError instanceof ApiError && loadError.code ? ` (${loadError.code})` : ''}. You can still type a value.
          </p>
          <button type="button" onClick={load}>
            Retry
          </button>
        </div>
      ) : null}
      <Describe id={id} property={property} errors={errors} name={name} />
    </div>
  );
}

const POLL_MS = 1500;
const POLL_FOR_MS = 10 * 60 * 1000;

/**
 * A `button` property: opens the URL the host hands out for it (urls.buttons, read fresh at the
 * click, never built here) in a new tab, then watches the installation until the flow has
 * stored the property.
 */
function ButtonProperty(props: {
  id: string;
  name: string;
  property: Extract<ConfigProperty, { type: 'button' }>;
  installation: Installation;
  required: boolean;
  errors: FieldErrors;
  onConnected(next: Installation): void;
}) {
  const { id, name, property, installation, errors } = props;
  const connected = isSet(
    Object.hasOwn(installation.configuration, name) ? installation.configuration[name] : undefined,
  );
  const [waiting, setWaiting] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [fallbackUrl, setFallbackUrl] = useState<string | null>(null);
  const timer = useRef<number | undefined>(undefined);
  const started = useRef(0);

  const stop = () => {
    if (timer.current !== undefined) clearTimeout(timer.current);
    timer.current = undefined;
    setWaiting(false);
  };
  useEffect(() => stop, []);

  const check = async () => {
    try {
      const fresh = await api.get<Installation>(`/v1/installations/${segment(installation.id)}`);
      const done = isSet(Object.hasOwn(fresh.configuration, name) ? fresh.configuration[name] : undefined);
      if (done || Date.now() - started.current > POLL_FOR_MS) {
        stop();
        props.onConnected(fresh);
        return;
      }
    } catch (caught) {
      stop();
      setError(caught);
      return;
    }
    timer.current = window.setTimeout(check, POLL_MS);
  };

  const start = async () => {
    setError(null);
    setFallbackUrl(null);
    try {
      const fresh = await api.get<Installation>(`/v1/installations/${segment(installation.id)}`);
      const buttons = fresh.urls?.buttons ?? {};
      const url = Object.hasOwn(buttons, name) ? safeHttpUrl(buttons[name]) : null;
      if (url === null) throw new Error(`The host handed out no http(s) URL for the button "${name}" (urls.buttons).`);
      setFallbackUrl(url);
      window.open(url, '_blank', 'noopener,noreferrer');
      started.current = Date.now();
      setWaiting(true);
      if (timer.current !== undefined) clearTimeout(timer.current);
      timer.current = window.setTimeout(check, POLL_MS);
    } catch (caught) {
      setError(caught);
    }
  };

  return (
    // biome-ignore lint/a11y/useSemanticElements: a fieldset brings its own border and legend layout
    <div class={`field field-button ${errors.has(name) ? 'invalid' : ''}`} role="group" aria-labelledby={`${id}-label`}>
      <p class="label" id={`${id}-label`}>
        {property.title || name}
        {props.required ? <span class="required"> (required)</span> : null} <span class="mono sub">{name}</span>
      </p>
      <p class={`connection ${connected ? 'connected' : 'not-connected'}`} role="status" aria-live="polite">
        {connected ? 'Connected' : waiting ? 'Waiting for the flow to finish in the other tab…' : 'Not connected'}
      </p>
      <button type="button" id={id} aria-describedby={property.description ? `${id}-hint` : undefined} onClick={start}>
        {connected ? `${property.button_text || 'Connect'} again` : property.button_text || 'Connect'}
      </button>
      {waiting ? (
        <>
          {' '}
          <button type="button" onClick={stop}>
            Stop waiting
          </button>
        </>
      ) : null}
      {waiting && fallbackUrl ? (
        <p class="hint">
          No new tab?{' '}
          <a href={fallbackUrl} target="_blank" rel="noopener noreferrer">
            Open the connection page
          </a>
          .
        </p>
      ) : null}
      <Describe id={id} property={property} errors={errors} name={name} />
      <ErrorAlert error={error} context="Could not start the connection" />
    </div>
  );
}
