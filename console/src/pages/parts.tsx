// Pieces several views share: status badges, manifest problems, the pending reason.
import type { ConfigurationSchema, Installation } from '../api/types.ts';
import { parseProblem } from '../ui/format.ts';

export function StatusBadge(props: { status: string }) {
  const tone =
    props.status === 'ready' || props.status === 'active' || props.status === 'succeeded'
      ? 'good'
      : props.status === 'invalid' || props.status === 'failed'
        ? 'bad'
        : 'wait';
  return <span class={`badge badge-${tone}`}>{props.status}</span>;
}

export function Problems(props: { title: string; items: string[]; compact?: boolean; warning?: boolean }) {
  const problems = props.items.map(parseProblem);
  if (props.compact) {
    return (
      <details class="problems-compact">
        <summary>{props.title}</summary>
        <ul>
          {problems.map((problem, index) => (
            <li key={index}>
              {problem.file ? <span class="mono">{problem.file}</span> : null}
              {problem.pointer ? <span class="mono pointer"> {problem.pointer}</span> : null}
              {`: ${problem.message}`}
            </li>
          ))}
        </ul>
      </details>
    );
  }
  return (
    <table class={`list problems ${props.warning ? 'warnings' : ''}`}>
      <caption>{props.title}</caption>
      <thead>
        <tr>
          <th scope="col">File</th>
          <th scope="col">Pointer</th>
          <th scope="col">Problem</th>
        </tr>
      </thead>
      <tbody>
        {problems.map((problem, index) => (
          <tr key={index}>
            <td class="mono">{problem.file || '—'}</td>
            <td class="mono">{problem.pointer || '—'}</td>
            <td>{problem.message}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export function isSet(value: unknown): boolean {
  return value !== undefined && value !== null && value !== '';
}

/** Why an installation is pending: the required properties without a value, by title. */
export function pendingReasons(
  installation: Installation,
  schema: ConfigurationSchema | undefined,
  builtinWebhook: boolean,
): string[] {
  if (builtinWebhook) {
    const missing: string[] = [];
    if (!isSet(installation.configuration.url)) missing.push('URL');
    const events = installation.configuration.events;
    if (!Array.isArray(events) || events.length === 0) missing.push('Events');
    return missing;
  }
  const required = schema?.required ?? [];
  return required
    .filter(
      (name) => !isSet(Object.hasOwn(installation.configuration, name) ? installation.configuration[name] : undefined),
    )
    .map((name) => {
      const property =
        schema?.properties && Object.hasOwn(schema.properties, name) ? schema.properties[name] : undefined;
      const title = property?.title || name;
      return property?.type === 'button' ? `${title} (not connected yet)` : title;
    });
}
