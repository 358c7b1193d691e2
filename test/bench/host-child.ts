// Child process entry for benchmarks: starts a host with the options given as JSON in argv[2]
// and sends its parent `{ url, pids, endpoints }` over IPC; exits when its parent disconnects.
// Like `npm run host`, it keeps its data in a database file (a temporary one unless `dataPath` is
// given) and writes an access-log line per request to stdout (the parent drains it); warnings
// (demotions of the bench's attackers) are dropped, errors go to stderr.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createHost } from '../../host/index.ts';
import { createConsoleLogger } from '../../host/common/logger.ts';
import type { HostOptionsInput } from '../../host/config/options.ts';
import { BENCH_ADMIN_TOKEN } from './hosts.ts';

const options = JSON.parse(process.argv[2] ?? '{}') as HostOptionsInput;
const consoleLogger = createConsoleLogger();
const logger = { info: consoleLogger.info, warn() {}, error: consoleLogger.error };
const dataDir = options.dataPath === undefined ? mkdtempSync(path.join(tmpdir(), 'ih-bench-host-')) : null;
const dataPath = dataDir === null ? options.dataPath : path.join(dataDir, 'host.db');
const host = await createHost({ port: 0, adminToken: BENCH_ADMIN_TOKEN, logger, ...options, dataPath });
const endpoints = Object.fromEntries(
  host.devInstallations.filter((d) => d.installation).map((d) => [d.integration, d.installation!.urls.publicEndpoint]),
);
process.send!({ url: host.url, pids: [process.pid, ...host.supervisor.workerPids()], endpoints });
const exit = () =>
  void host.close().then(() => {
    if (dataDir !== null) rmSync(dataDir, { recursive: true, force: true });
    process.exit(0);
  });
process.on('disconnect', exit);
process.on('SIGTERM', exit);
