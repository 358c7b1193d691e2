// Starting benchmark hosts in child processes. `prepareData` installs every fixture once in a
// throwaway database and stops once their setup events are delivered; a host started later on that
// database finds the installations already there, owes no setup events and so has created no
// isolate yet: its first request to each integration is truly cold, as after a host restart.

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

export async function withHost<T>(
  fixtures: string,
  options: object,
  run: (host: HostInfo, child: Child<HostInfo>) => Promise<T>,
): Promise<T> {
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
  const prepared = {
    dataPath: path.join(dir, 'host.db'),
    cacheDir: path.join(dir, 'bundles'),
    dispose: () => rmSync(dir, { recursive: true, force: true }),
  };
  try {
    await withHost(fixtures, { workers: 1, dataPath: prepared.dataPath, cacheDir: prepared.cacheDir }, (host) =>
      setupEventsDelivered(host.url),
    );
  } catch (error) {
    prepared.dispose();
    throw error;
  }
  return prepared;
}

/** Setup events still owed (pending or running) by the host's store, read from its metrics. */
async function owedSetupEvents(url: string): Promise<number> {
  const text = await (
    await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${BENCH_ADMIN_TOKEN}` } })
  ).text();
  const lines = [...text.matchAll(/^integration_host_owed_events\{status="(?:pending|running)"\} (\d+)$/gm)];
  if (lines.length !== 2)
    throw new Error("the bench data: the host's metrics do not say how many setup events it owes");
  return lines.reduce((sum, match) => sum + Number(match[1]), 0);
}

/** Resolves once the host delivered every setup event its installs owe (a minute at most). */
async function setupEventsDelivered(url: string): Promise<void> {
  const started = Date.now();
  while ((await owedSetupEvents(url)) > 0) {
    if (Date.now() - started > 60_000) throw new Error('the bench data: setup events still owed after a minute');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
