// The set of stores a host runs on, whatever the database: each domain defines the interface of
// its own records, and a store implementation (sqlite/) provides all of them over one database.

import type { EventLog } from '../dispatch/event-log.ts';
import type { InstallationStore } from '../installations/model.ts';
import type { OAuthStateStore } from '../installations/oauth-state.ts';
import type { SealedStateStore } from '../oauth-seal/sealed-states.ts';
import type { PlatformStore } from '../platform-data/records.ts';
import type { Outbox } from '../webhooks/outbox.ts';
import type { SigningSecretStore } from '../webhooks/secrets.ts';
import type { IntegrationSecretStore } from '../secrets/model.ts';
import type { TaskStore } from '../tasks/model.ts';
import type { OwedEventStore } from '../owed-events/model.ts';
import type { StoreTraffic } from './traffic.ts';
import type { WorkChannel } from '../common/work-announcements.ts';
import type { PublisherStore, VersionStore } from '../publish/model.ts';

/** Small named values kept across restarts (the token secret). */
export interface MetaStore {
  get(key: string): Promise<string | undefined>;
  /**
   * Stores `value` unless the key has one already; returns the stored value (the first writer wins, across hosts too).
   */
  setIfAbsent(key: string, value: string): Promise<string>;
}

export interface HostStores {
  /** What the store is, for the startup line (`sqlite .data/host.db`, `postgres postgres://…`; never a password). */
  readonly description: string;
  /**
   * Whether other hosts may write the same database at once (PostgreSQL). A shared store's queues
   * are claimed under leases; hosts announce work they cannot start (`work`) and poll, slowly, for
   * what no one announced (a lapsed lease).
   */
  readonly shared: boolean;
  /** Resolves when the database answers now; rejects otherwise (the readiness route). */
  ping(): Promise<void>;
  /** Round trips and statements this host has asked of the database since it opened (traffic.ts). */
  traffic(): StoreTraffic;
  meta: MetaStore;
  installations: InstallationStore;
  platform: PlatformStore;
  eventLog: EventLog;
  oauthStates: OAuthStateStore;
  /** The states sealing GitBook-runtime OAuth flows (oauth-seal/sealed-states.ts). */
  sealedOAuthStates: SealedStateStore;
  outbox: Outbox;
  signingSecrets: SigningSecretStore;
  /** Secrets an operator stored per integration (ciphertext only; host/secrets/ decrypts). */
  secrets: IntegrationSecretStore;
  tasks: TaskStore;
  /** Platform events owed to installations' integrations (written by `installations`' transactions). */
  owedEvents: OwedEventStore;
  /**
   * Shared stores: hosts tell each other of work waiting in the queues (LISTEN/NOTIFY), so a host
   * with room takes what another cannot start now. Absent where one process has the store (SQLite).
   */
  work?: WorkChannel;
  /** Published integrations: immutable versions and which one is current (host/publish/). */
  versions: VersionStore;
  /** Publisher tokens (hashes only). */
  publishers: PublisherStore;
  /** Flushes what is buffered (the event log) and closes the database. */
  close(): Promise<void>;
}
