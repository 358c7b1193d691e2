// Starting benchmark hosts in child processes. `prepareData` installs every fixture once in a
// throwaway database and stops; a host started later on that database finds the installations
// already there, sends no setup events and so has created no isolate yet: its first request to
// each integration is truly cold, as after a host restart.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startChild, type Child } from './children.ts';

/** The admin token every bench host is started with (host-child.ts). */
export const BENCH_ADMIN_TOKEN = 'bench-admin-token-0123456789';

export interface HostInfo {
  url: string;
  pids: number[];
  endpoints: Record<string, string>;
}

export interface PreparedData {
  dataPath: string;
  cacheDir: string;
  dispose(): void;
}

export async function startHost(fixtures: string, options: object): Promise<Child<HostInfo>> {
  return startChild<HostInfo>('./host-child.ts', [JSON.stringify({ dirs: [fixtures], ...options })]);
}

export async function withHost<T>(fixtures: string, options: object, run: (host: HostInfo, child: Child<HostInfo>) => Promise<T>): Promise<T> {
  const child = await startHost(fixtures, options);
  try {
    return await run(child.info, child);
  } finally {
    await child.stop();
  }
}

/** Installs every integration of `fixtures` into a fresh database (and bundles them into a fresh cache). */
export async function prepareData(fixtures: string): Promise<PreparedData> {
  const dir = mkdtempSync(path.join(tmpdir(), 'ih-bench-data-'));
  const prepared = { dataPath: path.join(dir, 'host.db'), cacheDir: path.join(dir, 'bundles'), dispose: () => rmSync(dir, { recursive: true, force: true }) };
  try {
    await withHost(fixtures, { workers: 1, dataPath: prepared.dataPath, cacheDir: prepared.cacheDir }, async () => undefined);
  } catch (error) {
    prepared.dispose();
    throw error;
  }
  return prepared;
}
