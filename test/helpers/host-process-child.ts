// Child process of host-process.ts: a real host in its own process (so a test can SIGKILL or
// SIGTERM it). Usage: node --no-node-snapshot host-process-child.ts '<HostOptionsInput as JSON>';
// logs to stdout, then prints `HOST-READY <json>` once listening; SIGTERM is a graceful shutdown.

import { createHost } from '../../host/index.ts';
import { withDevDefaults } from '../../host/config/dev-env.ts';

const options = JSON.parse(process.argv[2] ?? '{}');
const host = await createHost({ port: 0, env: withDevDefaults(process.env).env, ...options });
const endpoints = Object.fromEntries(
  host.devInstallations.flatMap((dev) =>
    dev.installation ? [[dev.integration, dev.installation.urls.publicEndpoint]] : [],
  ),
);
const ready = { url: host.url, endpoints, metricsUrl: host.metricsUrl ?? null, store: host.stores.description };
process.stdout.write(`HOST-READY ${JSON.stringify(ready)}\n`);
process.once('SIGTERM', () => {
  host.shutdown().then(
    () => process.exit(0),
    () => process.exit(1),
  );
});
