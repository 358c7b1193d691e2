// Child process entry for benchmarks: the floor of a design with a process boundary. The front is a
// bare node:http server; each request crosses to a second process over Node's IPC (structured
// clone, coalesced per turn as the host's are) for one isolated-vm call, and the text comes back
// the same way. No runtime, no host work: what any host keeping isolates out of its own process pays.

import { fork } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import ivm from 'isolated-vm';
import { batchedSender, type MessageBatch, unbatch } from '../../host/sandbox/ipc-batch.ts';

interface Ask {
  id: number;
  method: string;
  url: string;
}
interface Answer {
  id: number;
  text: string | null;
}

async function back(): Promise<void> {
  const isolate = new ivm.Isolate({ memoryLimit: 32 });
  const context = await isolate.createContext();
  const handler = (await context.eval('(function handle(method, url) { return method === "GET" ? "ok" : url; })', {
    reference: true,
  })) as ivm.Reference<(method: string, url: string) => string>;
  const send = batchedSender<Answer>((message) => process.send!(message));
  process.on('message', (message: Ask | MessageBatch<Ask>) =>
    unbatch(message, ({ id, method, url }) => {
      handler.apply(undefined, [method, url], { arguments: { copy: true }, result: { copy: true } }).then(
        (text) => send({ id, text: String(text) }),
        () => send({ id, text: null }),
      );
    }),
  );
  process.on('disconnect', () => process.exit(0));
  process.send!('ready');
}

async function front(): Promise<void> {
  const child = fork(fileURLToPath(import.meta.url), ['back'], {
    execArgv: ['--no-node-snapshot', '--disable-warning=ExperimentalWarning'],
    serialization: 'advanced',
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  await new Promise((resolve) => child.once('message', resolve));
  const waiting = new Map<number, http.ServerResponse>();
  let nextId = 0;
  const send = batchedSender<Ask>((message) => child.send(message));
  child.on('message', (message: Answer | MessageBatch<Answer>) =>
    unbatch(message, ({ id, text }) => {
      const res = waiting.get(id);
      if (res === undefined) return;
      waiting.delete(id);
      if (text === null) {
        res.statusCode = 500;
        res.end();
        return;
      }
      res.setHeader('content-type', 'text/plain');
      res.end(text);
    }),
  );
  const server = http.createServer((req, res) => {
    const id = nextId++;
    waiting.set(id, res);
    send({ id, method: req.method ?? 'GET', url: req.url ?? '/' });
  });
  server.listen(0, '127.0.0.1', () => {
    process.send!({
      url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
      pids: [process.pid, child.pid!],
    });
  });
  const exit = (): void => {
    child.kill('SIGTERM');
    process.exit(0);
  };
  process.on('disconnect', exit);
  process.on('SIGTERM', exit);
}

await (process.argv[2] === 'back' ? back() : front());
