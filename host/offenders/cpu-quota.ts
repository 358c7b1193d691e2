// The offenders' CPU quota: one cgroup (v1 cpu controller) per host, named after the host's pid,
// holding only the guest threads of the two offenders' workers, capped at a share of one core.
// Cgroup plumbing only: it never decides who is an offender, and it never writes a main thread's id.

import { existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/**
 * Our groups' names: this prefix, the creating process's pid (how stale ones are recognised) and `-<n>`, the
 * how-manieth host of that process.
 */
export const OFFENDERS_GROUP_PREFIX = 'integration-host-offenders-';
/**
 * The quota's period, as short as the kernel's smallest quota (1 ms) allows, never under 10 ms nor
 * over the kernel's default 100 ms: a guest thread throttled while it holds a lock that the worker's
 * main thread then needs (inside isolated-vm or V8; `new Isolate` waited 96 ms so at a 100 ms period)
 * holds that thread up to the rest of the period, period − quota.
 */
export const SHORTEST_PERIOD_US = 10_000;
export const LONGEST_PERIOD_US = 100_000;
/** The kernel's smallest `cpu.cfs_quota_us`. */
export const SMALLEST_QUOTA_US = 1_000;

/** The group's `cpu.cfs_period_us` and `cpu.cfs_quota_us` for `percent` of one core (see SHORTEST_PERIOD_US). */
export function quotaTiming(percent: number): { periodUs: number; quotaUs: number } {
  const periodUs = Math.min(
    LONGEST_PERIOD_US,
    Math.max(SHORTEST_PERIOD_US, Math.ceil((SMALLEST_QUOTA_US * 100) / percent)),
  );
  return { periodUs, quotaUs: Math.max(SMALLEST_QUOTA_US, Math.round((percent / 100) * periodUs)) };
}
/**
 * The default quota, in percent of one core, for all offenders of a host together: 1 ms every
 * 20 ms. Neighbours first: in the bench a neighbour's p99 under attack was 1.09–1.41× quiet at 5 %
 * against 1.90–2.23× at 20 % (docs/performance.md#the-offenders-cpu-quota); what it costs a demoted honest
 * integration is in docs/operations.md.
 */
export const DEFAULT_OFFENDER_CPU_QUOTA_PERCENT = 5;
/** The largest quota accepted: 64 cores' worth (more would be no limit at all on any machine we run on). */
export const MAX_OFFENDER_CPU_QUOTA_PERCENT = 6_400;

/**
 * Where a cgroup v1 `cpu` controller is mounted, from /proc/self/mounts text (a mount of type
 * `cgroup` whose options name `cpu`; `cpuacct` alone does not count), or undefined.
 */
export function cpuControllerMount(mounts: string): string | undefined {
  for (const line of mounts.split('\n')) {
    const [, dir, type, options] = line.split(' ');
    if (type === 'cgroup' && options !== undefined && options.split(',').includes('cpu'))
      return dir.replace(/\\040/g, ' ');
  }
  return undefined;
}

/** This process's group under the v1 `cpu` hierarchy, from /proc/self/cgroup text ('/' when unknown). */
export function ownCpuGroup(cgroups: string): string {
  for (const line of cgroups.split('\n')) {
    const [, controllers, group] = line.split(':');
    if (controllers !== undefined && controllers.split(',').includes('cpu') && group) return group;
  }
  return '/';
}

function readOr(file: string, fallback: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return fallback;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The thread ids a group holds now ([] when it is gone). */
export function threadsInGroup(dir: string): number[] {
  return readOr(path.join(dir, 'tasks'), '').split('\n').filter(Boolean).map(Number);
}

/** Moves whatever a group still holds to its parent, then removes it; never throws. */
function removeGroup(dir: string): void {
  const parentTasks = path.join(path.dirname(dir), 'tasks');
  for (const thread of threadsInGroup(dir)) {
    try {
      writeFileSync(parentTasks, String(thread));
    } catch {
      // Ended meanwhile.
    }
  }
  try {
    rmdirSync(dir);
  } catch {
    // Still busy or already gone: a later start's sweep removes it.
  }
}

/** Removes the groups of ours whose host (the pid in the name) is no longer running; returns their names. */
export function removeStaleGroups(parent: string): string[] {
  const removed: string[] = [];
  let names: string[];
  try {
    names = readdirSync(parent);
  } catch {
    return removed;
  }
  for (const name of names) {
    if (!name.startsWith(OFFENDERS_GROUP_PREFIX)) continue;
    const pid = Number(name.slice(OFFENDERS_GROUP_PREFIX.length).split('-')[0]);
    if (!Number.isInteger(pid) || pid <= 0 || pid === process.pid || alive(pid)) continue;
    removeGroup(path.join(parent, name));
    if (!existsSync(path.join(parent, name))) removed.push(name);
  }
  return removed;
}

export interface OffendersGroup {
  /** The group's directory. */
  dir: string;
  /** Its `tasks` file: a thread id written there moves that one thread (not its process) in. */
  tasks: string;
  /** Groups of crashed hosts removed at start. */
  staleRemoved: string[];
  /** What was written: `cpu.cfs_period_us` and `cpu.cfs_quota_us` (quotaTiming). */
  timing: { periodUs: number; quotaUs: number };
  /** Moves what is left to the parent group and removes the group (after the workers stopped). */
  remove(): void;
}

export interface OpenOptions {
  /** Percent of one core for all offenders' guest threads together (1–100 × cores). */
  percent: number;
  /** Testing aid: the cpu controller's mount, in place of the one /proc/self/mounts names. */
  mount?: string;
  /** The host's pid, in the group's name (default this process). */
  pid?: number;
}

/** Hosts of this process that made a group so far: each gets its own (tests run several hosts in one process). */
let groupsMade = 0;

/**
 * Creates this host's offenders' group with its quota: the group, or why it cannot be had (in words
 * for one log line: no cgroup v1 cpu controller, not writable, a kernel without CFS quotas).
 */
export function openOffendersGroup(options: OpenOptions): OffendersGroup | { problem: string } {
  const mount = options.mount ?? cpuControllerMount(readOr('/proc/self/mounts', ''));
  if (mount === undefined) {
    const v2 = readOr('/sys/fs/cgroup/cgroup.controllers', '').split(/\s+/).includes('cpu');
    return {
      problem: v2
        ? 'only cgroup v2 has the cpu controller here (its cpu.max ' +
          'needs threaded groups, which the host does not set up)'
        : 'no cgroup v1 cpu controller is mounted',
    };
  }
  // The group goes under this process's own group (a container's, say), not the hierarchy's root.
  const parent = path.resolve(
    mount,
    `.${options.mount === undefined ? ownCpuGroup(readOr('/proc/self/cgroup', '')) : '/'}`,
  );
  if (!existsSync(path.join(parent, 'cpu.cfs_quota_us')))
    return {
      problem:
        `${parent} has no cpu.cfs_quota_us (not a cgroup v1 cpu ` +
        `controller, or a kernel without CFS bandwidth control)`,
    };
  const staleRemoved = removeStaleGroups(parent);
  groupsMade += 1;
  const dir = path.join(parent, `${OFFENDERS_GROUP_PREFIX}${options.pid ?? process.pid}-${groupsMade}`);
  try {
    mkdirSync(dir);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    // EEXIST: left by an earlier process that had this pid and crashed; ours by its name, reused.
    if (code !== 'EEXIST')
      return {
        problem:
          `cannot create ${dir} (${code ?? String(error)}; ` + 'it needs root or a delegated, writable cpu hierarchy)',
      };
  }
  const timing = quotaTiming(options.percent);
  const { periodUs, quotaUs } = timing;
  try {
    writeFileSync(path.join(dir, 'cpu.cfs_period_us'), String(periodUs));
    writeFileSync(path.join(dir, 'cpu.cfs_quota_us'), String(quotaUs));
  } catch (error) {
    removeGroup(dir);
    return { problem: `cannot set the quota of ${dir} (${(error as NodeJS.ErrnoException).code ?? String(error)})` };
  }
  return { dir, tasks: path.join(dir, 'tasks'), staleRemoved, timing, remove: () => removeGroup(dir) };
}

/** The cpu-hierarchy group a thread is in ('' when it ended or /proc says nothing), from /proc. */
export function cpuGroupOfThread(pid: number, thread: number): string {
  return ownCpuGroupOrEmpty(readOr(`/proc/${pid}/task/${thread}/cgroup`, ''));
}

function ownCpuGroupOrEmpty(cgroups: string): string {
  return cgroups === '' ? '' : ownCpuGroup(cgroups);
}
