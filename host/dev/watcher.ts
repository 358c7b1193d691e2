// Watches what the dev loop depends on and calls back once per burst of changes (debounced): the
// --dir roots (new or removed folders), every directory of each integration folder (node_modules
// and dot-folders excepted), and the directories of inputs outside the folders (only those files).
// Watches directories, not files, so an editor's save-by-rename is seen too. Decides nothing else.

import { watch, type FSWatcher } from 'node:fs';
import { readdir } from 'node:fs/promises';
import path from 'node:path';

export interface WatchTargets {
  /** Folders holding integration folders: any change may add or remove one. */
  roots: string[];
  /** Integration folders: any change inside may matter (a new file, a manifest edit). */
  folders: string[];
  /** Files outside those folders that bundles read (sandbox-api, hoisted node_modules). */
  files: string[];
}

export interface WatcherOptions {
  debounceMs?: number;
  /** Directories watched at most (inotify watches are a per-user budget). */
  maxDirectories?: number;
  onError?(message: string): void;
  /** Every file-system event seen, and whether it counted as a change (diagnostics, tests). */
  onEvent?(event: { directory: string; name: string | null; counted: boolean }): void;
}

export interface Watcher {
  /** Recomputes what to watch (after a reload added or dropped files). */
  refresh(): Promise<void>;
  /** How many directories are watched (diagnostics, tests). */
  directoryCount(): number;
  /** The watched directories (diagnostics, tests). */
  directories(): string[];
  close(): void;
}

/** Every directory under `folder` that may hold an integration's own files. */
async function directoriesOf(folder: string, budget: number): Promise<string[]> {
  const found: string[] = [];
  const queue = [folder];
  while (queue.length > 0 && found.length < budget) {
    const dir = queue.shift()!;
    found.push(dir);
    const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
    for (const entry of entries) {
      if (entry.isDirectory() && entry.name !== 'node_modules' && !entry.name.startsWith('.'))
        queue.push(path.join(dir, entry.name));
    }
  }
  return found;
}

/**
 * Starts watching `targets()` (resolves once the first set of directories is watched) and calls
 * `onChange` after `debounceMs` without further events. `onChange` never runs twice at once:
 * events during a run schedule one more run after it.
 */
export async function watchForChanges(
  targets: () => WatchTargets,
  onChange: () => Promise<void>,
  options: WatcherOptions = {},
): Promise<Watcher> {
  const debounceMs = options.debounceMs ?? 100;
  const maxDirectories = options.maxDirectories ?? 2_000;
  /** Directory → null (any entry matters) or the names that matter in it. */
  const watched = new Map<string, { watcher: FSWatcher; names: Set<string> | null }>();
  /** In a root, dot-names (caches, editor state) are never integration folders. */
  const roots = new Set<string>();
  let timer: NodeJS.Timeout | undefined;
  let running = false;
  let again = false;
  let closed = false;

  const schedule = (): void => {
    if (closed) return;
    clearTimeout(timer);
    timer = setTimeout(() => void run(), debounceMs);
  };

  const run = async (): Promise<void> => {
    if (running) {
      again = true;
      return;
    }
    running = true;
    try {
      await onChange();
    } catch (error) {
      options.onError?.(`reload failed: ${(error as Error).message}`);
    } finally {
      running = false;
    }
    await refresh();
    if (again) {
      again = false;
      schedule();
    }
  };

  const refresh = async (): Promise<void> => {
    if (closed) return;
    const { folders, files } = targets();
    const wanted = new Map<string, Set<string> | null>();
    roots.clear();
    for (const root of targets().roots) roots.add(path.resolve(root));
    for (const root of roots) wanted.set(root, null);
    for (const folder of folders) {
      for (const dir of await directoriesOf(path.resolve(folder), maxDirectories)) wanted.set(dir, null);
    }
    for (const file of files) {
      const dir = path.dirname(path.resolve(file));
      const names = wanted.get(dir);
      if (names === null) continue; // the whole directory is watched already
      wanted.set(dir, (names ?? new Set()).add(path.basename(file)));
    }
    for (const [dir, entry] of watched) {
      if (!wanted.has(dir)) {
        entry.watcher.close();
        watched.delete(dir);
      }
    }
    for (const [dir, names] of wanted) {
      const existing = watched.get(dir);
      if (existing !== undefined) {
        existing.names = names;
        continue;
      }
      if (watched.size >= maxDirectories) {
        options.onError?.(`watching only ${maxDirectories} directories; changes elsewhere need a restart`);
        break;
      }
      try {
        const entry: { watcher: FSWatcher; names: Set<string> | null } = {
          names,
          watcher: watch(dir, { persistent: true }, (_event, filename) => {
            const name = filename === null ? null : String(filename);
            const ignoredDotName =
              name !== null && roots.has(dir) && name.startsWith('.') && !folderNames(dir).has(name);
            const counted = !ignoredDotName && (entry.names === null || name === null || entry.names.has(name));
            options.onEvent?.({ directory: dir, name, counted });
            if (counted) schedule();
          }),
        };
        entry.watcher.on('error', () => {
          // The directory went away: the next refresh stops watching it; its removal is a change.
          entry.watcher.close();
          watched.delete(dir);
          schedule();
        });
        watched.set(dir, entry);
      } catch {
        // Vanished between the scan and the watch: the root's own watcher reports the change.
      }
    }
  };

  /** Names of watched folders directly inside `root` (a dot-named integration folder still counts). */
  const folderNames = (root: string): Set<string> =>
    new Set([...watched.keys()].filter((dir) => path.dirname(dir) === root).map((dir) => path.basename(dir)));

  await refresh();
  return {
    refresh,
    directoryCount: () => watched.size,
    directories: () => [...watched.keys()],
    close() {
      closed = true;
      clearTimeout(timer);
      for (const entry of watched.values()) entry.watcher.close();
      watched.clear();
    },
  };
}
