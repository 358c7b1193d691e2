// The pieces of `npm run logs`: server-sent events read across arbitrary chunk boundaries, and an
// entry printed as one dispatch line plus indented console lines with control characters escaped.
import { describe, expect, it } from 'vitest';
import { formatEntry, terminalSafe } from '../../../host/cli/log-format.ts';
import { readSse } from '../../../host/cli/sse.ts';

async function* chunks(text: string, size: number): AsyncGenerator<Uint8Array> {
  const bytes = new TextEncoder().encode(text);
  for (let at = 0; at < bytes.length; at += size) yield bytes.slice(at, at + size);
}

async function collect(text: string, size: number) {
  const out = [];
  for await (const message of readSse(chunks(text, size))) out.push(message);
  return out;
}

describe('readSse', () => {
  it('yields event and data across every chunk boundary, skipping comments', async () => {
    const text =
      ': following x\n\nevent: dispatch\ndata: {"a":"é"}\n\n: keep-alive\n\r\nevent: dispatch\r\ndata: ' +
      '2\r\n\r\ndata: plain\n\n';
    for (const size of [1, 2, 3, 7, 1000]) {
      expect(await collect(text, size)).toEqual([
        { event: 'dispatch', data: '{"a":"é"}' },
        { event: 'dispatch', data: '2' },
        { event: 'message', data: 'plain' },
      ]);
    }
  });
});

describe('formatEntry', () => {
  it('prints the dispatch line, then each console line indented, continuation lines aligned', () => {
    const text = formatEntry({
      eventId: 'evt_1',
      integration: 'greeter',
      installationId: 'inst_1',
      type: 'fetch',
      status: 500,
      errorCode: 'ERR_SANDBOX_TIMEOUT',
      durationMs: 12,
      createdAt: '2026-01-02T03:04:05.678Z',
      requestId: 'abc',
      logs: [{ level: 'error', text: 'Error: boom\n    at fetch (src/index.ts:6:11)' }],
    });
    expect(text).toBe(
      '03:04:05.678 greeter inst_1 fetch 500 ERR_SANDBOX_TIMEOUT 12 ms evt_1 req=abc\n  error Error: ' +
        'boom\n            at fetch (src/index.ts:6:11)',
    );
  });

  it('shows escape sequences and other control characters instead of sending them to the terminal', () => {
    expect(terminalSafe('a\u001b[2Jb\u0007c\u009bd\te')).toBe('a\\x1b[2Jb\\x07c\\x9bd\te');
    // Bidi overrides and Unicode line separators too, as in the host log.
    expect(terminalSafe('x\u202ey\u2028z')).toBe('x\\u202ey\\u2028z');
  });
});
