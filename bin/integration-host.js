#!/usr/bin/env node
// The installed command: starts the Node this package needs (24, from its `node` dependency) with
// the flags the host needs, and runs host/cli.ts in it. Written for any Node ≥ 20; owns no
// behaviour of its own beyond finding that Node and passing signals and the exit status through.

import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const NEEDED_MAJOR = 24;

function nodeBinary() {
  if (Number(process.versions.node.split('.')[0]) === NEEDED_MAJOR) return process.execPath;
  try {
    const pinned = path.join(path.dirname(createRequire(import.meta.url).resolve('node/package.json')), 'bin', 'node');
    if (existsSync(pinned)) return pinned;
  } catch {
    // no `node` dependency installed: explained below
  }
  process.stderr.write(
    `integration-host runs on Node ${NEEDED_MAJOR} (isolated-vm's binary is ` +
      `built for it), and this is Node ${process.versions.node}.\n` +
      `Its \`node\` dependency brings Node ${NEEDED_MAJOR} when installed with scripts ` +
      `enabled: reinstall without --ignore-scripts, or run it with Node ${NEEDED_MAJOR}.\n`,
  );
  process.exit(1);
}

const flags = ['--no-node-snapshot', '--disable-warning=ExperimentalWarning'];
// Node strips types itself everywhere but under node_modules, where an installed package lives.
if (ROOT.split(path.sep).includes('node_modules'))
  flags.push('--import', new URL('./load-typescript.js', import.meta.url).href);

const child = spawn(nodeBinary(), [...flags, path.join(ROOT, 'host', 'cli.ts'), ...process.argv.slice(2)], {
  stdio: 'inherit',
  env: {
    ...process.env,
    INTEGRATION_HOST_INVOCATION: process.env.INTEGRATION_HOST_INVOCATION ?? 'npx integration-host',
  },
});
// A terminal's Ctrl-C reaches the whole process group, the child included, which stops gracefully
// on the first SIGINT and at once on a second: so SIGINT is not passed on. A signal sent to this
// process alone by a supervisor (SIGTERM, SIGHUP) is, and the child decides how to stop.
process.on('SIGINT', () => undefined);
for (const signal of ['SIGTERM', 'SIGHUP']) process.on(signal, () => child.kill(signal));
child.on('exit', (code, signal) => {
  if (signal === null) process.exit(code ?? 1);
  process.removeAllListeners(signal);
  process.kill(process.pid, signal);
});
