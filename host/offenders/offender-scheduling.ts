// What the supervisor holds of the offenders' scheduling for its lifetime: this host's CPU-quota
// cgroup (opened, its tasks file, removed) and the spare-CPU sampling behind the two verdicts.
// It never moves an integration nor spawns a worker: it answers, the supervisor acts.

import { openOffendersGroup, type OffendersGroup } from './cpu-quota.ts';
import { judgeWindow, readCpu, type CpuReading } from './spare-cpu.ts';

/** How often the machine's spare CPU is sampled for the SCHED_IDLE worker (spare-cpu.ts). */
const SPARE_CPU_SAMPLE_MS = 1_000;
/**
 * After the SCHED_IDLE worker starved (it had work and got no CPU), this long its integrations move
 * back to nice 19 before their next dispatch and nothing is sent down: at most one move down and
 * back (two isolate starts) per integration in this time on a machine that stays saturated.
 */
export const STARVED_HOLD_MS = 30_000;

export interface OffenderSchedulingOptions {
  /**
   * The offenders' CPU quota (cpu-quota.ts): all guest threads of the two offenders' workers get at
   * most `percent` of one core together; 0 or absent: none. `mount` is a testing aid (the cpu
   * controller's directory in place of the one /proc/self/mounts names).
   */
  offenderCpuQuota?: { percent: number; mount?: string };
  /** Testing aid: answers whether the machine has no CPU to spare, in place of sampling /proc (spare-cpu.ts). */
  machineSaturated?: () => boolean;
  /**
   * Testing aid: answers whether the SCHED_IDLE worker starved lately (had work, got no CPU), in place of sampling
   * /proc.
   */
  schedIdleStarved?: () => boolean;
  onNotice(level: 'info' | 'warn' | 'error', message: string): void;
}

/**
 * The SCHED_IDLE worker as the sampler sees it: whether it is still there, its process, whether it has work in flight.
 */
export interface SchedIdleProbe {
  present(): boolean;
  pid(): number;
  hasWork(): boolean;
}

export class OffenderScheduling {
  /** Whether, in the last sample, normal work left the machine no CPU to spare (spare-cpu.ts). */
  private saturated = false;
  /** Until when (performance.now()) the SCHED_IDLE worker counts as starving: see STARVED_HOLD_MS. */
  private starvedUntil = -Infinity;
  private spareCpuTimer: NodeJS.Timeout | null = null;
  /** This host's offenders' group under the CPU quota, while it has one. */
  private quotaGroup: OffendersGroup | null = null;
  private readonly options: OffenderSchedulingOptions;

  constructor(options: OffenderSchedulingOptions) {
    this.options = options;
  }

  /** Creates the offenders' group (stale ones of crashed hosts go first); says once, readably, why there is none. */
  openQuotaGroup(): void {
    const quota = this.options.offenderCpuQuota;
    if (quota === undefined || quota.percent <= 0) return;
    const opened = openOffendersGroup({
      percent: quota.percent,
      ...(quota.mount !== undefined ? { mount: quota.mount } : {}),
    });
    if ('problem' in opened) {
      this.options.onNotice(
        'warn',
        `offenders' CPU quota (${quota.percent} % of one core) not ` +
          `applied: ${opened.problem}; offenders are only lowered (nice 19, ` +
          `SCHED_IDLE)`,
      );
      return;
    }
    for (const name of opened.staleRemoved)
      this.options.onNotice('info', `removed the offenders' CPU group of a host that is no longer running: ${name}`);
    this.quotaGroup = opened;
    const { periodUs, quotaUs } = opened.timing;
    this.options.onNotice(
      'info',
      `offenders' guest threads limited to ${quota.percent} % of one core (${quotaUs / 1000} ` +
        `ms every ${periodUs / 1000} ms, cgroup ${opened.dir})`,
    );
  }

  /** The directory of this host's offenders' CPU group, while it has one (tests, diagnostics). */
  get quotaGroupDir(): string | undefined {
    return this.quotaGroup?.dir;
  }

  /** The `tasks` file an offenders' worker moves its guest threads into, while there is a group. */
  get quotaTasks(): string | undefined {
    return this.quotaGroup?.tasks;
  }

  /** Removes the group; after the workers: their threads have left it with them (what is left goes to the parent). */
  closeQuotaGroup(): void {
    this.quotaGroup?.remove();
    this.quotaGroup = null;
  }

  /** Starts sampling spare CPU, unless a testing aid answers the verdicts instead. */
  startSampling(schedIdle: SchedIdleProbe): void {
    if (this.options.machineSaturated === undefined && this.options.schedIdleStarved === undefined)
      this.sampleSpareCpu(schedIdle);
  }

  stopSampling(): void {
    if (this.spareCpuTimer !== null) clearInterval(this.spareCpuTimer);
  }

  /**
   * Samples, once a second, what CPU normal work left over (two small /proc reads) for two
   * verdicts (spare-cpu.ts judgeWindow): no CPU to spare (nothing is sent down), and the SCHED_IDLE
   * worker starved while it had work (its integrations go back to nice 19 for STARVED_HOLD_MS). A
   * machine busy only while that worker had nothing to do is no reason to move anything back.
   * Where /proc cannot be read, neither verdict is ever given.
   */
  private sampleSpareCpu(schedIdle: SchedIdleProbe): void {
    const pids = () => [schedIdle.pid()];
    let previous: CpuReading | null = readCpu(pids());
    let hadWork = false;
    this.spareCpuTimer = setInterval(() => {
      if (!schedIdle.present()) return;
      const reading = readCpu(pids());
      const hasWork = schedIdle.hasWork();
      if (previous !== null && reading !== null) {
        const verdict = judgeWindow(previous, reading, hadWork && hasWork);
        this.saturated = verdict.saturated;
        if (verdict.schedIdleStarved) this.starvedUntil = performance.now() + STARVED_HOLD_MS;
      }
      previous = reading;
      hadWork = hasWork;
    }, SPARE_CPU_SAMPLE_MS);
    this.spareCpuTimer.unref();
  }

  /** Whether normal work left no CPU to spare in the last second (then SCHED_IDLE work would starve). */
  get machineSaturated(): boolean {
    return this.options.machineSaturated ? this.options.machineSaturated() : this.saturated;
  }

  /** Whether the SCHED_IDLE worker starved (had work and got no CPU) within the last STARVED_HOLD_MS. */
  get schedIdleStarved(): boolean {
    return this.options.schedIdleStarved ? this.options.schedIdleStarved() : performance.now() < this.starvedUntil;
  }
}
