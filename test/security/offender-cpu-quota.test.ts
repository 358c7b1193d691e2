// Offenders burning CPU get at most the offenders' CPU quota: every guest thread of the two
// offenders' workers (those made while they spin too) sits in the host's own cgroup, whose quota is
// the setting; their main threads (deadline timer, 504s, IPC), the regular workers and the host stay
// out; the group goes when the host stops, and a crashed host's group goes at the next start.
// Needs a writable cgroup v1 cpu controller (root here and in CI); skipped with the reason where
// there is none. Read from /proc and the group's `tasks`; waits on conditions, never on time.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmdirSync, rmSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { cpus, tmpdir } from 'node:os';
import path from 'node:path';
import { startTestHost, endpointOf, waitFor, type TestHost } from '../helpers/host.ts';
import { expectHostHealthy } from '../helpers/host-health.ts';
import { guestThreadsOf, threadsOf } from '../../host/offenders/sched-policy.ts';
import {
  DEFAULT_OFFENDER_CPU_QUOTA_PERCENT,
  OFFENDERS_GROUP_PREFIX,
  cpuControllerMount,
  cpuGroupOfThread,
  threadsInGroup,
} from '../../host/offenders/cpu-quota.ts';
import { cgroupsUnavailable } from '../helpers/cgroups.ts';

const unavailable = cgroupsUnavailable();

const DEADLINE_MS = 5_000;
/** More than isolated-vm's pool (cores + 1) holds, so that threads are made while they spin. */
const SPINNERS = cpus().length + 3;
const names = Array.from({ length: SPINNERS }, (_, i) => `quota-spinner-${i + 1}`);
const folder = mkdtempSync(path.join(tmpdir(), 'ih-quota-'));
const SCRIPT = `import { createIntegration } from 'sandbox-api';
export default createIntegration({
  async fetch(request) {
    if (new URL(request.url).searchParams.get('mode') === 'ok') return new Response('fine');
    for (;;) {
      // spin
    }
  },
});
`;
for (const name of names) {
  mkdirSync(path.join(folder, name));
  writeFileSync(
    path.join(folder, name, 'platform-manifest.yaml'),
    `name: ${name}\ntitle: Spinner\ndescription: Spins until its deadline.\norganization: acme\nvisibility: ` +
      `public\nscopes: []\nscript: index.ts\n`,
  );
  writeFileSync(path.join(folder, name, 'index.ts'), SCRIPT);
}
const dirs = ['fixtures/integrations', ...names.map((name) => path.join(folder, name))];
afterAll(() => rmSync(folder, { recursive: true, force: true }));

/** The cgroup directory a thread of `pid` is in (under the cpu controller's mount). */
function groupOf(mount: string, pid: number, thread: number): string {
  return path.join(mount, cpuGroupOfThread(pid, thread));
}

