// Whether this machine lets a test make cgroup v1 cpu groups (root here and in CI): the tests that
// need them are skipped with the reason where it does not.
import { mkdirSync, readFileSync, rmdirSync } from 'node:fs';
import path from 'node:path';
import { cpuControllerMount, ownCpuGroup } from '../../host/offenders/cpu-quota.ts';

/** Why cgroups cannot be used here, or null. */
export function cgroupsUnavailable(): string | null {
  const mount = cpuControllerMount(readFileSync('/proc/self/mounts', 'utf8'));
  if (mount === undefined) return 'no cgroup v1 cpu controller mounted';
  const probe = path.join(
    mount,
    ownCpuGroup(readFileSync('/proc/self/cgroup', 'utf8')),
    `integration-host-test-probe-${process.pid}`,
  );
  try {
    mkdirSync(probe);
    rmdirSync(probe);
    return null;
  } catch (error) {
    return `the cpu hierarchy is not writable here (${(error as NodeJS.ErrnoException).code})`;
  }
}
