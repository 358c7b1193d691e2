// The dev loop's watcher: a burst of saves makes one reload; a new file anywhere in an integration
// folder counts; outside the folders only the recorded input files do; a new folder in a root counts.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { watchForChanges, type Watcher, type WatchTargets } from '../../../host/dev/watcher.ts';
import { TempDirs } from '../manifest/temp-integration.ts';

const temp = new TempDirs();
afterAll(() => temp.cleanup());
let watcher: Watcher | undefined;
afterEach(() => watcher?.close());

async function until(predicate: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

type Seen = { directory: string; name: string | null; counted: boolean }[];

function setUp(): {
  root: string;
  folder: string;
  outside: string;
  targets: WatchTargets;
  calls: { count: number };
  seen: Seen;
} {
  const root = temp.make({
    'greeter/platform-manifest.yaml': 'name: greeter\n',
    'greeter/src/index.ts': '1',
    'greeter/node_modules/dep/index.js': '1',
  });
  const outside = temp.make({ 'lib/used.ts': '1', 'lib/unused.ts': '1' });
  const folder = path.join(root, 'greeter');
  return {
    root,
    folder,
    outside,
    targets: { roots: [root], folders: [folder], files: [path.join(outside, 'lib/used.ts')] },
    calls: { count: 0 },
    seen: [],
  };
}

describe('watchForChanges', () => {
  it('makes one call for a burst of saves in an integration folder', async () => {
    const { folder, targets, calls, seen } = setUp();
    const seenAtCall: number[] = [];
    // A long debounce: the burst certainly falls inside it, however busy the machine.
    watcher = await watchForChanges(
      () => targets,
      async () => void (calls.count++, seenAtCall.push(seen.length)),
      { debounceMs: 1_000, onEvent: (event) => seen.push(event) },
    );
    for (let i = 0; i < 5; i++) writeFileSync(path.join(folder, 'src/index.ts'), String(i));
    await until(() => calls.count === 1);
    // Events arrive in order: once a later marker is seen, every event of the burst has been too.
    writeFileSync(path.join(folder, 'src/marker.ts'), 'x');
    await until(() => seen.some((event) => event.name === 'marker.ts'));
    const burst = seen.filter((event) => event.name === 'index.ts');
    expect(burst.length).toBeGreaterThan(0);
    expect(seen.findLastIndex((event) => event.name === 'index.ts')).toBeLessThan(seenAtCall[0]);
  });

  it('counts a new file in a new subfolder, but never watches node_modules inside the folder', async () => {
    const { folder, targets, calls } = setUp();
    watcher = await watchForChanges(
      () => targets,
      async () => void calls.count++,
      { debounceMs: 50 },
    );
    expect(watcher.directories().some((dir) => dir.includes('node_modules'))).toBe(false);
    expect(watcher.directories()).toContain(path.join(folder, 'src'));
    mkdirSync(path.join(folder, 'src/lib'));
    await until(() => calls.count === 1);
    // The new directory is watched after the call's refresh: a file written in it counts too.
    await until(() => watcher!.directoryCount() === 5);
    writeFileSync(path.join(folder, 'src/lib/new.ts'), 'x');
    await until(() => calls.count === 2);
  });

  it('outside the folders, counts only the recorded input files', async () => {
    const { outside, targets, calls, seen } = setUp();
    watcher = await watchForChanges(
      () => targets,
      async () => void calls.count++,
      { debounceMs: 50, onEvent: (event) => seen.push(event) },
    );
    writeFileSync(path.join(outside, 'lib/unused.ts'), '2');
    await until(() => seen.some((event) => event.name === 'unused.ts'));
    expect(seen.filter((event) => event.name === 'unused.ts').every((event) => !event.counted)).toBe(true);
    writeFileSync(path.join(outside, 'lib/used.ts'), '2');
    await until(() => calls.count === 1);
  });

  it('counts a new folder in a root, not a dot-folder such as a cache', async () => {
    const { root, targets, calls, seen } = setUp();
    watcher = await watchForChanges(
      () => targets,
      async () => void calls.count++,
      { debounceMs: 50, onEvent: (event) => seen.push(event) },
    );
    mkdirSync(path.join(root, '.cache'));
    await until(() => seen.some((event) => event.name === '.cache'));
    expect(seen.find((event) => event.name === '.cache')!.counted).toBe(false);
    mkdirSync(path.join(root, 'second'));
    await until(() => calls.count === 1);
  });
});
