// createHost(options): the one public entry of the host. Builds it (assembly/assemble.ts) and,
// if any step of startup fails, closes again whatever was opened (listener, store, workers), so a
// bad option or platform file never leaves a port, a database handle or a process behind.

import type { HostOptionsInput } from './config/options.ts';
import { assembleHost, type Host } from './assembly/assemble.ts';

export type { Host } from './assembly/assemble.ts';
export type { DevInstallation } from './assembly/dev-installations.ts';

export async function createHost(input: HostOptionsInput = {}): Promise<Host> {
  const opened: (() => unknown)[] = [];
  try {
    return await assembleHost(input, (close) => opened.push(close));
  } catch (error) {
    for (const close of opened.reverse()) {
      try {
        await close();
      } catch {
        // Best effort: the startup error is the one to report.
      }
    }
    throw error;
  }
}
