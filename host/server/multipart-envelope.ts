// Parses the platform's envelope (`event`, `environment`, `fetch-body`) from multipart/form-data with
// formidable, entirely in memory. Must never write a temporary file, buffer past the size limit,
// or decode `fetch-body` as text: its bytes reach the integration unmodified.

import type { IncomingMessage } from 'node:http';
import { Formidable, multipart } from 'formidable';
import { HostError } from '../common/errors.ts';
import { checkDeclaredLength, payloadTooLarge } from './read-body.ts';
import { jsonTextTooDeep, tooDeepMessage } from '../common/json-depth.ts';

const ENVELOPE_PARTS = ['event', 'environment', 'fetch-body'] as const;
type PartName = (typeof ENVELOPE_PARTS)[number];

export interface ParsedEnvelope {
  event: Record<string, unknown>;
  environment?: Record<string, unknown>;
  fetchBody: Uint8Array | null;
}

interface FormidableLikeError {
  code?: unknown;
  message?: unknown;
}

export function envelopeInvalid(reason: string): HostError {
  return new HostError('ERR_MULTIPART_INVALID', `multipart envelope is invalid: ${reason}`);
}

function explainFormidable(error: FormidableLikeError, part: string | undefined): HostError {
  const where = part ? ` (in part "${part}")` : '';
  // Formidable codes (FormidableError.js): 1013 no boundary, 1012 malformed, 1014 transfer-encoding.
  if (error.code === 1013) return envelopeInvalid('the content-type has no multipart boundary');
  if (error.code === 1002) return envelopeInvalid(`the request was aborted${where}`);
  if (error.code === 1014) return envelopeInvalid(`unsupported content-transfer-encoding${where}`);
  const message = String(error.message ?? '');
  // The parser's state names say where the stream stopped making sense.
  if (message.includes('state = START_BOUNDARY') || message.includes('state = START')) {
    return envelopeInvalid(
      'the body is not well-formed multipart: no part starts with the boundary of the content-type',
    );
  }
  if (message.includes('ended unexpectedly')) {
    return envelopeInvalid(`the body is not well-formed multipart${where}: it ends before the closing boundary`);
  }
  return envelopeInvalid(`the body is not well-formed multipart${where}`);
}

/** Collects every part's raw bytes; formidable only frames the stream. */
function collectParts(req: IncomingMessage, limitBytes: number): Promise<Map<PartName, Buffer>> {
  return new Promise((resolve, reject) => {
    const parts = new Map<PartName, Buffer[]>();
    let current: string | undefined;
    let settled = false;
    const fail = (error: HostError): void => {
      if (settled) return;
      settled = true;
      // Stop consuming: the error middleware drains the rest up to a bound (discard-body.ts) or
      // closes the connection; this parser never sees another byte.
      req.pause();
      reject(error);
    };
    // Our own onPart replaces formidable's file/field handling: no temp files (no uploadDir is
    // ever touched) and no text decoding of fields, so a field-style fetch-body stays binary-safe.
    // At most three parts follows from "known names, each once", checked as each part begins.
    const form = new Formidable({ enabledPlugins: [multipart] });
    form.onPart = (part) => {
      const name = part.name ?? '';
      current = name || undefined;
      if (!ENVELOPE_PARTS.includes(name as PartName)) {
        return fail(
          envelopeInvalid(
            name ? `unknown part "${name}" (expected ${ENVELOPE_PARTS.join(', ')})` : 'a part has no name',
          ),
        );
      }
      if (parts.has(name as PartName)) return fail(envelopeInvalid(`part "${name}" appears more than once`));
      const chunks: Buffer[] = [];
      parts.set(name as PartName, chunks);
      part.on('data', (chunk: Buffer) => {
        if (!settled) chunks.push(chunk);
      });
    };
    // bytesReceived counts the raw body (boundaries and part headers included).
    form.on('progress', (bytesReceived: number) => {
      if (bytesReceived > limitBytes) fail(payloadTooLarge(limitBytes));
    });
    form.parse(req).then(
      () => {
        if (settled) return;
        settled = true;
        resolve(new Map([...parts].map(([name, chunks]) => [name, Buffer.concat(chunks)])));
      },
      (error: FormidableLikeError) => fail(explainFormidable(error, current)),
    );
  });
}

function parseJsonPart(name: PartName, bytes: Buffer): Record<string, unknown> {
  let value: unknown;
  try {
    const text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    if (jsonTextTooDeep(text)) throw new Error(tooDeepMessage());
    value = JSON.parse(text);
  } catch (error) {
    throw envelopeInvalid(`part "${name}" is not valid JSON: ${(error as Error).message}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw envelopeInvalid(`part "${name}" must be a JSON object`);
  return value as Record<string, unknown>;
}

export async function parseMultipartEnvelope(req: IncomingMessage, limitBytes: number): Promise<ParsedEnvelope> {
  const mediaType = (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
  if (mediaType !== 'multipart/form-data') {
    throw new HostError('ERR_UNSUPPORTED_MEDIA_TYPE', 'the envelope must be sent as multipart/form-data');
  }
  checkDeclaredLength(req, limitBytes);
  const parts = await collectParts(req, limitBytes);
  const eventBytes = parts.get('event');
  if (!eventBytes) throw envelopeInvalid('part "event" is missing');
  const event = parseJsonPart('event', eventBytes);
  const environmentBytes = parts.get('environment');
  const environment = environmentBytes ? parseJsonPart('environment', environmentBytes) : undefined;
  const fetchBody = parts.get('fetch-body');
  return { event, environment, fetchBody: fetchBody && fetchBody.length > 0 ? new Uint8Array(fetchBody) : null };
}
