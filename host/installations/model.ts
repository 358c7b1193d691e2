// The installation record and its public JSON, the store interface that persists them, and how
// installation flows reach their integration. Types only: creation rules live in plan.ts, edits
// in lifecycle.ts.

import type { SandboxEvent, SandboxResponse } from '../../sandbox-api/runtime/contract.ts';

export type InstallationTarget = 'organization' | 'space' | 'site';
export type InstallationStatus = 'pending' | 'active' | 'paused';

export interface Installation {
  id: string;
  integration: string;
  organization: string;
  target: InstallationTarget;
  space?: string;
  site?: string;
  status: InstallationStatus;
  configuration: Record<string, unknown>;
  /** Organization installations only: every space of the organization, or the listed ones. */
  spaceSelection?: 'all' | string[];
  createdAt: string;
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

/** Durable installations and their token hashes. Records it returns are frozen: replace, never mutate. */
export interface InstallationStore {
  insertInstallation(installation: Installation, tokenHash: string): void;
  getInstallation(id: string): Installation | undefined;
  listInstallations(filter?: { integration?: string }): Installation[];
  updateInstallation(id: string, patch: Partial<Pick<Installation, 'status' | 'configuration'>>): void;
  /** The installation id a token hash belongs to, if the token is still valid. */
  findTokenOwner(tokenHash: string): string | undefined;
  /** Removes an installation and revokes its tokens, in one transaction. */
  deleteInstallation(id: string): void;
}

/**
 * How installation flows (setup events, completions) reach their integration; assembly wires it
 * to the dispatcher, which adds the event id and the environment.
 */
export type RunEvent = (installation: Installation, event: Omit<SandboxEvent, 'eventId'>, fetchBody: Uint8Array | null) => Promise<{ response: SandboxResponse }>;
