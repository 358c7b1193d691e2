// Requests to a public endpoint: methods (known, WebDAV, made-up tokens), path suffixes with odd
// segments and encodings, queries, headers Node can send, and bodies of text or raw bytes.

import fc from 'fast-check';

export const method = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS') },
  {
    weight: 1,
    arbitrary: fc.constantFrom('PROPFIND', 'MKCOL', 'SEARCH', 'PURGE', 'QUERY', 'REPORT', 'TRACE', 'get', 'BREW'),
  },
  { weight: 1, arbitrary: fc.stringMatching(/^[A-Z]{1,10}$/) },
);

const segment = fc.oneof(
  fc.webSegment(),
  fc.constantFrom(
    '..',
    '.',
    '%2e%2e',
    '%2F',
    '%00',
    '%',
    '%zz',
    '~',
    '@',
    ':',
    ';x=1',
    'a%20b',
    '💥',
    '%F0%9F',
    '\u00e9',
  ),
);

/** What follows `/installations/<id>` (possibly nothing), with an optional query. */
export const pathSuffix = fc
  .record({
    segments: fc.array(segment, { maxLength: 4 }),
    slash: fc.boolean(),
    query: fc.option(fc.webQueryParameters(), { nil: undefined }),
  })
  .map(({ segments, slash, query }) => {
    const path = segments.map((s) => `/${encodeURI(s).replaceAll('%25', '%')}`).join('');
    return `${path}${slash ? '/' : ''}${query === undefined ? '' : `?${query}`}`;
  });

const headerName = fc.oneof(
  fc.stringMatching(/^[a-z][a-z0-9-]{0,15}$/),
  fc.constantFrom(
    'content-type',
    'content-encoding',
    'transfer-encoding',
    'expect',
    'x-forwarded-for',
    'x-forwarded-host',
    'cookie',
    'authorization',
    'connection',
    'upgrade',
    'te',
    'x-sandbox-verdict',
    'host',
  ),
);
const headerValue = fc.oneof(
  fc.stringMatching(/^[\x20-\x7e]{0,40}$/),
  fc.constantFrom(
    'application/json',
    'gzip',
    'chunked',
    '100-continue',
    'close',
    'keep-alive',
    'websocket',
    'Bearer x',
    'a'.repeat(4_000),
  ),
);

export const headers = fc.dictionary(headerName, headerValue, { maxKeys: 5 });

export const body = fc.oneof(
  fc.constant(undefined),
  fc.string({ maxLength: 200 }),
  fc.uint8Array({ maxLength: 512 }),
  fc.json({ maxDepth: 3 }),
);

/**
 * A complete request as raw text: request lines and header lines from right, odd and broken
 * parts. Framing is never left open (no Content-Length without its bytes), so every request
 * gets an answer instead of the server rightly waiting for the rest of a body.
 */
export const rawRequest = fc
  .record({
    method: fc.oneof(
      { weight: 4, arbitrary: fc.constantFrom('GET', 'POST', 'HEAD') },
      fc.constantFrom('get', 'G T', ''),
      fc.string({ maxLength: 8 }),
    ),
    target: fc.oneof(
      { weight: 4, arbitrary: fc.constant('/v1/integrations/hello/installations/ID') },
      fc.constantFrom('*', '', 'http://x/health', '/health?%', '/\u0000', '//'),
      fc.string({ maxLength: 20 }),
    ),
    version: fc.oneof(
      { weight: 4, arbitrary: fc.constant('HTTP/1.1') },
      fc.constantFrom('HTTP/1.0', 'HTTP/2.0', 'HTTP/1.1 ', 'http/1.1', ''),
    ),
    lines: fc.array(
      fc.oneof(
        fc.constantFrom(
          'Host: x',
          'Content-Length: -1',
          'Content-Length: 1, 2',
          'Transfer-Encoding: chunked, gzip',
          'Expect: 100-continue',
          'Expect: x',
          ' folded',
          'NoColon',
          ': empty',
          'X: \u0000',
        ),
        fc.stringMatching(/^[\x20-\x7e]{0,30}$/),
      ),
      { maxLength: 3 },
    ),
    chunked: fc.boolean(),
    headerBytes: fc.oneof({ weight: 5, arbitrary: fc.constant(0) }, fc.integer({ min: 8_000, max: 40_000 })),
    eol: fc.oneof({ weight: 6, arbitrary: fc.constant('\r\n') }, fc.constantFrom('\n', '\r')),
  })
  .map(({ method, target, version, lines, chunked, headerBytes, eol }) => {
    // Always a Host: Node answers an HTTP/1.1 request without one with its own bare 400 (RFC 9112).
    const framing = chunked ? ['Transfer-Encoding: chunked'] : [];
    const all = [
      `${method} ${target} ${version}`,
      'Host: fuzz',
      ...lines,
      ...framing,
      ...(headerBytes > 0 ? [`X-Pad: ${'p'.repeat(headerBytes)}`] : []),
      'Connection: close',
    ];
    return `${all.join(eol)}${eol}${eol}${chunked ? `5${eol}hello${eol}0${eol}${eol}` : ''}`;
  });
