// Keeps this host serving the current version of every published integration: loaded at start,
// swapped in when the store's current version moves (announced on PostgreSQL, polled as the
// safety net), each version written into a private folder from its stored archive and served with
// its stored bundle. In-flight dispatches finish on the old build; the next runs the new one.

import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import type { Logger } from '../common/logger.ts';
import type { IntegrationRegistry } from '../integrations/registry.ts';
import { formatProblem } from '../manifest/format.ts';
import { loadPublishedIntegration, type LoadOptions } from '../manifest/load.ts';
import type { IntegrationBundle, LoadedIntegration } from '../manifest/types.ts';
import { writeFiles } from './archive-files.ts';
import { readArchive } from './archive-read.ts';
import type { PublishedVersion, VersionStore } from './model.ts';

export interface ServingDeps {
  versions: VersionStore;
  registry: IntegrationRegistry;
  sandbox: { register(integration: string, bundle: IntegrationBundle): void };
  loadOptions: LoadOptions;
  /** Whether a published version takes the place of a --dir folder of the same name on this host. */
  publishedOverDir: boolean;
  /** How often to look at the store's revision (ms); 0 = never. */
  pollMs: number;
  log: Logger;
  /** Called when a published integration starts serving here that did not before (the dev installation). */
  onServing?(integration: LoadedIntegration): Promise<void>;
}

export interface PublishedServing {
  /** Loads every current version (before the sandbox starts: the caller registers what the registry holds). */
  start(): Promise<void>;
  /** Reads the current versions again and swaps in each that changed; resolves once they serve here. */
  refresh(): Promise<void>;
  /** Loads these published integrations again from their folders (their stored secrets changed). */
  reload(names: ReadonlySet<string>): Promise<void>;
  stop(): Promise<void>;
}

/** `ih-published-<pid>-…`: the pid lets a later host remove what a killed one left behind. */
const WORK_PREFIX = `ih-published-${process.pid}-`;
const WORK_DIR = /^ih-published-(\d+)-/;

/** Removes the version folders of hosts on this machine that are gone (killed before they could). */
async function sweepLeftovers(): Promise<void> {
  for (const name of await readdir(tmpdir()).catch(() => [] as string[])) {
    const pid = Number(WORK_DIR.exec(name)?.[1] ?? Number.NaN);
    if (!Number.isInteger(pid) || pid === process.pid) continue;
    try {
      process.kill(pid, 0);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ESRCH')
        await rm(path.join(tmpdir(), name), { recursive: true, force: true });
    }
  }
}

const isServing = (integration: LoadedIntegration | undefined): boolean =>
  integration !== undefined && integration.status === 'ready' && integration.bundle !== undefined;

