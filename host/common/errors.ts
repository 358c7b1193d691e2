// The one error type of the host and its code → HTTP status catalogue.
// Every failure the host reports carries one of these codes; messages of 5xx codes must never
// carry internals (paths, stacks, isolate details).

import type { SourcePosition } from './code-frame.ts';

const ERROR_STATUS = {
  ERR_BAD_REQUEST: 400,
  ERR_VALIDATION: 400,
  ERR_MULTIPART_INVALID: 400,
  ERR_UNSUPPORTED_VERSION: 400,
  ERR_OAUTH_STATE_INVALID: 400,
  ERR_ARCHIVE_INVALID: 400,
  ERR_UNAUTHORIZED: 401,
  ERR_FORBIDDEN: 403,
  ERR_VISIBILITY_DENIED: 403,
  ERR_SCOPE_DENIED: 403,
  ERR_OAUTH_TICKET_INVALID: 403,
  ERR_PUBLISHER_FORBIDDEN: 403,
  ERR_NOT_FOUND: 404,
  ERR_INTEGRATION_NOT_FOUND: 404,
  ERR_INSTALLATION_NOT_FOUND: 404,
  ERR_COMPONENT_NOT_FOUND: 404,
  ERR_VERSION_NOT_FOUND: 404,
  ERR_METHOD_NOT_ALLOWED: 405,
  ERR_REQUEST_TIMEOUT: 408,
  ERR_INTEGRATION_INVALID: 409,
  ERR_SECRETS_KEY_MISSING: 409,
  ERR_PUBLISH_CONFLICT: 409,
  ERR_PAYLOAD_TOO_LARGE: 413,
  ERR_ARCHIVE_TOO_LARGE: 413,
  ERR_UNSUPPORTED_MEDIA_TYPE: 415,
  ERR_CONFIGURATION_INVALID: 422,
  ERR_CONTENTKIT_INVALID: 422,
  ERR_VERSION_INVALID: 422,
  ERR_VERSION_FAILED_TO_START: 422,
  ERR_HEADERS_TOO_LARGE: 431,
  ERR_INTERNAL: 500,
  ERR_QUOTA_EXCEEDED: 507,
  ERR_SANDBOX_CRASHED: 502,
  ERR_SANDBOX_BAD_RESPONSE: 502,
  ERR_COMPLETION_INVALID: 502,
  ERR_INTEGRATION_QUARANTINED: 503,
  ERR_INTEGRATION_THROTTLED: 503,
  ERR_SANDBOX_UNAVAILABLE: 503,
  ERR_STORE_UNAVAILABLE: 503,
  ERR_NOT_READY: 503,
  ERR_SANDBOX_TIMEOUT: 504,
  // Not HTTP-facing: reported by `npm run check` and startup, listed for completeness.
  ERR_MANIFEST_INVALID: 400,
  ERR_BUNDLE_FAILED: 400,
  ERR_OPTIONS_INVALID: 400,
  ERR_LISTEN_FAILED: 500,
} as const satisfies Record<`ERR_${string}`, number>;

export type ErrorCode = keyof typeof ERROR_STATUS;

const NOT_HTTP_FACING: ReadonlySet<ErrorCode> = new Set([
  'ERR_MANIFEST_INVALID',
  'ERR_BUNDLE_FAILED',
  'ERR_OPTIONS_INVALID',
  'ERR_LISTEN_FAILED',
]);

/** The codes an HTTP answer with this status may carry (the API description lists them per status). */
export function httpErrorCodesOf(status: number): ErrorCode[] {
  return (Object.keys(ERROR_STATUS) as ErrorCode[]).filter(
    (code) => ERROR_STATUS[code] === status && !NOT_HTTP_FACING.has(code),
  );
}

export interface ErrorDetail {
  pointer?: string;
  message: string;
  /** A problem in a source file (a bundling error): the file, relative to the integration folder, and where. */
  source?: SourcePosition & { file: string };
}

export class HostError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly details?: ErrorDetail[];

  constructor(code: ErrorCode, message: string, details?: ErrorDetail[]) {
    super(message);
    this.name = 'HostError';
    this.code = code;
    this.status = ERROR_STATUS[code];
    if (details && details.length > 0) this.details = details;
  }

  /** The JSON body of docs/http-api.md; 5xx bodies carry only the code's public message. */
  toBody(): { error: { code: ErrorCode; message: string; details?: ErrorDetail[] } } {
    const error: { code: ErrorCode; message: string; details?: ErrorDetail[] } = {
      code: this.code,
      message: this.message,
    };
    if (this.details) error.details = this.details;
    return { error };
  }
}

export function isHostError(value: unknown): value is HostError {
  return value instanceof HostError;
}
