// A `sourceMappingURL` comment naming a file outside the integration's folder must never lead the
// build there: a FIFO (esbuild would wait for a writer forever), /dev/zero (read without end), or
// another folder's source map (its names would label the integration's stack traces). The build
// finishes, reads none of them, and the integration's own stack maps to its own file.
import {
  constants,
  closeSync,
  cpSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { execFileSync, spawn } from 'node:child_process';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { stop } from 'esbuild';
import { afterAll, describe, expect, it } from 'vitest';
import { bundleScript } from '../../host/manifest/bundle.ts';
import { createStackMapper, scriptFilename } from '../../host/sandbox/stack-map.ts';
import { endpointOf, startTestHost } from '../helpers/host.ts';

const FIXTURE = 'fixtures/hostile/source-map-comment';
const PLACEHOLDER = './named-by-the-test.map';
/** Resident memory the esbuild service may reach while building this tiny integration. */
const ESBUILD_RSS_CEILING_BYTES = 512 * 1024 * 1024;
const roots: string[] = [];
afterAll(() => {
  for (const root of roots) rmSync(root, { recursive: true, force: true });
});

function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  roots.push(dir);
  return dir;
}

/** A fixtures root with the hostile integration whose comments name `target`; and a folder beside it. */
function hostileRoot(target: (outside: string) => string): { root: string; folder: string; outside: string } {
  const root = tempDir('source-map-comment-');
  const outside = tempDir('source-map-outside-');
  const folder = join(root, 'source-map-comment');
  cpSync(FIXTURE, folder, { recursive: true });
  const index = join(folder, 'index.ts');
  writeFileSync(index, readFileSync(index, 'utf8').replaceAll(PLACEHOLDER, target(outside)));
  return { root, folder, outside };
}

/**
 * Child process ids of this process (the esbuild service among them). Without /proc's children
 * lists none are seen: a read of /dev/zero then fails the test at its timeout instead.
 */
function childPids(): number[] {
  try {
    return readdirSync(`/proc/${process.pid}/task`).flatMap((task) => {
      const listed = readFileSync(`/proc/${process.pid}/task/${task}/children`, 'utf8').trim();
      return listed === '' ? [] : listed.split(/\s+/).map(Number);
    });
  } catch {
    return [];
  }
}

function esbuildRss(): number {
  let total = 0;
  for (const pid of childPids()) {
    try {
      if (!readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('esbuild')) continue;
      const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
      total += Number(kb ?? 0) * 1024;
    } catch {
      // The child exited between the listing and the read.
    }
  }
  return total;
}

/** Whether some process holds `fifo` open for reading (a non-blocking open for writing then succeeds). */
function fifoHasReader(fifo: string): boolean {
  try {
    closeSync(openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK));
    return true;
  } catch {
    return false; // ENXIO: nobody reads it.
  }
}

/**
 * The bundle, or a failure as soon as the build is seen doing what it must not: holding `fifo`
 * open (then released by the open above, so a regression fails instead of hanging the suite) or
 * growing esbuild past a ceiling no such build needs (a read of /dev/zero; esbuild is stopped).
 */
async function buildWatched(folder: string, fifo?: string): Promise<Awaited<ReturnType<typeof bundleScript>>> {
  const build = bundleScript(folder, 'index.ts', { cacheDir: tempDir('source-map-cache-') });
  let settled = false;
  const watch = new Promise<never>((_, reject) => {
    const check = () => {
      if (settled) return;
      if (fifo !== undefined && fifoHasReader(fifo)) return reject(new Error(`the build opened the FIFO ${fifo}`));
      const rss = esbuildRss();
      if (rss > ESBUILD_RSS_CEILING_BYTES) {
        // Stopped, or it would go on reading after this test fails (the next build restarts it).
        void stop();
        return reject(new Error(`esbuild grew to ${rss} bytes`));
      }
      setTimeout(check, 20);
    };
    check();
  });
  try {
    return await Promise.race([build, watch]);
  } finally {
    settled = true;
  }
}

/** The 1-based line and column of `needle` in `text`. */
function positionOf(text: string, needle: string): { line: number; column: number } {
  const lines = text.split('\n');
  const line = lines.findIndex((candidate) => candidate.includes(needle));
  expect(line, `"${needle}" not found`).toBeGreaterThanOrEqual(0);
  return { line: line + 1, column: lines[line].indexOf(needle) + 1 };
}

