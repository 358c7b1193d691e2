// How the console shows a failed request: a role="alert" box with what the host said, its error
// code, HTTP status and request id (to find the line in the host log). Text only.
import { ApiError } from '../api/client.ts';

export function describeError(error: unknown): { title: string; message: string; meta: string | null } {
  if (error instanceof ApiError) {
    const meta = [
      error.status > 0 ? `HTTP ${error.status}` : null,
      error.code,
      error.requestId ? `request ${error.requestId}` : null,
    ]
      .filter(Boolean)
      .join(' · ');
    return { title: titleFor(error), message: error.message, meta };
  }
  return {
    title: 'Something went wrong in the console',
    message: error instanceof Error ? error.message : String(error),
    meta: null,
  };
}

function titleFor(error: ApiError): string {
  if (error.status === 0) return 'The host is unreachable';
  if (error.status === 401) return 'Signed out';
  if (error.status === 403) return 'Refused';
  if (error.status === 404) return 'Not found';
  if (error.status === 422) return 'The host refused these values';
  if (error.status >= 500) return 'The host could not do it';
  return 'The host refused the request';
}

export function ErrorAlert(props: { error: unknown; context?: string }) {
  if (props.error === null || props.error === undefined) return null;
  const { title, message, meta } = describeError(props.error);
  return (
    <div class="alert alert-error" role="alert">
      <p class="alert-title">{props.context ? `${props.context}: ${title}` : title}</p>
      <p>{message}</p>
      {meta ? <p class="alert-meta">{meta}</p> : null}
    </div>
  );
}

export function Notice(props: { children: preact.ComponentChildren; tone?: 'info' | 'success' | 'warning' }) {
  return (
    <div class={`alert alert-${props.tone ?? 'info'}`} role="status">
      {props.children}
    </div>
  );
}
