// Child process entry for benchmarks: the runtime without the host. A bare node:http server that
// answers each request with the bench's trivial integration run through our real runtime (one
// IntegrationIsolate from the runtime snapshot, the fetch event and envelope built as the host and
// worker build them, the answer checked as the host checks it), in one process: no Koa, no IPC,
// no installation lookup, no event log, no access log. Between the floor (floor-child.ts) and the
// host, it splits the gap to workerd into the runtime's share and the host's (docs/performance.md).

import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { bundleScript } from '../../host/manifest/bundle.ts';
import { IntegrationIsolate } from '../../host/sandbox/isolate.ts';
import { createRuntimeSnapshot } from '../../host/sandbox/runtime-snapshot.ts';
import { WARM_ENVIRONMENT_JSON } from '../../host/sandbox/warm-up.ts';
import { buildFetchEvent } from '../../host/server/fetch-event.ts';
import { checkSandboxResponse } from '../../host/server/send-sandbox-response.ts';
import { newEventId } from '../../host/dispatch/event-dispatcher.ts';
import { resolveOptions } from '../../host/config/options.ts';
import { buildRuntimeScript, buildSnapshotScript } from '../../sandbox-api/runtime/build.ts';
import { runtimeModules } from '../helpers/runtime-modules.ts';

const [fixtures, integration] = process.argv.slice(2);
if (fixtures === undefined || integration === undefined)
  throw new Error('usage: runtime-child.ts <fixtures> <integration>');
const bundle = await bundleScript(join(fixtures, integration), 'index.ts', { cacheDir: join(fixtures, '.cache') });
const runtime = {
  code: await buildRuntimeScript(),
  snapshot: createRuntimeSnapshot(await buildSnapshotScript()),
  modules: await runtimeModules(),
};
const INSTALLATION = 'inst_runtime_only';
const isolate = new IntegrationIsolate(integration, bundle.code, runtime, resolveOptions({}).limits, {
  fetch: async () => ({ ok: false, code: 'TypeError', message: 'no egress in the bench' }),
  lateLog: () => undefined,
});

const server = http.createServer((req, res) => {
  const event = { ...buildFetchEvent(INSTALLATION, req, 'http://127.0.0.1', req.url ?? '/'), eventId: newEventId() };
  req.resume();
  isolate
    .dispatch({
      eventId: event.eventId,
      installationId: INSTALLATION,
      eventJson: JSON.stringify(event),
      environmentJson: WARM_ENVIRONMENT_JSON,
      fetchBody: null,
      requestUrl: event.request.url,
    })
    .then(({ response }) => {
      const answer = checkSandboxResponse(response);
      res.statusCode = answer.status;
      for (const [name, values] of answer.headers) res.setHeader(name, values.length === 1 ? values[0] : values);
      res.end(answer.body);
    })
    .catch((error: unknown) => {
      res.statusCode = 500;
      res.end(String(error));
    });
});
server.listen(0, '127.0.0.1', () => {
  const { port } = server.address() as AddressInfo;
  process.send!({
    url: `http://127.0.0.1:${port}/v1/integrations/${integration}/installations/${INSTALLATION}`,
    pids: [process.pid],
  });
});
// An orderly exit either way, so that a profile asked for with --cpu-prof is written.
process.on('disconnect', () => process.exit(0));
process.on('SIGTERM', () => process.exit(0));
