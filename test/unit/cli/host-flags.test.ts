import { describe, it, expect, vi, afterEach } from 'vitest';
import { parseHostFlags } from '../../../host/cli/host-flags.ts';

afterEach(() => vi.restoreAllMocks());

describe('--isolate-memory', () => {
  it('sets the memory budget of live isolates, in MB', () => {
    expect(parseHostFlags(['--isolate-memory', '512']).limits).toEqual({ isolateMemoryMb: 512 });
    expect(parseHostFlags([]).limits).toBeUndefined();
  });

  it.each(['0', '15', 'lots', '1.5'])('refuses %s, naming the flag and the range', (value) => {
    const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    vi.spyOn(process, 'exit').mockImplementation((code) => {
      throw new Error(`exit ${code}`);
    });
    expect(() => parseHostFlags(['--isolate-memory', value])).toThrow('exit 2');
    expect(String(stderr.mock.calls[0][0])).toContain(
      `--isolate-memory expects an integer from 16 to 1048576, got "${value}"`,
    );
  });
});

describe('--offender-cpu-quota', () => {
  it("sets the offenders' CPU quota in percent of one core, 0 turning it off; absent, the default applies", () => {
    expect(parseHostFlags(['--offender-cpu-quota', '25']).offenderCpuQuotaPercent).toBe(25);
    expect(parseHostFlags(['--offender-cpu-quota', '0']).offenderCpuQuotaPercent).toBe(0);
    expect(parseHostFlags([]).offenderCpuQuotaPercent).toBeUndefined();
  });

  it.each(['6401', 'half', '12.5'])('refuses %s, naming the flag and the range', (value) => {
    const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    vi.spyOn(process, 'exit').mockImplementation((code) => {
      throw new Error(`exit ${code}`);
    });
    expect(() => parseHostFlags(['--offender-cpu-quota', value])).toThrow('exit 2');
    expect(String(stderr.mock.calls[0][0])).toContain(
      `--offender-cpu-quota expects an integer from 0 to 6400, got "${value}"`,
    );
  });
});
