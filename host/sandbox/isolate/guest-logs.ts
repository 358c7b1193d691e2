// What an integration's isolate logs: each line mapped, sanitized and cut, into the events in
// flight or the host log (waitUntil work, a disposed isolate), within the per-event caps, with one
// warning per busy window for a cap a guest runs into. It never runs guest code nor disposes anything.

import { sanitizeLogText } from '../../common/log-text.ts';
import type { CapturedLog, SandboxLimits } from '../messages.ts';
import { eventOfWork, type InFlight, type IsolateHooks } from './contract.ts';

export class GuestLogs {
  /** One warning per busy window for each cap a guest runs into, never one per attempt. */
  private readonly warned = new Set<'fetch' | 'timers'>();
  /** Lines logged while only waitUntil work runs, and those dropped past the per-event cap. */
  private lateLines = 0;
  private lateBytes = 0;
  private lateDropped = 0;
  private readonly inFlight: ReadonlySet<InFlight>;
  private readonly draining: ReadonlySet<string>;
  private readonly limits: SandboxLimits;
  private readonly hooks: IsolateHooks;

  /** `inFlight` and `draining` are the isolate's own sets (read only here). */
  constructor(
    inFlight: ReadonlySet<InFlight>,
    draining: ReadonlySet<string>,
    limits: SandboxLimits,
    hooks: IsolateHooks,
  ) {
    this.inFlight = inFlight;
    this.draining = draining;
    this.limits = limits;
    this.hooks = hooks;
  }

  warnOnce(cap: 'fetch' | 'timers', text: string): void {
    if (this.warned.has(cap)) return;
    this.warned.add(cap);
    this.recordLog('warn', text);
  }

  closeLogs(entry: InFlight): CapturedLog[] {
    if (entry.droppedLogs > 0)
      entry.logs.push({
        level: 'warn',
        text:
          `… ${entry.droppedLogs} more log lines dropped (limits: ${this.limits.maxLogLinesPerDispatch} ` +
          `lines, ${this.limits.maxLogBytesPerDispatch} bytes per event)`,
      });
    entry.droppedLogs = 0;
    return entry.logs;
  }

  /** The busy window is over (nothing in flight or draining): its caps start again, and what was dropped is said. */
  resetWindow(): void {
    this.warned.clear();
    if (this.lateDropped > 0) {
      this.hooks.lateLog(
        [],
        'warn',
        `… ${this.lateDropped} more log lines dropped after the ` +
          `response (limits: ${this.limits.maxLogLinesPerDispatch} ` +
          `lines, ${this.limits.maxLogBytesPerDispatch} bytes per event)`,
      );
    }
    this.lateLines = 0;
    this.lateBytes = 0;
    this.lateDropped = 0;
  }

  /** Whether one more line fits the per-event budget of lines and bytes. */
  private fits(lines: number, bytes: number, line: string): boolean {
    return lines < this.limits.maxLogLinesPerDispatch && bytes + line.length <= this.limits.maxLogBytesPerDispatch;
  }

  /** `disposed`: a line of an isolate disposed meanwhile, whose events are over (host log only). */
  recordLog(level: string, raw: string, disposed = false): void {
    // Mapped first (so a stack trace is cut in the author's terms), then escaped before anything
    // else: control characters must not reach a terminal or a stored log.
    const safe = sanitizeLogText(this.hooks.mapText ? this.hooks.mapText(raw) : raw);
    const line =
      safe.length > this.limits.maxLogLineBytes ? `${safe.slice(0, this.limits.maxLogLineBytes)}… [truncated]` : safe;
    if (disposed || this.inFlight.size === 0 || !this.inFlightOfOneInstallation()) {
      // No dispatch in flight (waitUntil work), a disposed isolate's line (its events are over),
      // or several dispatches at once of different installations,
      // which the isolate cannot tell apart: the line goes to the host log only, never into one
      // installation's event-log entry, where it could show another's data. (Concurrent
      // dispatches of one installation share their lines.) Capped here like an event's output.
      if (!this.fits(this.lateLines, this.lateBytes, line)) {
        this.lateDropped++;
        return;
      }
      this.lateLines++;
      this.lateBytes += line.length;
      const ids = disposed
        ? []
        : this.inFlight.size === 0
          ? [...new Set([...this.draining].map(eventOfWork))]
          : [...this.inFlight].map((entry) => entry.eventId);
      this.hooks.lateLog(ids, level, line);
      return;
    }
    for (const entry of this.inFlight) {
      if (this.fits(entry.logs.length, entry.logBytes, line)) {
        entry.logs.push({ level, text: line });
        entry.logBytes += line.length;
      } else entry.droppedLogs++;
    }
  }

  private inFlightOfOneInstallation(): boolean {
    let installation: string | undefined;
    for (const entry of this.inFlight) {
      if (installation !== undefined && entry.installationId !== installation) return false;
      installation = entry.installationId;
    }
    return true;
  }
}