describe.skipIf(unavailable !== null)(
  `offenders under the CPU quota${unavailable !== null ? ` (skipped: ${unavailable})` : ''}`,
  () => {
    const mount = unavailable === null ? cpuControllerMount(readFileSync('/proc/self/mounts', 'utf8'))! : '';
    let host: TestHost;
    let group: string;

    beforeAll(async () => {
      host = await startTestHost({
        dirs,
        limits: { dispatchTimeoutMs: DEADLINE_MS, timeoutsBeforeCooldown: 100 },
        offenderCpuQuotaPercent: 15,
        // The escalation must not depend on the machine's load (CI runs beside CPU burners).
        machineSaturated: () => false,
        schedIdleStarved: () => false,
      });
      group = host.supervisor.offendersCpuGroup!;
    });
    afterAll(async () => {
      await host?.close();
    });

    function spinAll(): Promise<number[]> {
      return Promise.all(names.map(async (name) => (await fetch(endpointOf(host, name))).status));
    }

    /**
     * Every spinner at once on the offenders' worker at `pid`: while all are in flight, threads made
     * since they started must exist and every guest thread of that worker be in the group, its main
     * thread never; fails if that never holds while they spin. Resolves with their statuses.
     */
    async function spinAllOn(pid: number): Promise<number[]> {
      const before = new Set(guestThreadsOf(pid));
      const statuses = spinAll();
      const spinning = () => names.every((name) => host.supervisor.inFlightCount(name) === 1);
      await waitFor(spinning);
      let seen = false;
      await waitFor(() => {
        if (!spinning()) return true;
        const threads = guestThreadsOf(pid);
        seen =
          threads.some((thread) => !before.has(thread)) &&
          threads.every((thread) => groupOf(mount, pid, thread) === group) &&
          spinning();
        return seen;
      });
      expect(seen, 'threads made for the spinners were in the quota group while they spun').toBe(true);
      expect(groupOf(mount, pid, pid), 'the worker main thread').not.toBe(group);
      return statuses;
    }

    it('makes a group of its own, named after the host, with the quota set', () => {
      expect(path.basename(group).startsWith(`${OFFENDERS_GROUP_PREFIX}${process.pid}-`)).toBe(true);
      // 15 % of one core as 1.5 ms every 10 ms (quotaTiming).
      expect(readFileSync(path.join(group, 'cpu.cfs_period_us'), 'utf8').trim()).toBe('10000');
      expect(readFileSync(path.join(group, 'cpu.cfs_quota_us'), 'utf8').trim()).toBe('1500');
      expect(
        host.logs.filter((line) =>
          line.includes(`offenders' guest threads limited to 15 % of one core (1.5 ms every 10 ms, cgroup ${group})`),
        ),
      ).toHaveLength(1);
    });

    it(
      'puts no thread of a regular worker or of the host in it, and spinners land on the nice-19 worker after their ' +
        'first timeout',
      async () => {
        expect(await spinAll()).toEqual(names.map(() => 504));
        for (const name of names) expect(host.supervisor.workerOf(name)).toBe(host.supervisor.offenderWorker);
        const inGroup = new Set(threadsInGroup(group));
        for (let index = 0; index < 2; index++)
          for (const thread of threadsOf(host.supervisor.workerPid(index)))
            expect(inGroup.has(thread), `regular worker ${index} thread ${thread}`).toBe(false);
        for (const thread of threadsOf(process.pid)) expect(inGroup.has(thread), `host thread ${thread}`).toBe(false);
      },
    );

    it(
      'spin on the nice-19 worker on threads inside the group only, those made while they spin too; its main thread ' +
        'stays out',
      async () => {
        const pid = host.supervisor.workerPid(host.supervisor.offenderWorker!);
        expect(await spinAllOn(pid)).toEqual(names.map(() => 504));
        // There the host answered at the deadline; each move follows its worker's verdict.
        for (const name of names) await host.supervisor.verdictsArrived(name);
        for (const name of names) expect(host.supervisor.workerOf(name)).toBe(host.supervisor.schedIdleWorker);
      },
    );

    it(
      'spin on the SCHED_IDLE worker on threads inside the group only; its main thread stays out and still answers ' +
        '504 at the deadline',
      async () => {
        const pid = host.supervisor.workerPid(host.supervisor.schedIdleWorker!);
        expect(await spinAllOn(pid)).toEqual(names.map(() => 504));
      },
    );

    it("holds nothing but guest threads of the two offenders' workers", () => {
      const offenders = [host.supervisor.offenderWorker!, host.supervisor.schedIdleWorker!].map((index) =>
        host.supervisor.workerPid(index),
      );
      const allowed = new Set(offenders.flatMap((pid) => guestThreadsOf(pid)));
      const held = threadsInGroup(group);
      expect(held.length).toBeGreaterThan(0);
      for (const thread of held) expect(allowed.has(thread), `thread ${thread} in the group`).toBe(true);
      for (const pid of offenders) expect(held).not.toContain(pid);
    });

    it('leaves the host and its neighbours answering, and removes the group when it stops', async () => {
      await expectHostHealthy(host);
      await host.close();
      expect(existsSync(group)).toBe(false);
    });

    it('removes the group a crashed host left behind when the next one starts', async () => {
      // A pid that is surely not running: a process that has already ended.
      const dead = spawnSync('true').pid!;
      const parent = path.dirname(group);
      const stale = path.join(parent, `${OFFENDERS_GROUP_PREFIX}${dead}-1`);
      mkdirSync(stale);
      const next = await startTestHost({ dirs: ['fixtures/integrations'] });
      try {
        expect(existsSync(stale)).toBe(false);
        expect(
          next.logs.some((line) =>
            line.includes(
              `removed the offenders' CPU group of a host that is no longer running: ${path.basename(stale)}`,
            ),
          ),
        ).toBe(true);
        expect(existsSync(next.supervisor.offendersCpuGroup!)).toBe(true);
      } finally {
        await next.close();
        if (existsSync(stale)) rmdirSync(stale);
      }
    });
  },
);

describe('without a usable cgroup cpu controller', () => {
  it('says so in one line and runs offenders as before, lowered only', async () => {
    const notCgroup = mkdtempSync(path.join(tmpdir(), 'ih-not-cgroup-'));
    const host = await startTestHost({ dirs: ['fixtures/integrations'], cpuCgroupMount: notCgroup });
    try {
      const lines = host.logs.filter((line) => line.includes("offenders' CPU quota"));
      expect(lines).toHaveLength(1);
      expect(lines[0]).toContain(
        `offenders' CPU quota (${DEFAULT_OFFENDER_CPU_QUOTA_PERCENT} % of one core) not applied: ${notCgroup} has ` +
          `no cpu.cfs_quota_us`,
      );
      expect(lines[0]).toContain('offenders are only lowered');
      expect(host.supervisor.offendersCpuGroup).toBeUndefined();
      await expectHostHealthy(host);
    } finally {
      await host.close();
      rmSync(notCgroup, { recursive: true, force: true });
    }
  });
});
