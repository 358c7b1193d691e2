// Finding the cgroup v1 cpu controller and this process's group in it, from /proc's text.
import { describe, it, expect } from 'vitest';
import { cpuControllerMount, ownCpuGroup } from '../../../host/sandbox/cpu-quota.ts';

describe('cpuControllerMount', () => {
  it('finds a v1 mount whose options name cpu, alone or beside cpuacct', () => {
    expect(cpuControllerMount('cgroup /sys/fs/cgroup/cpu cgroup rw,relatime,cpu 0 0\n')).toBe('/sys/fs/cgroup/cpu');
    expect(cpuControllerMount('tmpfs /sys/fs/cgroup tmpfs rw 0 0\ncgroup /sys/fs/cgroup/cpu,cpuacct cgroup rw,nosuid,cpu,cpuacct 0 0\n')).toBe('/sys/fs/cgroup/cpu,cpuacct');
  });

  it('ignores cpuacct or cpuset alone, and cgroup v2', () => {
    expect(cpuControllerMount('cgroup /sys/fs/cgroup/cpuacct cgroup rw,cpuacct 0 0\ncgroup /sys/fs/cgroup/cpuset cgroup rw,cpuset 0 0\ncgroup2 /sys/fs/cgroup cgroup2 rw,nsdelegate 0 0\n')).toBeUndefined();
  });
});

describe('ownCpuGroup', () => {
  it('reads the cpu line of /proc/self/cgroup, and is / without one', () => {
    expect(ownCpuGroup('4:memory:/a\n1:cpu:/\n0::/\n')).toBe('/');
    expect(ownCpuGroup('3:cpu,cpuacct:/docker/abc\n')).toBe('/docker/abc');
    expect(ownCpuGroup('0::/user.slice\n')).toBe('/');
  });
});
