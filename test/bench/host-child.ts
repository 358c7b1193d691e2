// Child process entry for benchmarks: starts a host with the options given as JSON in argv[2]
// and prints one JSON line `{ url, pids, endpoints }`; exits when its parent disconnects.

import { createHost } from '../../host/index.ts';
import type { HostOptionsInput } from '../../host/config/options.ts';

const options = JSON.parse(process.argv[2] ?? '{}') as HostOptionsInput;
const quiet = { info() {}, warn() {}, error: (message: string) => process.stderr.write(`${message}\n`) };
const host = await createHost({ port: 0, dataPath: ':memory:', adminToken: 'bench-admin-token-0123456789', logger: quiet, ...options });
const endpoints = Object.fromEntries(host.devInstallations.filter((d) => d.installation).map((d) => [d.integration, d.installation!.urls.publicEndpoint]));
process.stdout.write(`${JSON.stringify({ url: host.url, pids: [process.pid, ...host.supervisor.workerPids()], endpoints })}\n`);
process.on('disconnect', () => void host.close().then(() => process.exit(0)));
process.on('SIGTERM', () => void host.close().then(() => process.exit(0)));
