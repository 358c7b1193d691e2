// The readiness verdict of one host: ready only while its store answers (within a bound), every
// sandbox worker is up and it is not shutting down. Each check says what it found; none carries
// an internal error message, since /ready answers anyone.

import type { HostServices } from '../server/services.ts';

const STORE_PING_TIMEOUT_MS = 2_000;

export interface ReadinessSources {
  ping(): Promise<void>;
  workersUp(): { up: number; total: number };
  shuttingDown(): boolean;
}

export function createReadiness(sources: ReadinessSources): HostServices['readiness'] {
  return async () => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const store = await Promise.race([
      sources.ping().then(
        () => 'ok',
        () => 'unreachable',
      ),
      new Promise<string>(
        (resolve) =>
          (timer = setTimeout(() => resolve(`no answer within ${STORE_PING_TIMEOUT_MS} ms`), STORE_PING_TIMEOUT_MS)),
      ),
    ]);
    clearTimeout(timer);
    const { up, total } = sources.workersUp();
    const workers = `${up} of ${total} sandbox workers up`;
    const host = sources.shuttingDown() ? 'shutting down' : 'serving';
    return {
      ready: store === 'ok' && up === total && total > 0 && host === 'serving',
      checks: { store, workers, host },
    };
  };
}
