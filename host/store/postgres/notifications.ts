// Cross-host cache invalidation over LISTEN/NOTIFY: one dedicated connection listens on the
// host's channel; a write on any host notifies `installation:<id>`, `secrets:<integration>` or
// `published:<integration>` at commit. While the listener is down the cache is switched off (every
// read goes to the database), and it is cleared when the listener is back, so a missed
// notification can never leave a stale record behind. The same connection hears `work:<queue>`
// announcements of waiting work (work-notices.ts), which it only hands on.

import pg from 'pg';

export const CHANNEL = 'integration_host';
const INSTALLATION = 'installation:';
const SECRETS = 'secrets:';
/** Announcements of waiting work (work-notices.ts writes and reads what follows it). */
export const WORK = 'work:';
const PUBLISHED = 'published:';

export const installationMessage = (id: string): string => `${INSTALLATION}${id}`;
export const secretsMessage = (integration: string): string => `${SECRETS}${integration}`;
export const publishedMessage = (integration: string): string => `${PUBLISHED}${integration}`;

export interface InvalidationTarget {
  invalidate(id: string): void;
  setEnabled(enabled: boolean): void;
  /** The stored secrets of an integration changed (the host also polls their revision, so a missed one is caught). */
  secretsChanged?(integration: string): void;
  /** Another host announced waiting work: the message after `work:`. */
  workAnnounced?(message: string): void;
  /** The current published version of an integration changed (hosts also poll the revision). */
  publishedChanged?(integration: string): void;
}

export interface Listener {
  /** Resolves once the first LISTEN is in place (or failed: the cache then stays off until it is). */
  ready: Promise<void>;
  /** Whether notifications are arriving now. */
  live(): boolean;
  close(): Promise<void>;
}

export function listenForChanges(
  connectionString: string,
  target: InvalidationTarget,
  log: { warn(message: string): void; info(message: string): void },
): Listener {
  let client: pg.Client | null = null;
  let closed = false;
  let live = false;
  let retryHandle: ReturnType<typeof setTimeout> | undefined;
  let delay = 100;
  let announceReady: () => void = () => {};
  const ready = new Promise<void>((resolve) => (announceReady = resolve));

  const lost = (reason: string): void => {
    if (live)
      log.warn(
        `store: change notifications interrupted (${reason}); reading ` +
          `installations from the database until they are back`,
      );
    live = false;
    target.setEnabled(false);
    client?.removeAllListeners();
    client?.on('error', () => {});
    void client?.end().catch(() => {});
    client = null;
    if (!closed) {
      retryHandle = setTimeout(connect, delay);
      delay = Math.min(delay * 2, 2_000);
    }
  };

  async function connect(): Promise<void> {
    if (closed) return;
    const next = new pg.Client({ connectionString, connectionTimeoutMillis: 5_000, keepAlive: true });
    client = next;
    next.on('error', (error) => lost(error.message.split('\n')[0]));
    next.on('end', () => client === next && lost('connection ended'));
    next.on('notification', (message) => {
      const payload = message.payload ?? '';
      if (payload.startsWith(INSTALLATION)) target.invalidate(payload.slice(INSTALLATION.length));
      else if (payload.startsWith(SECRETS)) target.secretsChanged?.(payload.slice(SECRETS.length));
      else if (payload.startsWith(WORK)) target.workAnnounced?.(payload.slice(WORK.length));
      else if (payload.startsWith(PUBLISHED)) target.publishedChanged?.(payload.slice(PUBLISHED.length));
    });
    try {
      await next.connect();
      await next.query(`LISTEN ${CHANNEL}`);
      if (closed || client !== next) return;
      const wasDown = delay > 100;
      delay = 100;
      live = true;
      // Cleared and switched on only now: anything written while we were not listening is re-read.
      target.setEnabled(true);
      if (wasDown) log.info('store: change notifications are back; installation cache on');
    } catch (error) {
      if (client === next) lost((error as Error).message.split('\n')[0]);
    } finally {
      announceReady();
    }
  }

  target.setEnabled(false);
  void connect();
  return {
    ready,
    live: () => live,
    async close() {
      closed = true;
      clearTimeout(retryHandle);
      const current = client;
      client = null;
      live = false;
      current?.removeAllListeners();
      current?.on('error', () => {});
      await current?.end().catch(() => {});
    },
  };
}
