// The session file of `npm run dev` (.data/dev-session.json, mode 0600): where the dev host
// listens and its admin token, so `npm run logs` finds it without flags. Written only by the dev
// command, removed when that host stops; it holds nothing the data folder does not already guard.

import { chmodSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export interface DevSession {
  url: string;
  adminToken: string;
  pid: number;
}

export const DEV_SESSION_FILE = path.join('.data', 'dev-session.json');

export function writeDevSession(session: DevSession, file: string = DEV_SESSION_FILE): void {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(session)}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
}

export function readDevSession(file: string = DEV_SESSION_FILE): DevSession | undefined {
  try {
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as Partial<DevSession>;
    if (typeof parsed.url !== 'string' || typeof parsed.adminToken !== 'string' || typeof parsed.pid !== 'number')
      return undefined;
    return { url: parsed.url, adminToken: parsed.adminToken, pid: parsed.pid };
  } catch {
    return undefined;
  }
}

/** Removes the file if it still describes this process's host (a newer dev host may own it). */
export function removeDevSession(file: string = DEV_SESSION_FILE): void {
  if (readDevSession(file)?.pid === process.pid) rmSync(file, { force: true });
}
