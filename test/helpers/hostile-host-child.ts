// Child process for host-survives-suite.test.ts: a real host in its own process, the one that must
// never exit. Usage: node --no-node-snapshot hostile-host-child.ts '<HostOptionsInput as JSON>';
// prints one JSON line { url, endpoints } once listening, stops on SIGTERM.

import { createHost } from '../../host/index.ts';
import { createMemoryLogger } from '../../host/common/logger.ts';
import { withDevDefaults } from '../../host/config/dev-env.ts';

const options = JSON.parse(process.argv[2] ?? '{}');
const host = await createHost({
  port: 0,
  dataPath: ':memory:',
  logger: createMemoryLogger(),
  env: withDevDefaults(process.env).env,
  ...options,
});
const endpoints = Object.fromEntries(
  host.devInstallations.flatMap((dev) =>
    dev.installation ? [[dev.integration, dev.installation.urls.publicEndpoint]] : [],
  ),
);
process.stdout.write(`${JSON.stringify({ url: host.url, endpoints })}\n`);
process.once('SIGTERM', () => {
  host.close().then(
    () => process.exit(0),
    () => process.exit(1),
  );
});
