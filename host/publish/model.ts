// The records of published integrations and publisher tokens, and the interfaces a store
// implements for them (store/sqlite, store/postgres). A version row is immutable once written;
// only which version is current moves. Types only.

/** Who published or rolled back: the operator (admin token or console), or a publisher token's id. */
export type Actor = { kind: 'admin' } | { kind: 'publisher'; id: string; organization: string };

/** `admin` or `publisher:<id>`, as stored and shown. */
export const actorName = (actor: Actor): string => (actor.kind === 'admin' ? 'admin' : `publisher:${actor.id}`);

/** What a version is, without its contents: listings, the console, the event log's `version`. */
export interface VersionSummary {
  integration: string;
  version: number;
  organization: string;
  /** sha256 hex of the uploaded files (archive-files.ts contentHash). */
  contentHash: string;
  /** sha256 of the bundle's inputs as the host that accepted it built it. */
  bundleHash: string;
  files: number;
  bytes: number;
  publishedBy: string;
  publishedAt: string;
  current: boolean;
}

/** Everything a host needs to serve a version, as stored. */
export interface PublishedVersion extends Omit<VersionSummary, 'current'> {
  /** The canonical archive of the uploaded files (archive-files.ts packArchive). */
  archive: Uint8Array;
  /** The bundle as accepted and its source map (JSON). */
  bundle: string;
  sourceMap: string | null;
}

export type NewVersion = Omit<PublishedVersion, 'version'>;

/** The current version of each published integration. */
export interface CurrentVersion {
  integration: string;
  version: number;
}

export interface VersionStore {
  /**
   * Stores the next version of its integration (1, 2, …) and makes it current, in one transaction
   * that also announces the change to every host. Throws ERR_PUBLISHER_FORBIDDEN when earlier
   * versions of that name belong to another organization.
   */
  add(version: NewVersion, changedAt: string): Promise<VersionSummary>;
  /** Newest first; empty for a name never published. */
  list(integration: string): Promise<VersionSummary[]>;
  get(integration: string, version: number): Promise<PublishedVersion | undefined>;
  /** Every published integration's current version. */
  currents(): Promise<CurrentVersion[]>;
  /** Makes an existing version current (a rollback, or back again); false when there is no such version. */
  setCurrent(integration: string, version: number, by: string, at: string): Promise<boolean>;
  /** A number that moves with every change of a current version, by any process on this database. */
  revision(): Promise<number>;
  /** Calls `listener` with the integration another host changed (PostgreSQL notifications); absent elsewhere. */
  subscribe?(listener: (integration: string) => void): () => void;
}

export interface PublisherRecord {
  /** `pub_…`: public, part of the token, names it in listings and in `publishedBy`. */
  id: string;
  organization: string;
  label: string;
  /** sha256 hex of the whole token; the token itself is never stored. */
  tokenHash: string;
  createdAt: string;
  revokedAt: string | null;
}

export interface PublisherStore {
  add(record: PublisherRecord): Promise<void>;
  find(id: string): Promise<PublisherRecord | undefined>;
  /** Oldest first, revoked ones included. */
  list(): Promise<PublisherRecord[]>;
  /** Marks it revoked; false when there is no such publisher or it was revoked already. */
  revoke(id: string, at: string): Promise<boolean>;
}
