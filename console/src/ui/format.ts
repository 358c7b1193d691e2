// Small pure formatters for the views: times, durations, statuses and manifest problems. They
// return strings for text nodes only.

export function formatTime(iso: string | null | undefined): string {
  if (!iso) return '—';
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return date.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'medium' });
}

export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms)) return '—';
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(2)} s`;
}

export interface Problem {
  file: string;
  pointer: string;
  message: string;
}

/** `file: /json/pointer: message` or `file: message` (docs/manifest.md#problems-and-warnings). */
export function parseProblem(text: string): Problem {
  const first = text.indexOf(': ');
  if (first === -1) return { file: '', pointer: '', message: text };
  const file = text.slice(0, first);
  const rest = text.slice(first + 2);
  if (rest.startsWith('/') || rest.startsWith(': ')) {
    const second = rest.indexOf(': ');
    if (second !== -1) return { file, pointer: rest.slice(0, second), message: rest.slice(second + 2) };
  }
  return { file, pointer: '', message: rest };
}

export function statusClass(status: number): 'ok' | 'client' | 'server' {
  if (status >= 500) return 'server';
  if (status >= 400) return 'client';
  return 'ok';
}

export function targetOf(installation: {
  target: string;
  space?: string;
  site?: string;
  space_selection?: 'all' | string[];
}): string {
  if (installation.target === 'space') return `space ${installation.space ?? '?'}`;
  if (installation.target === 'site') return `site ${installation.site ?? '?'}`;
  const selection = installation.space_selection;
  return (
    `organization ` +
    `(${selection === undefined || selection === 'all' ? 'all spaces' : `spaces: ${selection.join(', ')}`})`
  );
}
