// Component preview: renders a component (a manifest block, or any component id) of this
// installation through POST /v1/installations/:id/render, shows the ContentKit output as HTML,
// sends button actions with the current state, and renders the new state.
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, segment } from '../api/client.ts';
import type { RenderAnswer } from '../api/types.ts';
import { renderContentKit } from '../contentkit/render.ts';
import { safeHttpUrl } from '../contentkit/urls.ts';
import { ErrorAlert } from '../ui/alert.tsx';
import { useLoad } from '../ui/use-load.ts';
import { InstallationHeader, loadInstallation } from './installation.tsx';

const OTHER = '\u0000other';

const actionName = (action: unknown): string => String((action as { action?: unknown }).action);

interface Rendered {
  element: unknown;
  props: Record<string, unknown>;
}

function ContentKitView(props: {
  element: unknown;
  busy: boolean;
  stateRef: { current: Record<string, unknown> };
  onAction(action: Record<string, unknown>): void;
  onStateChange(): void;
}) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!box.current) return;
    box.current.replaceChildren(
      renderContentKit(props.element, {
        getState: () => props.stateRef.current,
        busy: props.busy,
        onAction: props.onAction,
        onStateChange: (key, value) => {
          props.stateRef.current = { ...props.stateRef.current, [key]: value };
          props.onStateChange();
        },
      }),
    );
  }, [props.element, props.busy]);
  return <div class="ck-root" ref={box} aria-busy={props.busy ? 'true' : 'false'} />;
}

/** What the platform would do for one of ContentKit's default actions. */
function PlatformAction(props: {
  action: Record<string, unknown>;
  onOpenModal(componentId: string, props: Record<string, unknown>): void;
}) {
  const { action } = props;
  const name = String(action.action);
  const url = typeof action.url === 'string' ? safeHttpUrl(action.url) : null;
  const modalProps =
    typeof action.props === 'object' && action.props !== null && !Array.isArray(action.props)
      ? (action.props as Record<string, unknown>)
      : {};
  return (
    <div class="alert alert-info" role="status">
      <p class="alert-title">{`The component asked the platform for “${name}”`}</p>
      {name === '@ui.url.open' || name === '@link.unfurl' ? (
        url ? (
          <p>
            {name === '@ui.url.open' ? 'Open ' : 'Unfurl '}
            <a href={url} target="_blank" rel="noopener noreferrer nofollow">
              {url}
            </a>
          </p>
        ) : (
          <p>{`Not an http(s) URL, so the console does not offer it: ${String(action.url ?? '')}`}</p>
        )
      ) : null}
      {name === '@ui.modal.open' && typeof action.componentId === 'string' ? (
        <p>
          <button type="button" onClick={() => props.onOpenModal(action.componentId as string, modalProps)}>
            {`Preview the modal’s component “${action.componentId}”`}
          </button>
        </p>
      ) : null}
      {name === '@ui.modal.close' ? <pre>{JSON.stringify(action.returnValue ?? null, null, 2)}</pre> : null}
    </div>
  );
}