export function createPublishedServing(deps: ServingDeps): PublishedServing {
  let workDir: string | null = null;
  let folders = 0;
  let stopped = false;
  /** Names kept from a --dir folder on this host, each said once. */
  const yielded = new Set<string>();
  let tail: Promise<void> = Promise.resolve();
  let waiting: Promise<void> | null = null;

  const otherNames = (name: string) =>
    deps.registry
      .list()
      .map((entry) => entry.name)
      .filter((other) => other !== name);

  const load = async (folder: string, row: PublishedVersion): Promise<LoadedIntegration> => {
    const bundle: IntegrationBundle = {
      code: row.bundle,
      hash: row.bundleHash,
      ...(row.sourceMap !== null ? { map: row.sourceMap } : {}),
    };
    const loaded = await loadPublishedIntegration(folder, bundle, deps.loadOptions, otherNames(row.integration));
    return {
      ...loaded,
      published: {
        version: row.version,
        contentHash: row.contentHash,
        publishedBy: row.publishedBy,
        publishedAt: row.publishedAt,
      },
    };
  };

  /** Writes the version's files (read again with the upload's rules) into a new folder of its own. */
  const materialize = async (row: PublishedVersion): Promise<string> => {
    workDir ??= await mkdtemp(path.join(tmpdir(), WORK_PREFIX));
    const folder = path.join(workDir, String(++folders));
    await writeFiles(await readArchive(Readable.from([Buffer.from(row.archive)])), folder);
    return folder;
  };

  /** Puts `next` in the registry and the sandbox together (one synchronous step: dispatches see both or neither). */
  const swap = (next: LoadedIntegration): void => {
    deps.registry.set(next);
    if (next.status === 'ready' && next.bundle !== undefined) deps.sandbox.register(next.name, next.bundle);
  };

  const serve = async (integration: string, version: number): Promise<void> => {
    const current = deps.registry.get(integration);
    if (current?.builtin !== undefined) return;
    if (current !== undefined && current.published === undefined && !deps.publishedOverDir) {
      if (!yielded.has(integration))
        deps.log.warn(
          `publish: ${integration} is served from its --dir folder on this host; its published version ${version} ` +
            'is not (start the host with --published-over-dir to serve published versions instead)',
        );
      yielded.add(integration);
      return;
    }
    if (current?.published?.version === version) return;
    const row = await deps.versions.get(integration, version);
    if (row === undefined) return;
    const started = performance.now();
    const next = await load(await materialize(row), row);
    const ms = Math.round(performance.now() - started);
    if (next.status !== 'ready' && isServing(current)) {
      deps.log.warn(
        `publish: version ${version} of ${integration} does not load on this host ` +
          `(${next.errors.map(formatProblem).join('; ')}); version ${current?.published?.version ?? '?'} keeps serving`,
      );
      return;
    }
    if (current !== undefined && current.published === undefined)
      deps.log.info(`publish: ${integration} version ${version} takes the place of its --dir folder`);
    swap(next);
    const previous = current?.dir;
    if (previous !== undefined && current?.published !== undefined)
      setTimeout(() => void rm(previous, { recursive: true, force: true }), 30_000).unref();
    if (next.status === 'ready') {
      deps.log.info(`publish: ${integration} serves version ${version} (loaded in ${ms} ms)`);
      if (!isServing(current)) await deps.onServing?.(next);
    } else {
      deps.log.warn(
        `publish: ${integration} version ${version} is invalid on this host: ` +
          next.errors.map(formatProblem).join('; '),
      );
    }
  };

  const once = async (): Promise<void> => {
    for (const { integration, version } of await deps.versions.currents()) {
      try {
        await serve(integration, version);
      } catch (error) {
        deps.log.warn(`publish: cannot serve version ${version} of ${integration}: ${(error as Error).message}`);
      }
    }
  };

  // Refreshes run one after another; a caller arriving while one waits to start joins it.
  const refresh = (): Promise<void> => {
    if (waiting !== null) return waiting;
    const next = tail.then(() => {
      waiting = null;
      return once();
    });
    waiting = next;
    tail = next.catch(() => undefined);
    return next;
  };

  let revision = -1;
  let polling = false;
  const poll = async () => {
    const now = await deps.versions.revision();
    if (now !== revision) {
      revision = now;
      await refresh();
    }
  };
  const timer =
    deps.pollMs > 0
      ? setInterval(() => {
          if (polling || stopped) return;
          polling = true;
          poll()
            .catch((error: unknown) =>
              deps.log.warn(`publish: cannot look for new versions (${(error as Error).message.split('\n')[0]})`),
            )
            .finally(() => (polling = false));
        }, deps.pollMs)
      : undefined;
  timer?.unref();
  const unsubscribe = deps.versions.subscribe?.(() => {
    if (!stopped) refresh().catch(() => undefined);
  });

  return {
    async start() {
      await sweepLeftovers();
      revision = await deps.versions.revision();
      await once();
    },
    refresh,
    async reload(names) {
      const run = tail.then(async () => {
        for (const name of names) {
          const current = deps.registry.get(name);
          const version = current?.published?.version;
          if (current === undefined || version === undefined) continue;
          const row = await deps.versions.get(name, version);
          if (row === undefined) continue;
          const next = await load(current.dir, row);
          swap(next);
          if (next.status === 'ready') deps.log.info(`secrets: ${name} reloaded with its stored secrets`);
          else deps.log.warn(`secrets: ${name} is invalid: ${next.errors.map(formatProblem).join('; ')}`);
          if (!isServing(current) && isServing(next)) await deps.onServing?.(next);
        }
        // A current version that did not load here for want of these secrets may load now.
        await once();
      });
      tail = run.catch(() => undefined);
      await run;
    },
    async stop() {
      stopped = true;
      clearInterval(timer);
      unsubscribe?.();
      await tail;
      if (workDir !== null) await rm(workDir, { recursive: true, force: true });
    },
  };
}
