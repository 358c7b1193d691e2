// Multipart envelope generators for `POST /{version}`: parts with known, unknown, missing and
// repeated names; valid, broken and binary bodies; boundary and content-type games; truncation,
// padding past the size limit and huge part headers. Rendered to bytes by `renderEnvelope`.

import fc from 'fast-check';
import { jsonish, jsonObject, oddString } from './json.ts';

export interface PartPlan {
  name?: string;
  filename?: string;
  contentType?: string;
  padHeaderBytes: number;
  body: Uint8Array;
}

export interface EnvelopePlan {
  parts: PartPlan[];
  boundary: string;
  contentType: (boundary: string) => string | undefined;
  close: boolean;
  truncateAt?: number;
  preamble: string;
}

const encode = (text: string): Uint8Array => new TextEncoder().encode(text);
const json = (value: unknown): Uint8Array => encode(JSON.stringify(value) ?? 'null');

/** An `event` part's JSON: mostly plausible events for `installationIds`, sometimes junk. */
export function eventBody(installationIds: string[]): fc.Arbitrary<Uint8Array> {
  const installationId = fc.oneof(fc.constantFrom(...installationIds), fc.string({ maxLength: 10 }), jsonish(1));
  const request = fc.record(
    {
      method: fc.constantFrom('GET', 'POST', 'PUT', 'get', '', 'BREW', 'TRACE'),
      url: fc.oneof(fc.webUrl(), fc.string({ maxLength: 20 }), fc.constant('https://user:pw@x.test/')),
      headers: fc.oneof(
        fc.array(fc.tuple(fc.string({ maxLength: 8 }), fc.string({ maxLength: 8 })), { maxLength: 3 }),
        jsonish(1),
      ),
    },
    { requiredKeys: [] },
  );
  const event = fc.record(
    {
      type: fc.oneof(
        { weight: 4, arbitrary: fc.constantFrom('fetch', 'ui_render', 'installation_setup', 'space_view', 'nope') },
        jsonish(1),
      ),
      installationId: fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...installationIds) }, installationId),
      request: fc.oneof({ weight: 3, arbitrary: request }, jsonish(1)),
      componentId: fc.oneof(fc.constant('counter'), fc.string({ maxLength: 8 })),
      props: jsonish(2),
      eventId: fc.string({ maxLength: 8 }),
    },
    { requiredKeys: ['type', 'installationId'] },
  );
  return fc.oneof(
    { weight: 8, arbitrary: event.map(json) },
    { weight: 1, arbitrary: jsonish(2).map(json) },
    { weight: 1, arbitrary: oddString.map(encode) },
    { weight: 1, arbitrary: fc.uint8Array({ maxLength: 64 }) },
    {
      weight: 1,
      arbitrary: fc.constantFrom('{', '{"type":', '[]', 'null', '"x"', '{"installationId":"a"}\u0000').map(encode),
    },
  );
}

function part(name: fc.Arbitrary<string | undefined>, body: fc.Arbitrary<Uint8Array>): fc.Arbitrary<PartPlan> {
  return fc.record({
    name,
    filename: fc.option(fc.constantFrom('blob', 'a.json', '', '../../etc/passwd'), { nil: undefined }),
    contentType: fc.option(
      fc.constantFrom('application/json', 'application/octet-stream', 'text/plain; charset=latin1'),
      { nil: undefined },
    ),
    padHeaderBytes: fc.oneof({ weight: 8, arbitrary: fc.constant(0) }, fc.integer({ min: 1, max: 200_000 })),
    body,
  });
}

