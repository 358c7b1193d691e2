// Finding the cgroup v1 cpu controller and this process's group in it, from /proc's text; the
// group's period and quota for a percentage.
import { describe, it, expect } from 'vitest';
import { cpuControllerMount, ownCpuGroup, quotaTiming } from '../../../host/offenders/cpu-quota.ts';

describe('cpuControllerMount', () => {
  it('finds a v1 mount whose options name cpu, alone or beside cpuacct', () => {
    expect(cpuControllerMount('cgroup /sys/fs/cgroup/cpu cgroup rw,relatime,cpu 0 0\n')).toBe('/sys/fs/cgroup/cpu');
    expect(
      cpuControllerMount(
        'tmpfs /sys/fs/cgroup tmpfs rw 0 0\ncgroup /sys/fs/cgroup/cpu,cpuacct cgroup rw,nosuid,cpu,cpuacct 0 0\n',
      ),
    ).toBe('/sys/fs/cgroup/cpu,cpuacct');
  });

  it('ignores cpuacct or cpuset alone, and cgroup v2', () => {
    expect(
      cpuControllerMount(
        'cgroup /sys/fs/cgroup/cpuacct cgroup rw,cpuacct 0 0\ncgroup /sys/fs/cgroup/cpuset cgroup rw,cpuset 0 ' +
          '0\ncgroup2 /sys/fs/cgroup cgroup2 rw,nsdelegate 0 0\n',
      ),
    ).toBeUndefined();
  });
});

describe('ownCpuGroup', () => {
  it('reads the cpu line of /proc/self/cgroup, and is / without one', () => {
    expect(ownCpuGroup('4:memory:/a\n1:cpu:/\n0::/\n')).toBe('/');
    expect(ownCpuGroup('3:cpu,cpuacct:/docker/abc\n')).toBe('/docker/abc');
    expect(ownCpuGroup('0::/user.slice\n')).toBe('/');
  });
});

describe('quotaTiming', () => {
  it('keeps the period as short as a 1 ms quota allows, between 10 and 100 ms', () => {
    expect(quotaTiming(5)).toEqual({ periodUs: 20_000, quotaUs: 1_000 });
    expect(quotaTiming(20)).toEqual({ periodUs: 10_000, quotaUs: 2_000 });
    expect(quotaTiming(1)).toEqual({ periodUs: 100_000, quotaUs: 1_000 });
    expect(quotaTiming(3)).toEqual({ periodUs: 33_334, quotaUs: 1_000 });
    // More than one core: the quota may exceed the period.
    expect(quotaTiming(250)).toEqual({ periodUs: 10_000, quotaUs: 25_000 });
  });

  it('gives every percent within 0.1 % of what was asked, at least 1 ms, on a 10–100 ms period', () => {
    for (let percent = 1; percent <= 400; percent++) {
      const { periodUs, quotaUs } = quotaTiming(percent);
      expect(quotaUs).toBeGreaterThanOrEqual(1_000);
      expect(periodUs).toBeGreaterThanOrEqual(10_000);
      expect(periodUs).toBeLessThanOrEqual(100_000);
      expect(Math.abs(quotaUs / periodUs - percent / 100)).toBeLessThan(0.001);
    }
  });
});
