// Child process entry for the streaming bench: an upstream that serves `GET /bytes/<n>` as n bytes
// in 64 KiB writes, honouring backpressure, on a free loopback port; sends `{ url, pids }` over IPC.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

const chunk = Buffer.alloc(64 * 1024, 0x61);
const server = http.createServer((req, res) => {
  const total = Number(/^\/bytes\/(\d+)$/.exec(req.url ?? '')?.[1] ?? NaN);
  if (!Number.isSafeInteger(total)) return void res.writeHead(404).end();
  res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(total) });
  let sent = 0;
  const pump = () => {
    while (sent < total) {
      const size = Math.min(chunk.length, total - sent);
      sent += size;
      if (!res.write(size === chunk.length ? chunk : chunk.subarray(0, size))) return void res.once('drain', pump);
    }
    res.end();
  };
  pump();
});
server.listen(0, '127.0.0.1', () => {
  process.send!({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, pids: [process.pid] });
});
process.on('disconnect', () => process.exit(0));
