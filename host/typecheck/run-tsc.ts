// Runs the TypeScript compiler (typescript 7, the native one: there is no JS API to call) on one
// integration with a generated config and turns its output into problems printed the way build
// errors are: `file:line:col: error TSnnnn: message` and a code frame. Reads and runs only; a
// missing compiler is an error naming the fix.

import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { codeFrame, formatLocated, lineOf } from '../common/code-frame.ts';
import { HostError } from '../common/errors.ts';
import { displayPath } from '../manifest/format.ts';
import { typecheckConfig, type TypecheckTarget } from './tsconfig.ts';

export interface TypeProblem {
  /** As shown: relative to the working directory when below it, like other problems. */
  file: string;
  line: number;
  column: number;
  code: string;
  message: string;
  /** The text of the line the problem is on, when the file could be read (for the code frame). */
  lineText?: string;
}

/** The problem's line (continuation lines of tsc's message after it) and, when its line is known, the code frame. */
export function typeProblemLines(problem: TypeProblem): string[] {
  const at = { line: problem.line, column: problem.column, lineText: problem.lineText ?? '' };
  const headline = formatLocated(problem.file, at, 'error', problem.message, problem.code);
  return [...headline.split('\n'), ...(problem.lineText === undefined ? [] : codeFrame(at))];
}

/** Each problem with the text of its line, read from its file (a file that cannot be read gets no frame). */
async function withLineTexts(problems: TypeProblem[]): Promise<TypeProblem[]> {
  const texts = new Map<string, Promise<string | undefined>>();
  const read = (file: string) => {
    if (!texts.has(file))
      texts.set(
        file,
        readFile(path.resolve(file), 'utf8').catch(() => undefined),
      );
    return texts.get(file)!;
  };
  return Promise.all(
    problems.map(async (problem) => {
      const text = await read(problem.file);
      return text === undefined ? problem : { ...problem, lineText: lineOf(text, problem.line) };
    }),
  );
}

/** The compiler's launcher script, or undefined when typescript is not installed. */
export function findTsc(): string | undefined {
  try {
    const manifest = createRequire(import.meta.url).resolve('typescript/package.json');
    const bin = path.join(path.dirname(manifest), 'bin', 'tsc');
    return existsSync(bin) ? bin : undefined;
  } catch {
    return undefined;
  }
}

const LINE = /^(.+?)\((\d+),(\d+)\): error (TS\d+): (.*)$/;

/**
 * tsc's `file(line,col): error TSnnnn: message` lines (continuations indented) as problems; paths resolved against
 * `cwd`.
 */
export function parseTscOutput(output: string, cwd: string): TypeProblem[] {
  const problems: TypeProblem[] = [];
  for (const raw of output.split(/\r?\n/)) {
    const match = LINE.exec(raw);
    if (match) {
      problems.push({
        file: displayPath(path.resolve(cwd, match[1])),
        line: Number(match[2]),
        column: Number(match[3]),
        code: match[4],
        message: match[5],
      });
    } else if (/^\s+\S/.test(raw) && problems.length > 0) {
      problems[problems.length - 1].message += `\n${raw}`;
    } else if (/^error (TS\d+): (.*)$/.test(raw)) {
      const [, code, message] = /^error (TS\d+): (.*)$/.exec(raw)!;
      problems.push({ file: displayPath(cwd), line: 1, column: 1, code, message });
    }
  }
  return problems;
}

/** Type-checks one integration (its script and what it imports), from its folder. */
export async function typecheckIntegration(target: TypecheckTarget): Promise<TypeProblem[]> {
  const { dir } = target;
  const tsc = findTsc();
  if (tsc === undefined) {
    throw new HostError(
      'ERR_OPTIONS_INVALID',
      'type-checking needs the TypeScript compiler (the typescript ' +
        'devDependency): run npm install, or pass --no-types to skip it',
    );
  }
  const configDir = await mkdtemp(path.join(os.tmpdir(), 'ih-typecheck-'));
  try {
    const config = path.join(configDir, 'tsconfig.json');
    await writeFile(config, JSON.stringify(typecheckConfig(target)));
    const { code, output } = await new Promise<{ code: number | null; output: string }>((resolve, reject) => {
      const child = spawn(process.execPath, [tsc, '-p', config, '--pretty', 'false'], {
        cwd: dir,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.on('error', reject);
      child.on('close', (exit) => resolve({ code: exit, output }));
    });
    const problems = parseTscOutput(output, dir);
    // A failing run that printed nothing we understand must not pass as "no type errors".
    if (code !== 0 && problems.length === 0) {
      throw new HostError(
        'ERR_OPTIONS_INVALID',
        `the TypeScript compiler failed on ${displayPath(dir)} (exit ${code}): ${output.trim().split('\n')[0] ?? ''}`,
      );
    }
    return await withLineTexts(problems);
  } finally {
    await rm(configDir, { recursive: true, force: true });
  }
}
