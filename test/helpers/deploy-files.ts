// Reads the operators' artefacts (Dockerfile, deploy/*.service) as their tools would, far enough
// for tests to run what they name: instructions of the final stage, exec-form arrays, unit keys.
import { readFileSync } from 'node:fs';

export interface Instruction {
  keyword: string;
  args: string;
}

/** The Dockerfile's instructions, continuation lines joined and comments dropped, split by stage. */
export function dockerfileStages(path: string): Instruction[][] {
  const logical = readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => !/^\s*#/.test(line))
    .join('\n')
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '');
  const stages: Instruction[][] = [[]];
  for (const line of logical) {
    const [, keyword, args] = /^(\S+)\s*(.*)$/.exec(line)!;
    const instruction = { keyword: keyword.toUpperCase(), args: args.trim() };
    if (instruction.keyword === 'FROM') stages.push([]);
    stages.at(-1)!.push(instruction);
  }
  return stages;
}

/** The one instruction `keyword` of `stage` (the last, as Docker takes it). */
export function instruction(stage: Instruction[], keyword: string): string | undefined {
  return stage.filter((entry) => entry.keyword === keyword).at(-1)?.args;
}

/** An exec-form argument list (`["node", "-e", "…"]`); a shell form is refused, since tests run the array. */
export function execForm(args: string): string[] {
  const parsed: unknown = JSON.parse(args);
  if (!Array.isArray(parsed) || !parsed.every((item) => typeof item === 'string'))
    throw new Error(`not an exec-form array: ${args}`);
  return parsed;
}

/** HEALTHCHECK's options and its exec-form command. */
export function healthcheck(args: string): { options: Record<string, string>; command: string[] } {
  const match = /^((?:--[\w-]+=\S+\s+)*)CMD\s+(\[.*\])$/.exec(args);
  if (!match) throw new Error(`HEALTHCHECK without an exec-form CMD: ${args}`);
  const options = Object.fromEntries(
    [...match[1].matchAll(/--([\w-]+)=(\S+)/g)].map((option) => [option[1], option[2]]),
  );
  return { options, command: execForm(match[2]) };
}

/** A systemd unit's `Key=value` lines by section (`Service.ExecStart`), each key's values in order. */
export function unitKeys(path: string): Map<string, string[]> {
  const keys = new Map<string, string[]>();
  let section = '';
  for (const raw of readFileSync(path, 'utf8').split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#') || line.startsWith(';')) continue;
    const header = /^\[(.+)\]$/.exec(line);
    if (header) {
      section = header[1];
      continue;
    }
    const at = line.indexOf('=');
    const key = `${section}.${line.slice(0, at).trim()}`;
    keys.set(key, [...(keys.get(key) ?? []), line.slice(at + 1).trim()]);
  }
  return keys;
}
