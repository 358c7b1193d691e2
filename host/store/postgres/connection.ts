// The PostgreSQL connection of the host (node-postgres): the pool, the one URL check, queries and
// transactions that ride out a lost connection (retried with backoff for a bounded time, then one
// ERR_STORE_UNAVAILABLE), and the startup check that names the fix. The only place that creates
// a pg.Pool; every postgres store takes the Db it returns. Never logs a password.

import pg from 'pg';
import { HostError } from '../../common/errors.ts';
import { TrafficCounter } from '../traffic.ts';

/** BIGINT columns (times in ms, sequence numbers) as JS numbers: every value we store is below 2^53. */
const types = {
  getTypeParser: ((oid: number, format?: string) =>
    oid === 20
      ? (value: string) => Number(value)
      : pg.types.getTypeParser(oid, format as 'text')) as typeof pg.types.getTypeParser,
};

export type Queryable = Pick<pg.PoolClient, 'query'>;

export interface Db {
  readonly pool: pg.Pool;
  /** The URL without its password, for the startup line. */
  readonly safeUrl: string;
  readonly connectionString: string;
  /** Queries sent and waited on through query() and transaction() (readiness pings on `pool` are not counted). */
  readonly traffic: TrafficCounter;
  /**
   * One statement (atomic by itself), retried while the database is unreachable. A `name` makes it a prepared
   * statement, parsed and planned once per connection: for the hot paths (claims, settles, inserts).
   */
  query<R extends pg.QueryResultRow = Record<string, unknown>>(
    text: string,
    values?: unknown[],
    name?: string,
  ): Promise<pg.QueryResult<R>>;
  /**
   * `work` in one transaction on one connection, retried as a whole while the database is unreachable; `work` must be
   * re-runnable.
   */
  transaction<T>(work: (client: Queryable) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

export interface DbOptions {
  /** How long a query waits for an unreachable database before it fails (default 15 s). */
  retryForMs?: number;
  maxConnections?: number;
  onRetry?(message: string): void;
}

/** Checks a --store / DATABASE_URL value; throws one line that names the fix. */
export function parseStoreUrl(value: string): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new HostError(
      'ERR_OPTIONS_INVALID',
      `--store: "${value.replace(/:[^:@/]*@/, ':***@')}" is not a URL; expected ` +
        `postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE (omit --store for the SQLite ` +
        `default)`,
    );
  }
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') {
    throw new HostError(
      'ERR_OPTIONS_INVALID',
      `--store: unsupported scheme "${url.protocol}"; expected ` +
        `postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE (omit --store for the SQLite default, ` +
        `or use --data FILE)`,
    );
  }
  if (url.pathname === '' || url.pathname === '/')
    throw new HostError(
      'ERR_OPTIONS_INVALID',
      '--store: the URL names no database; expected postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE',
    );
  return url;
}

export function redactUrl(url: URL): string {
  const copy = new URL(url.href);
  if (copy.password !== '') copy.password = '***';
  return copy.href;
}

/** Errors that mean "the connection is gone or not there yet": worth a retry, never a client's fault. */
export function isConnectionError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string') {
    if (
      [
        'ECONNREFUSED',
        'ECONNRESET',
        'ETIMEDOUT',
        'EPIPE',
        'EHOSTUNREACH',
        'ENETUNREACH',
        'EAI_AGAIN',
        'ENOTFOUND',
      ].includes(code)
    )
      return true;
    // 08: connection exception; 57P01-03: admin shutdown, crash shutdown, cannot connect now.
    if (code.startsWith('08') || code === '57P01' || code === '57P02' || code === '57P03') return true;
  }
  const message = error instanceof Error ? error.message : '';
  return /Connection terminated|connection timeout|Client has encountered a connection error|not queryable/i.test(
    message,
  );
}

function describeConnectFailure(error: unknown, url: URL): string {
  const where = `${url.hostname}:${url.port || '5432'}`;
  const code = (error as { code?: string }).code;
  const database = decodeURIComponent(url.pathname.slice(1));
  if (code === 'ECONNREFUSED')
    return (
      `cannot reach PostgreSQL at ${where} (connection refused): is the ` +
      `server running and listening there? Check --store / DATABASE_URL`
    );
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN')
    return `cannot resolve the PostgreSQL host "${url.hostname}": check --store / DATABASE_URL`;
  if (code === '3D000')
    return (
      `PostgreSQL at ${where} has no database "${database}": create it ` +
      `(createdb ${database}) or name another in --store / DATABASE_URL`
    );
  if (code === '28P01' || code === '28000')
    return (
      `PostgreSQL at ${where} refused the credentials of user ` +
      `"${decodeURIComponent(url.username) || '(default)'}": check the user and password in ` +
      `--store / DATABASE_URL`
    );
  const message = (error instanceof Error ? error.message : String(error)).split('\n')[0];
  return `cannot connect to PostgreSQL at ${where}: ${message}; check --store / DATABASE_URL`;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function openDb(value: string, options: DbOptions = {}): Promise<Db> {
  const url = parseStoreUrl(value);
  const retryForMs = options.retryForMs ?? 15_000;
  const pool = new pg.Pool({
    connectionString: url.href,
    max: options.maxConnections ?? 10,
    types,
    connectionTimeoutMillis: 5_000,
    idleTimeoutMillis: 30_000,
  });
  // An idle client losing its connection must not crash the host; the next query reconnects.
  pool.on('error', () => {});
  try {
    const client = await pool.connect();
    client.release();
  } catch (error) {
    await pool.end().catch(() => {});
    throw new HostError('ERR_STORE_UNAVAILABLE', describeConnectFailure(error, url));
  }

  async function retrying<T>(what: () => Promise<T>): Promise<T> {
    const started = Date.now();
    let delay = 100;
    for (;;) {
      try {
        return await what();
      } catch (error) {
        if (!isConnectionError(error)) throw error;
        if (Date.now() - started >= retryForMs) {
          throw new HostError(
            'ERR_STORE_UNAVAILABLE',
            `the database at ${url.hostname}:${url.port || '5432'} has been ` +
              `unreachable for ${Math.round((Date.now() - started) / 1000)} s`,
          );
        }
        options.onRetry?.(`database unreachable (${(error as Error).message.split('\n')[0]}); retrying in ${delay} ms`);
        await sleep(delay);
        delay = Math.min(delay * 2, 1_000);
      }
    }
  }

  const traffic = new TrafficCounter();
  const sent = (): void => {
    traffic.roundTrips++;
    traffic.statements++;
  };
  return {
    pool,
    safeUrl: redactUrl(url),
    connectionString: url.href,
    traffic,
    query: <R extends pg.QueryResultRow>(text: string, values?: unknown[], name?: string) =>
      retrying(() => {
        sent();
        return name === undefined ? pool.query<R>(text, values) : pool.query<R>({ name, text, values });
      }),
    transaction: (work) =>
      retrying(async () => {
        const client = await pool.connect();
        let broken = false;
        const counted: Queryable = {
          query: ((...args: Parameters<pg.PoolClient['query']>) => {
            sent();
            return (client.query as (...a: unknown[]) => unknown)(...args);
          }) as pg.PoolClient['query'],
        };
        try {
          sent();
          await client.query('BEGIN');
          const result = await work(counted);
          sent();
          await client.query('COMMIT');
          return result;
        } catch (error) {
          broken = isConnectionError(error);
          if (!broken) await client.query('ROLLBACK').catch(() => {});
          throw error;
        } finally {
          // A connection that failed is discarded rather than handed to the next query.
          client.release(broken);
        }
      }),
    close: () => pool.end(),
  };
}