export function PreviewPage(props: { id: string }) {
  const loaded = useLoad(() => loadInstallation(props.id), [props.id]);
  const blocks = loaded.data?.integration.blocks ?? [];
  const [choice, setChoice] = useState<string | null>(null);
  const [otherId, setOtherId] = useState('');
  const [propsText, setPropsText] = useState('{}');
  const [propsError, setPropsError] = useState<string | null>(null);
  const [rendered, setRendered] = useState<Rendered | null>(null);
  const [completed, setCompleted] = useState<{ returnValue: unknown } | null>(null);
  const [stateText, setStateText] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const [lastRender, setLastRender] = useState<string | null>(null);
  const [platformAction, setPlatformAction] = useState<Record<string, unknown> | null>(null);
  const stateRef = useRef<Record<string, unknown>>({});
  const componentIdRef = useRef('');

  const selected = choice ?? (blocks.length > 0 ? blocks[0].id : OTHER);
  const componentId = selected === OTHER ? otherId.trim() : selected;

  const send = async (body: Record<string, unknown>) => {
    setBusy(true);
    setError(null);
    try {
      const started = performance.now();
      const answer = await api.post<RenderAnswer>(`/v1/installations/${segment(props.id)}/render`, body);
      const ms = Math.round(performance.now() - started);
      if (answer.type === 'complete') {
        setCompleted({ returnValue: answer.returnValue });
        setLastRender(`The component completed the interaction (${ms} ms).`);
      } else {
        stateRef.current = answer.state && typeof answer.state === 'object' ? answer.state : {};
        setStateText(JSON.stringify(stateRef.current, null, 2));
        setRendered({ element: answer.element, props: answer.props ?? {} });
        setCompleted(null);
        setLastRender(`${body.action ? `Action “${actionName(body.action)}” handled` : 'Rendered'} in ${ms} ms.`);
      }
    } catch (caught) {
      setError(caught);
    } finally {
      setBusy(false);
    }
  };

  const renderFresh = async (event: Event) => {
    event.preventDefault();
    let parsed: unknown;
    try {
      parsed = JSON.parse(propsText === '' ? '{}' : propsText);
    } catch (caught) {
      setPropsError(`Props must be JSON: ${(caught as Error).message}`);
      return;
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
      setPropsError('Props must be a JSON object, for example {"start": 3}.');
      return;
    }
    setPropsError(null);
    if (componentId === '') {
      setError(new Error('Enter the id of the component to render.'));
      return;
    }
    componentIdRef.current = componentId;
    stateRef.current = {};
    await send({ componentId, props: parsed });
  };

  /**
   * A control's action. ContentKit's default actions (`@ui.…`, `@editor.…`, `@link.…`) belong to the
   * platform, not to the integration: the preview shows what the platform would do. Every other
   * action goes to the integration with the current state.
   */
  const act = (action: Record<string, unknown>) => {
    if (!rendered) return;
    const name = String(action.action);
    setPlatformAction(null);
    if (
      name === '@editor.node.updateProps' &&
      typeof action.props === 'object' &&
      action.props !== null &&
      !Array.isArray(action.props)
    ) {
      // The platform stores the new props on the node and renders again with them.
      void send({
        componentId: componentIdRef.current,
        props: action.props as Record<string, unknown>,
        state: stateRef.current,
      });
      return;
    }
    if (name.startsWith('@')) {
      setPlatformAction(action);
      return;
    }
    void send({ componentId: componentIdRef.current, props: rendered.props, state: stateRef.current, action });
  };

  /** `@ui.modal.open`: preview the modal's component with its props. */
  const openModal = async (componentId: string, props: Record<string, unknown>) => {
    setChoice(blocks.some((block) => block.id === componentId) ? componentId : OTHER);
    setOtherId(componentId);
    setPropsText(JSON.stringify(props));
    setPlatformAction(null);
    componentIdRef.current = componentId;
    stateRef.current = {};
    await send({ componentId, props });
  };

  if (loaded.error) return <ErrorAlert error={loaded.error} context="Could not load this installation" />;
  if (!loaded.data) return <p role="status">Loading…</p>;
  return (
    <section>
      <InstallationHeader context={loaded.data} current="preview" />
      <form class="preview-form" onSubmit={renderFresh}>
        <div class="field">
          <label for="preview-component">Component</label>
          <select
            id="preview-component"
            value={selected}
            onChange={(event) => setChoice((event.currentTarget as HTMLSelectElement).value)}
          >
            {blocks.map((block) => (
              <option key={block.id} value={block.id}>
                {`${block.title || block.id} (${block.id})`}
              </option>
            ))}
            <option value={OTHER}>Another component, by id…</option>
          </select>
        </div>
        {selected === OTHER ? (
          <div class="field">
            <label for="preview-component-id">Component id</label>
            <input
              id="preview-component-id"
              type="text"
              value={otherId}
              onInput={(event) => setOtherId((event.currentTarget as HTMLInputElement).value)}
            />
            <p class="hint">The componentId given to createComponent in the integration’s script.</p>
          </div>
        ) : null}
        <div class="field">
          <label for="preview-props">Props (JSON)</label>
          <textarea
            id="preview-props"
            rows={3}
            class="mono"
            value={propsText}
            aria-invalid={propsError ? 'true' : undefined}
            aria-describedby={propsError ? 'preview-props-error' : undefined}
            onInput={(event) => setPropsText((event.currentTarget as HTMLTextAreaElement).value)}
          />
          {propsError ? (
            <p class="field-error" id="preview-props-error" role="alert">
              {propsError}
            </p>
          ) : null}
        </div>
        <button type="submit" class="primary" disabled={busy}>
          {rendered ? 'Render again from the start' : 'Render'}
        </button>
      </form>
      <ErrorAlert error={error} context="The render failed" />
      <p class="sub" role="status" aria-live="polite">
        {busy ? 'Waiting for the integration…' : (lastRender ?? '')}
      </p>
      {rendered ? (
        <section class="panel preview-output" aria-label="Rendered component">
          <h2>Output</h2>
          <ContentKitView
            element={rendered.element}
            busy={busy}
            stateRef={stateRef}
            onAction={act}
            onStateChange={() => setStateText(JSON.stringify(stateRef.current, null, 2))}
          />
          <h3>State</h3>
          {/* biome-ignore lint/a11y/useAriaPropsSupportedByRole: tests find the pane by this label */}
          <pre class="state" aria-label="Component state">
            {stateText}
          </pre>
          <details>
            <summary>ContentKit JSON</summary>
            <pre>{JSON.stringify(rendered.element, null, 2)}</pre>
          </details>
        </section>
      ) : null}
      {platformAction ? <PlatformAction action={platformAction} onOpenModal={openModal} /> : null}
      {completed ? (
        <section class="panel">
          <h2>Completed</h2>
          <pre>{JSON.stringify(completed.returnValue ?? null, null, 2)}</pre>
        </section>
      ) : null}
    </section>
  );
}
