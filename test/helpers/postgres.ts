// A throwaway PostgreSQL for tests: initdb in a temp dir, one server on a free loopback port with
// trust auth, databases created per test, stopped by pid. Run as the `postgres` user when this
// process is root (initdb refuses root). Uses the system PostgreSQL (15 on these machines; PG_BIN
// names another bin folder); when none exists, `postgresUnavailable` says why and tests skip.

import { execFileSync, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';

export interface TestPostgres {
  /** `postgres://postgres@127.0.0.1:<port>/postgres` */
  url: string;
  port: number;
  /** The postmaster's pid (its backends are its children). */
  pid: number;
  /** A new empty database on this server; its URL. */
  createDatabase(name?: string): Promise<string>;
  stop(): Promise<void>;
}

function findBinDir(): string | undefined {
  const candidates = [
    process.env.PG_BIN,
    ...(existsSync('/usr/lib/postgresql')
      ? readdirSync('/usr/lib/postgresql')
          .sort()
          .reverse()
          .map((version) => `/usr/lib/postgresql/${version}/bin`)
      : []),
  ];
  for (const candidate of candidates)
    if (candidate && existsSync(path.join(candidate, 'initdb')) && existsSync(path.join(candidate, 'pg_ctl')))
      return candidate;
  const fromConfig = spawnSync('pg_config', ['--bindir'], { encoding: 'utf8' });
  const bin = fromConfig.status === 0 ? fromConfig.stdout.trim() : '';
  return bin && existsSync(path.join(bin, 'initdb')) ? bin : undefined;
}

const BIN = findBinDir();
const AS_ROOT = process.getuid?.() === 0;
const POSTGRES_USER = (() => {
  if (!AS_ROOT) return undefined;
  const entry = spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' });
  return entry.status === 0
    ? {
        uid: Number(entry.stdout.trim()),
        gid: Number(spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).stdout.trim()),
      }
    : undefined;
})();

/** Why PostgreSQL tests cannot run here, or undefined when they can. */
export const postgresUnavailable: string | undefined =
  BIN === undefined
    ? 'no PostgreSQL server binaries (initdb, pg_ctl) found: install postgresql-15 or set PG_BIN'
    : AS_ROOT && POSTGRES_USER === undefined
      ? 'running as root without a "postgres" user to run initdb as'
      : undefined;

if (postgresUnavailable !== undefined) process.stderr.write(`PostgreSQL tests skipped: ${postgresUnavailable}\n`);

function run(command: string, args: string[]): string {
  const [file, argv] = AS_ROOT ? ['runuser', ['-u', 'postgres', '--', command, ...args]] : [command, args];
  try {
    return execFileSync(file, argv, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (error) {
    const failure = error as { stderr?: string; stdout?: string; message: string };
    throw new Error(`${path.basename(command)} failed: ${failure.stderr || failure.stdout || failure.message}`);
  }
}

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

let databases = 0;

export interface PostgresServerOptions {
  /** shared_preload_libraries, e.g. ['pg_stat_statements'] for the bench's statement profile. */
  preload?: string[];
}

export async function startPostgres(options: PostgresServerOptions = {}): Promise<TestPostgres> {
  if (postgresUnavailable !== undefined || BIN === undefined) throw new Error(postgresUnavailable);
  const dir = mkdtempSync(path.join(tmpdir(), 'host-pg-'));
  if (POSTGRES_USER) chownSync(dir, POSTGRES_USER.uid, POSTGRES_USER.gid);
  const data = path.join(dir, 'data');
  run(path.join(BIN, 'initdb'), [
    '-D',
    data,
    '-A',
    'trust',
    '-U',
    'postgres',
    '-E',
    'UTF8',
    '--no-sync',
    '--no-instructions',
  ]);
  const port = await freePort();
  // Loopback only, the socket in our own dir, and durability off: a test database is thrown away.
  const serverOptions =
    `-h 127.0.0.1 -p ${port} -k ${dir} -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c ` +
    `max_connections=200` +
    (options.preload?.length ? ` -c shared_preload_libraries=${options.preload.join(',')}` : '');
  run(path.join(BIN, 'pg_ctl'), [
    'start',
    '-D',
    data,
    '-w',
    '-t',
    '60',
    '-l',
    path.join(dir, 'server.log'),
    '-o',
    serverOptions,
  ]);
  const pid = Number(readFileSync(path.join(data, 'postmaster.pid'), 'utf8').split('\n')[0]);
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  let stopped = false;
  // pg_ctl detaches the server: should this process end without stop() (a crashed test file),
  // the server must not outlive it.
  const orphanGuard = () => {
    try {
      process.kill(pid, 'SIGQUIT');
    } catch {
      // Already stopped.
    }
  };
  process.once('exit', orphanGuard);
  return {
    url,
    port,
    pid,
    async createDatabase(name = `test_${process.pid}_${++databases}`) {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        await client.query(`CREATE DATABASE ${name}`);
      } finally {
        await client.end();
      }
      return `postgres://postgres@127.0.0.1:${port}/${name}`;
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      process.off('exit', orphanGuard);
      try {
        // SIGQUIT: immediate shutdown; nothing in a test database is worth a checkpoint.
        process.kill(pid, 'SIGQUIT');
        const deadline = Date.now() + 10_000;
        while (Date.now() < deadline) {
          try {
            process.kill(pid, 0);
          } catch {
            break;
          }
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
      } catch {
        // Already gone.
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
