// The layering of host/ as the layout section of docs/architecture.md (linked from the README)
// states it: entry points at the root only, no import cycle between files of different folders, no
// domain importing the HTTP layer, Koa and isolated-vm each confined to the one folder that owns
// them, and that section naming every folder of host/ (and no folder that is gone).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

function sourceFiles(dir: string): string[] {
  const found: string[] = [];
  for (const name of readdirSync(join(ROOT, dir))) {
    const path = join(dir, name);
    if (statSync(join(ROOT, path)).isDirectory()) found.push(...sourceFiles(path));
    else if (/\.tsx?$/.test(name)) found.push(path);
  }
  return found;
}

const FILES = [...sourceFiles('host'), ...sourceFiles('sandbox-api')];
const SOURCES = new Map(FILES.map((file) => [file, readFileSync(join(ROOT, file), 'utf8')]));

/** Relative import and export-from specifiers of a file, resolved to repository paths. */
function importsOf(file: string): string[] {
  const specifiers = [...SOURCES.get(file)!.matchAll(/^(?:import|export)\b[^;]*?from\s+'(\.[^']+)'/gm)].map(
    (match) => match[1],
  );
  return specifiers.map((specifier) => relative(ROOT, resolve(ROOT, dirname(file), specifier)));
}

function packageImports(file: string): string[] {
  return [...SOURCES.get(file)!.matchAll(/^import\b[^;]*?from\s+'([^.][^']*)'/gm)].map((match) => match[1]);
}

/** Strongly connected components of the file graph that span more than one folder. */
function crossFolderCycles(): string[][] {
  const graph = new Map(FILES.map((file) => [file, importsOf(file).filter((target) => SOURCES.has(target))]));
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (file: string): void => {
    index.set(file, counter);
    low.set(file, counter++);
    stack.push(file);
    onStack.add(file);
    for (const target of graph.get(file)!) {
      if (!index.has(target)) {
        visit(target);
        low.set(file, Math.min(low.get(file)!, low.get(target)!));
      } else if (onStack.has(target)) low.set(file, Math.min(low.get(file)!, index.get(target)!));
    }
    if (low.get(file) !== index.get(file)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== file);
    if (new Set(component.map((entry) => dirname(entry))).size > 1) cycles.push(component);
  };
  for (const file of FILES) if (!index.has(file)) visit(file);
  return cycles;
}

describe('the layering of host/', () => {
  it('keeps only the entry points at the root of host/', () => {
    const loose = readdirSync(join(ROOT, 'host')).filter((name) => statSync(join(ROOT, 'host', name)).isFile());
    expect(loose.sort()).toEqual(['cli.ts', 'index.ts']);
  });

  it('has no import cycle between files of different folders', () => {
    expect(crossFolderCycles()).toEqual([]);
  });

  it('never imports the HTTP layer from a domain or from below it', () => {
    const upward = FILES.filter(
      (file) => !/^host\/(server|assembly|cli)\//.test(file) && !/^host\/(cli|index)\.ts$/.test(file),
    ).flatMap((file) =>
      importsOf(file)
        .filter((target) => target.startsWith('host/server/'))
        .map((target) => `${file} → ${target}`),
    );
    expect(upward).toEqual([]);
  });

  it('imports Koa only in server/ and isolated-vm only in the sandbox worker side', () => {
    const koa = FILES.filter((file) => packageImports(file).some((name) => name === 'koa' || name.startsWith('@koa/')));
    const ivm = FILES.filter((file) => packageImports(file).includes('isolated-vm'));
    expect(koa.filter((file) => !file.startsWith('host/server/'))).toEqual([]);
    expect(ivm.filter((file) => !file.startsWith('host/sandbox/'))).toEqual([]);
  });

  it('has every folder of host/ in the layout section of docs/architecture.md, and no other', () => {
    const doc = readFileSync(join(ROOT, 'docs/architecture.md'), 'utf8');
    const tree = doc.slice(doc.indexOf('## Layout'));
    const block = tree.slice(tree.indexOf('```'), tree.indexOf('```', tree.indexOf('```') + 3));
    // Folder lines under host/ are indented by two spaces: "  name/   what it owns".
    const documented = [...block.matchAll(/^ {2}([a-z-]+)\/ /gm)].map((match) => match[1]).sort();
    const folders = readdirSync(join(ROOT, 'host'))
      .filter((name) => statSync(join(ROOT, 'host', name)).isDirectory())
      .sort();
    expect(documented.length).toBeGreaterThan(10);
    expect(documented).toEqual(folders);
  });

  it("reaches the offenders' scheduling policy only through its entry point, and it never imports the sandbox", () => {
    const inside = (file: string) => file.startsWith('host/offenders/');
    const bypass = FILES.filter((file) => !inside(file)).flatMap((file) =>
      importsOf(file)
        .filter((target) => inside(target) && target !== 'host/offenders/index.ts')
        .map((target) => `${file} → ${target}`),
    );
    const upward = FILES.filter(inside).flatMap((file) =>
      importsOf(file)
        .filter((target) => !inside(target))
        .map((target) => `${file} → ${target}`),
    );
    expect(bypass).toEqual([]);
    expect(upward).toEqual([]);
  });

  it('keeps sandbox-api free of host imports (it is bundled into every integration)', () => {
    const leaks = FILES.filter((file) => file.startsWith('sandbox-api/')).flatMap((file) =>
      importsOf(file).filter((target) => target.startsWith('host/')),
    );
    expect(leaks).toEqual([]);
  });
});
