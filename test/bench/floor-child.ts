// Child process entry for benchmarks: the floor of the dispatch comparison. A bare node:http server
// that answers each request with one isolated-vm call into a trivial function of one isolate (the
// asynchronous `apply` the sandbox workers use, request line in, text out): no Koa, no IPC, no
// host work, no runtime. What Node plus isolated-vm cost per request at least, beside workerd.
// With the argument `promise`, the function is async and its answer is awaited through
// isolated-vm (`result.promise`), as a fetch handler's must be.

import http from 'node:http';
import type { AddressInfo } from 'node:net';
import ivm from 'isolated-vm';

const isolate = new ivm.Isolate({ memoryLimit: 32 });
const context = await isolate.createContext();
const awaited = process.argv[2] === 'promise';
const handler = (await context.eval(
  `(${awaited ? 'async ' : ''}function handle(method, url) { return method === "GET" ? "ok" : url; })`,
  { reference: true },
)) as ivm.Reference<(method: string, url: string) => string>;

const server = http.createServer((req, res) => {
  handler
    .apply(undefined, [req.method ?? 'GET', req.url ?? '/'], {
      arguments: { copy: true },
      result: { copy: true, promise: awaited },
    })
    .then(
      (text) => {
        res.setHeader('content-type', 'text/plain');
        res.end(String(text));
      },
      () => {
        res.statusCode = 500;
        res.end();
      },
    );
});
server.listen(0, '127.0.0.1', () => {
  process.send!({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, pids: [process.pid] });
});
process.on('disconnect', () => process.exit(0));
