// The installation record and its public JSON, the store interface that persists them, and how
// installation flows reach their integration. Types only: creation rules live in plan.ts, edits
// in lifecycle.ts.

import type { SandboxEvent, SandboxResponse } from '../../sandbox-api/runtime/contract.ts';
import type { NewOwedEvent } from '../owed-events/model.ts';

export type InstallationTarget = 'organization' | 'space' | 'site';
export type InstallationStatus = 'pending' | 'active' | 'paused';

export interface Installation {
  id: string;
  integration: string;
  organization: string;
  target: InstallationTarget;
  space?: string;
  site?: string;
  /**
   * Space and site installations: the organization installation they belong to (GitBook's
   * hierarchy). Absent on organization installations and on the built-in webhook's installations.
   */
  parent?: string;
  status: InstallationStatus;
  configuration: Record<string, unknown>;
  /** Ids of the installation in other systems, set by the integration through the API (at most 5); [] when absent. */
  externalIds?: string[];
  /** Organization installations only: every space of the organization, or the listed ones. */
  spaceSelection?: 'all' | string[];
  createdAt: string;
  /** When the record last changed; createdAt when absent. */
  updatedAt?: string;
}

/**
 * The public JSON of an installation: button properties' stored values are shown as
 * "[redacted]"; `urls.buttons` maps each button property to the absolute URL of its callback_url.
 */
export interface InstallationView extends Omit<Installation, 'spaceSelection'> {
  /** Organization installations: every space (`all`) or the selected space ids. */
  space_selection?: 'all' | string[];
  urls: { publicEndpoint: string; buttons: Record<string, string> };
}

export interface CreateInstallationInput {
  organization: string;
  target: InstallationTarget;
  space?: string;
  site?: string;
  installLink?: string;
  /** Organization target only; default 'all'. */
  space_selection?: 'all' | string[];
}

/** What an edit changes: configuration and status, and optionally the external ids and the time of the change. */
export type InstallationPatch = Pick<Installation, 'status' | 'configuration'> &
  Partial<Pick<Installation, 'externalIds' | 'updatedAt'>>;

/** A space or site installation as placed under its organization installation. */
export interface PlacedInstallation {
  child: Installation;
  parent: Installation;
  /** Whether `parent` was created by this call (no organization installation existed). */
  parentCreated: boolean;
}

/** The record before and after an edit. */
export interface InstallationEdit {
  before: Installation;
  after: Installation;
}

/**
 * Which installations to list: each given field must match; `after` continues a listing in
 * (createdAt, id) order after that record, and `limit` caps how many come back.
 */
export interface InstallationFilter {
  integration?: string;
  organization?: string;
  target?: InstallationTarget;
  /** The space and site installations under one organization installation. */
  parent?: string;
  after?: { createdAt: string; id: string };
  limit?: number;
}

/**
 * Durable installations and their token hashes. Every method may cross a network (PostgreSQL), so
 * each is atomic by itself. Records it returns are frozen: replace, never mutate.
 */
export interface InstallationStore {
  /** `owed`: the events the new installation is owed (owed-events/), written in the same transaction. */
  insertInstallation(installation: Installation, tokenHash: string, owed?: readonly NewOwedEvent[]): Promise<void>;
  /**
   * Inserts a space or site installation under the organization installation it belongs to, in
   * one transaction: the earliest organization installation of its integration in its
   * organization, or `candidateParent` (inserted first, with its token) when there is none. The
   * stored child carries the parent's id. `owe` names the events owed for the placement, written
   * in the same transaction (it must be pure and synchronous).
   */
  insertChildInstallation(
    child: Installation,
    childTokenHash: string,
    candidateParent: Installation,
    parentTokenHash: string,
    owe?: (placed: PlacedInstallation) => readonly NewOwedEvent[],
  ): Promise<PlacedInstallation>;
  /**
   * The same for a space or site installation stored before the hierarchy existed (no parent yet):
   * links it to its organization installation, creating `candidateParent` when there is none.
   * Undefined when the installation does not exist; its current placement when it has a parent already.
   */
  adoptChildInstallation(
    childId: string,
    candidateParent: Installation,
    parentTokenHash: string,
  ): Promise<PlacedInstallation | undefined>;
  getInstallation(id: string): Promise<Installation | undefined>;
  /** In (createdAt, id) order. */
  listInstallations(filter?: InstallationFilter): Promise<Installation[]>;
  /**
   * Reads the installation, runs `plan` on it and writes what it returns, in one transaction, so
   * two edits of one installation never interleave (on one host or several). `plan` must be pure
   * and synchronous; when it throws, nothing is written and the error is passed on. Undefined when
   * the installation does not exist. `owe` names the events owed for the edit, written in the same
   * transaction (pure and synchronous too).
   */
  editInstallation(
    id: string,
    plan: (current: Installation) => InstallationPatch,
    owe?: (edit: InstallationEdit) => readonly NewOwedEvent[],
  ): Promise<InstallationEdit | undefined>;
  /** The installation id a token hash belongs to, if the token is still valid. */
  findTokenOwner(tokenHash: string): Promise<string | undefined>;
  /**
   * Removes an installation and revokes its tokens, in one transaction, with the space and site
   * installations under it (an organization installation), and the events still owed to them; the
   * removed record, or undefined when there was none.
   */
  deleteInstallation(id: string): Promise<Installation | undefined>;
}

/**
 * How installation flows (setup events, completions) reach their integration; assembly wires it
 * to the dispatcher, which adds the event id and the environment.
 */
export type RunEvent = (
  installation: Installation,
  event: Omit<SandboxEvent, 'eventId'>,
  fetchBody: Uint8Array | null,
) => Promise<{ response: SandboxResponse }>;