export function envelopePlan(installationIds: string[]): fc.Arbitrary<EnvelopePlan> {
  const event = part(fc.constant('event'), eventBody(installationIds));
  const other = part(
    fc.oneof(
      fc.constantFrom('environment', 'fetch-body', 'event', 'Event', 'event ', 'fetch_body', ''),
      fc.constant(undefined),
      fc.string({ maxLength: 12 }),
    ),
    fc.oneof(jsonish(2).map(json), fc.uint8Array({ maxLength: 256 }), oddString.map(encode)),
  );
  const wellFormed = fc.record({
    event,
    environment: fc.option(
      part(fc.constant('environment'), fc.oneof({ weight: 3, arbitrary: jsonObject(2) }, jsonish(2)).map(json)),
      { nil: undefined },
    ),
    fetchBody: fc.option(part(fc.constant('fetch-body'), fc.uint8Array({ maxLength: 256 })), { nil: undefined }),
  });
  const parts = fc.oneof(
    {
      weight: 4,
      arbitrary: wellFormed.map(({ event, environment, fetchBody }) =>
        [event, environment, fetchBody].filter((p) => p !== undefined),
      ),
    },
    {
      weight: 2,
      arbitrary: fc.tuple(event, fc.array(other, { maxLength: 2 })).map(([first, rest]) => [first, ...rest]),
    },
    { weight: 1, arbitrary: fc.array(fc.oneof(event, other), { maxLength: 5 }) },
  );
  const boundary = fc.oneof(
    { weight: 8, arbitrary: fc.stringMatching(/^[0-9A-Za-z'()+_,./:=?-]{1,70}$/) },
    {
      weight: 1,
      arbitrary: fc.oneof(fc.string({ maxLength: 90 }), fc.constantFrom('', ' ', '--', 'a b', '"q"', 'x'.repeat(300))),
    },
  );
  const proper: EnvelopePlan['contentType'] = (b) => `multipart/form-data; boundary=${b}`;
  const contentType = fc.oneof(
    { weight: 6, arbitrary: fc.constant(proper) },
    fc.constantFrom<EnvelopePlan['contentType']>(
      (b) => `multipart/form-data; boundary="${b}"`,
      (b) => `MULTIPART/FORM-DATA; charset=utf-8; boundary=${b}`,
      (b) => `multipart/form-data; boundary=${b}; boundary=other`,
      (b) => `multipart/form-data; boundary=${b}x`,
      () => 'multipart/form-data',
      (b) => `multipart/mixed; boundary=${b}`,
      () => 'application/json',
      () => undefined,
    ),
  );
  return fc.record({
    parts,
    boundary,
    contentType,
    close: fc.oneof({ weight: 5, arbitrary: fc.constant(true) }, fc.constant(false)),
    truncateAt: fc.oneof({ weight: 6, arbitrary: fc.constant(undefined) }, fc.nat()),
    preamble: fc.constantFrom('', '', 'preamble\r\n', '\r\n'),
  });
}

export function renderEnvelope(plan: EnvelopePlan): { headers: Record<string, string>; body: Buffer } {
  const chunks: Buffer[] = [Buffer.from(plan.preamble)];
  for (const p of plan.parts) {
    let head = `--${plan.boundary}\r\nContent-Disposition: form-data`;
    if (p.name !== undefined) head += `; name="${p.name}"`;
    if (p.filename !== undefined) head += `; filename="${p.filename}"`;
    head += '\r\n';
    if (p.contentType) head += `Content-Type: ${p.contentType}\r\n`;
    if (p.padHeaderBytes > 0) head += `X-Pad: ${'p'.repeat(p.padHeaderBytes)}\r\n`;
    chunks.push(Buffer.from(`${head}\r\n`), Buffer.from(p.body), Buffer.from('\r\n'));
  }
  if (plan.close) chunks.push(Buffer.from(`--${plan.boundary}--\r\n`));
  let body = Buffer.concat(chunks);
  if (plan.truncateAt !== undefined) body = body.subarray(0, plan.truncateAt % (body.length + 1));
  const type = plan.contentType(plan.boundary);
  // A header value Node refuses to send is not something a client can send either.
  const headers: Record<string, string> =
    type !== undefined && /^[\t\x20-\x7e]*$/.test(type) ? { 'content-type': type } : {};
  return { headers, body };
}
