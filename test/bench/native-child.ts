// Child process entry for benchmarks: the same trivial handler as a plain Koa route, so the
// sandboxed dispatch rate can be compared with native in the same run on the same machine.

import Koa from 'koa';
import type { AddressInfo } from 'node:net';

const app = new Koa();
app.use((ctx) => {
  ctx.body = 'ok';
});
const server = app.listen(0, '127.0.0.1', () => {
  process.send!({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, pids: [process.pid] });
});
process.on('disconnect', () => process.exit(0));
