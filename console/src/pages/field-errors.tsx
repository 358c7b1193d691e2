// Puts the `details` of a 400/422 answer next to the fields they name: `{ pointer: "/channel" }`
// belongs to the field `channel`. Details that name no field on the form stay in the summary.
import { ApiError } from '../api/client.ts';

export interface FieldErrors {
  get(field: string): string[] | undefined;
  has(field: string): boolean;
  readonly size: number;
  /** Messages that name no known field (shown in the form's alert). */
  unmatched: string[];
  claim(fields: string[]): FieldErrors;
}

function decodePointerToken(token: string): string {
  return token.replaceAll('~1', '/').replaceAll('~0', '~');
}

export function fieldErrors(error: unknown, known?: string[]): FieldErrors {
  const byField = new Map<string, string[]>();
  const unmatched: string[] = [];
  if (error instanceof ApiError) {
    for (const detail of error.details) {
      const pointer = typeof detail.pointer === 'string' ? detail.pointer : '';
      const field = pointer.startsWith('/') ? decodePointerToken(pointer.slice(1).split('/')[0]) : '';
      if (field !== '' && (known === undefined || known.includes(field))) {
        const rest = pointer.slice(1).split('/').slice(1).map(decodePointerToken);
        const message = rest.length > 0 ? `${rest.join('/')}: ${detail.message}` : detail.message;
        byField.set(field, [...(byField.get(field) ?? []), message]);
      } else unmatched.push(pointer ? `${pointer}: ${detail.message}` : detail.message);
    }
  }
  const result: FieldErrors = {
    get: (field) => byField.get(field),
    has: (field) => byField.has(field),
    size: byField.size,
    unmatched,
    claim: (fields) => fieldErrors(error, fields),
  };
  return result;
}

export function FieldError(props: { id: string; messages: string[] | undefined }) {
  if (!props.messages || props.messages.length === 0) return null;
  return (
    <p class="field-error" id={props.id}>
      {props.messages.join('; ')}
    </p>
  );
}