describe('source map comments naming files outside the folder', () => {
  it('finishes the build without opening a FIFO named by path or file URL', async () => {
    const forms = [
      (fifo: string) => fifo,
      (fifo: string) => pathToFileURL(fifo).href,
      (fifo: string) => `../../${basename(dirname(fifo))}/fifo.map`,
    ];
    for (const form of forms) {
      let fifo = '';
      const { folder } = hostileRoot((outside) => {
        fifo = join(outside, 'fifo.map');
        execFileSync('mkfifo', [fifo]);
        return form(fifo);
      });
      const bundle = await buildWatched(folder, fifo);
      expect(bundle.code).toContain('own stack');
    }
  }, 60_000);

  it('lets `npm run check` finish on a FIFO named by the comment, the integration ready', async () => {
    let fifo = '';
    const { root } = hostileRoot((outside) => {
      fifo = join(outside, 'fifo.map');
      execFileSync('mkfifo', [fifo]);
      return fifo;
    });
    const child = spawn(process.execPath, ['--no-node-snapshot', 'host/cli.ts', 'check', root], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    // Fails (and releases the reader) the moment anything opens the FIFO, instead of hanging.
    let opened = false;
    const watch = async (): Promise<void> => {
      while (child.exitCode === null && child.signalCode === null) {
        if (fifoHasReader(fifo)) {
          opened = true;
          return;
        }
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    };
    await Promise.all([exited, watch()]);
    expect(opened).toBe(false);
    expect(output).toMatch(/1 ready/);
    expect(await exited).toBe(0);
  }, 60_000);

  it('finishes the build without reading /dev/zero', async () => {
    for (const target of ['/dev/zero', 'file:///dev/zero', '../../../../../../../../dev/zero']) {
      const { folder } = hostileRoot(() => target);
      const bundle = await buildWatched(folder);
      expect(bundle.code).toContain('own stack');
    }
  }, 60_000);

  it('never uses another folder’s source map: the stack maps to the integration’s own file', async () => {
    const leaked = 'leaked-outside-name';
    const { root, folder, outside } = hostileRoot((dir) => {
      const map = {
        version: 3,
        file: 'index.js',
        sources: [`${leaked}.ts`],
        names: ['leakedOutsideSymbol'],
        mappings: 'AAAA,SAASA;AACA',
      };
      writeFileSync(join(dir, 'outside.map'), JSON.stringify(map));
      return join(dir, 'outside.map');
    });
    expect(readFileSync(join(outside, 'outside.map'), 'utf8')).toContain(leaked);
    const bundle = await buildWatched(folder);
    const map = bundle.map ?? '';
    expect(bundle.code).not.toContain(leaked);
    expect(map).not.toContain(leaked);
    expect(map).not.toContain('leakedOutsideSymbol');
    expect(JSON.parse(map).sources).toContain('index.ts');

    // The position of `new Error('own stack')` in the bundle maps back to index.ts, where it is.
    const at = positionOf(bundle.code, 'new Error("own stack")');
    const own = positionOf(readFileSync(join(folder, 'index.ts'), 'utf8'), "new Error('own stack')");
    const mapped = createStackMapper(
      'source-map-comment',
      map,
    )(`at whereAmI (${scriptFilename('source-map-comment')}:${at.line}:${at.column})`);
    expect(mapped).toBe(`at whereAmI (index.ts:${own.line}:${own.column})`);

    // And in the host's log, as the issue saw it.
    const host = await startTestHost({ dirs: [root], cacheDir: tempDir('source-map-cache-') });
    try {
      expect(host.integrations.find((integration) => integration.name === 'source-map-comment')?.status).toBe('ready');
      const response = await fetch(endpointOf(host, 'source-map-comment'));
      expect(response.status).toBe(200);
      const page = await (await host.admin('/v1/integrations/source-map-comment/events')).json();
      const logs: { text: string }[] = page.items.flatMap((item: { logs?: { text: string }[] }) => item.logs ?? []);
      const stack = logs.find((log) => log.text.startsWith('stack:'));
      expect(stack?.text).toContain(`index.ts:${own.line}:`);
      expect(JSON.stringify(logs)).not.toContain(leaked);
    } finally {
      await host.close();
    }
  }, 60_000);
});
