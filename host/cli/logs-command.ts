// `logs <integration> [--installation id] [--url U] [--admin-token T]`: follows the
// event log of a running host (GET …/events/stream) and prints each dispatch as it is written.
// Finds the host of `dev` by its session file; any problem is one line with the fix.

import { HostError } from '../common/errors.ts';
import type { EventLogEntry } from '../dispatch/event-log.ts';
import { DEV_SESSION_FILE, readDevSession } from './dev-session.ts';
import { formatEntry } from './log-format.ts';
import { readSse } from './sse.ts';
import { commandLine } from '../common/invocation.ts';
import { fail } from './usage.ts';

const DEFAULT_URL = 'http://127.0.0.1:8787';

interface LogsTarget {
  integration: string;
  installation?: string;
  url: string;
  /** Where the address came from: it decides what a refused connection means. */
  urlFrom: 'flag' | 'session' | 'default';
  adminToken: string;
}

function logsTarget(request: {
  integration: string;
  installation?: string;
  url?: string;
  adminToken?: string;
}): LogsTarget {
  const session = readDevSession();
  // Nothing says which host to follow: the usual case is a dev host that is not running.
  if (session === undefined && request.url === undefined && !request.adminToken && !process.env.HOST_ADMIN_TOKEN) {
    throw new HostError(
      'ERR_NOT_READY',
      `no dev host is running here (${DEV_SESSION_FILE} does not exist): start one with ${commandLine('dev')} ` +
        `(in another terminal, in this folder), or pass --url and --admin-token to follow another host`,
    );
  }
  const urlFrom = request.url !== undefined ? 'flag' : session !== undefined ? 'session' : 'default';
  const url = (request.url ?? session?.url ?? DEFAULT_URL).replace(/\/+$/, '');
  try {
    new URL(url);
  } catch {
    fail(`--url expects the host's address, e.g. ${DEFAULT_URL}; got "${url}"`);
  }
  // A token given explicitly wins; the dev session's token only serves the dev host's own address.
  const adminToken =
    request.adminToken ||
    process.env.HOST_ADMIN_TOKEN ||
    (session !== undefined && session.url === url ? session.adminToken : undefined);
  if (adminToken === undefined) {
    throw new HostError(
      'ERR_UNAUTHORIZED',
      `no admin token for ${url}: pass --admin-token (the token the host printed) or set HOST_ADMIN_TOKEN`,
    );
  }
  return {
    integration: request.integration,
    ...(request.installation ? { installation: request.installation } : {}),
    url,
    urlFrom,
    adminToken,
  };
}

/** Why nothing answered, by where the address came from. */
function unreachable(target: LogsTarget, code: string): string {
  const nothing = code === 'ECONNREFUSED' ? `nothing listens at ${target.url}` : `no host answers at ${target.url}`;
  if (target.urlFrom === 'session')
    return (
      `the dev host recorded in ${DEV_SESSION_FILE} is not running any more ` +
      `(${nothing}, ${code}): start it again with ${commandLine('dev')}`
    );
  if (target.urlFrom === 'default')
    return (
      `no dev host is running here, and ${nothing} (${code}): start one ` +
      `with ${commandLine('dev')}, or pass --url with the address the host printed`
    );
  return (
    `${nothing} (${code}): check the address the host printed (its ` +
    `"listening on" line), or start a dev host with ${commandLine('dev')}`
  );
}

async function openStream(target: LogsTarget): Promise<Response> {
  const query = target.installation === undefined ? '' : `?installation=${encodeURIComponent(target.installation)}`;
  const url = `${target.url}/v1/integrations/${encodeURIComponent(target.integration)}/events/stream${query}`;
  let response: Response;
  try {
    response = await fetch(url, {
      headers: { authorization: `Bearer ${target.adminToken}`, accept: 'text/event-stream' },
    });
  } catch (error) {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    const code = cause?.code ?? cause?.message ?? (error as Error).message;
    throw new HostError('ERR_NOT_READY', unreachable(target, code));
  }
  if (response.ok) return response;
  let message = `${response.status}`;
  try {
    message = ((await response.json()) as { error?: { message?: string } }).error?.message ?? message;
  } catch {
    // not the host's JSON error: the status says enough
  }
  if (response.status === 401 || response.status === 403) {
    throw new HostError(
      'ERR_UNAUTHORIZED',
      `the host at ${target.url} refused the admin token (${response.status}): pass ` +
        `--admin-token with the token it printed, or set HOST_ADMIN_TOKEN`,
    );
  }
  throw new HostError('ERR_NOT_FOUND', `${message} (at ${target.url}; GET /v1/integrations lists what it serves)`);
}

export async function runLogs(request: {
  integration: string;
  installation?: string;
  url?: string;
  adminToken?: string;
}): Promise<void> {
  const target = logsTarget(request);
  const response = await openStream(target);
  process.stdout.write(
    `following ${target.integration}${target.installation ? ` (installation ${target.installation})` : ''} ` +
      `on ${target.url}; Ctrl-C to stop\n`,
  );
  process.once('SIGINT', () => process.exit(0));
  for await (const message of readSse(response.body!)) {
    if (message.event !== 'dispatch') continue;
    let entry: EventLogEntry;
    try {
      entry = JSON.parse(message.data) as EventLogEntry;
    } catch {
      continue;
    }
    process.stdout.write(`${formatEntry(entry)}\n`);
  }
  process.stdout.write('the host closed the stream (it shut down)\n');
}
