// npm libraries written for the Web platform, run unchanged inside integrations through the real
// host: hono's streaming helpers, and the AI SDK that GitBook's slack integration imports (against
// a loopback stand-in for OpenAI that streams its answer). Streaming steps are gated on the other
// side, so a host that buffered would deadlock instead of pass.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { endpointOf, startTestHost, type TestHost } from '../helpers/host.ts';

let host: TestHost;
let server: http.Server;
let base = '';
/** Gates: a request to /gate/<name> waits until the test opens <name> (before or after it arrives). */
const gates = new Map<string, () => void>();
const opened = new Set<string>();
function open(name: string): void {
  opened.add(name);
  gates.get(name)?.();
}
/** OpenAI's chat completions, streamed: the answer's pieces, each sent once the test releases it. */
let releaseRest: (() => void) | null = null;

const chunk = (delta: Record<string, unknown>, finish: string | null = null) => {
  const choices = [{ index: 0, delta, finish_reason: finish }];
  const body = { id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'gpt-test', choices };
  return `data: ${JSON.stringify(body)}\n\n`;
};

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const path = req.url ?? '';
    if (path.startsWith('/gate/')) {
      const name = path.slice('/gate/'.length);
      if (opened.has(name)) return res.end('open');
      gates.set(name, () => res.end('open'));
      return;
    }
    if (path === '/openai/chat/completions') {
      let body = '';
      req.on('data', (data: Buffer) => (body += data));
      req.on('end', () => {
        const streaming = JSON.parse(body).stream === true;
        if (!streaming) {
          res.writeHead(200, { 'content-type': 'application/json' });
          return res.end(
            JSON.stringify({
              id: 'chatcmpl-1',
              object: 'chat.completion',
              created: 1,
              model: 'gpt-test',
              choices: [{ index: 0, message: { role: 'assistant', content: 'Hello there' }, finish_reason: 'stop' }],
              usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 },
            }),
          );
        }
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write(chunk({ role: 'assistant', content: 'Hel' }));
        releaseRest = () => {
          res.write(chunk({ content: 'lo there' }));
          res.write(chunk({}, 'stop'));
          res.end('data: [DONE]\n\n');
        };
      });
      return;
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  base = `http://127.0.0.1:${port}`;
  host = await startTestHost({ dirs: ['test/fixtures/web-libraries'], allowEgress: [`127.0.0.1:${port}`] });
});

afterAll(async () => {
  await host?.close();
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

async function* textChunks(response: Response): AsyncGenerator<string> {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  for (let next = await reader.read(); !next.done; next = await reader.read())
    yield decoder.decode(next.value, { stream: true });
}

describe('hono 4', () => {
  const route = (path: string) => `${endpointOf(host, 'hono-streams')}/${path}`;

  it('routes', async () => {
    expect(await (await fetch(route('json'))).json()).toEqual({ route: 'json', method: 'GET' });
  });

  it(
    'streamText reaches the client as it is written: the second ' + 'line is written after the client has the first',
    async () => {
      const response = await fetch(`${route('text')}?gate=${encodeURIComponent(`${base}/gate/hono`)}`);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toMatch(/^text\/plain/);
      let text = '';
      for await (const piece of textChunks(response)) {
        text += piece;
        if (text === 'first\n') open('hono');
      }
      expect(text).toBe('first\nsecond\n');
    },
  );

  it('streamSSE sends its events, a timer apart', async () => {
    const response = await fetch(route('sse'));
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const text = await response.text();
    expect(text.match(/^data: tick \d$/gm)).toEqual(['data: tick 1', 'data: tick 2', 'data: tick 3']);
  });

  it('stream sends bytes', async () => {
    const bytes = new Uint8Array(await (await fetch(route('bytes'))).arrayBuffer());
    expect(bytes.length).toBe(4096);
    expect([bytes[0], bytes[1024], bytes[2048], bytes[3072]]).toEqual([65, 66, 67, 68]);
  });
});

describe('the AI SDK (ai 5, @ai-sdk/openai 2), as GitBook’s slack integration loads it', () => {
  const route = (path: string) => `${endpointOf(host, 'ai-sdk')}/${path}?api=${encodeURIComponent(`${base}/openai`)}`;

  it('generateText answers with the model’s text', async () => {
    const response = await fetch(route('generate'));
    expect(await response.json()).toEqual({ text: 'Hello there' });
  });

  it('streamText relays the model’s answer to the client as it arrives', async () => {
    const response = await fetch(route('stream'));
    expect(response.status).toBe(200);
    let text = '';
    for await (const piece of textChunks(response)) {
      text += piece;
      // OpenAI's stand-in sends the rest only once the client has the first piece.
      if (text === 'Hel') releaseRest?.();
    }
    expect(text).toBe('Hello there');
  });
});
