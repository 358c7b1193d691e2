// `publish [folder]`, `versions <name>` and `rollback <name> <version>`: build and check an
// integration folder as `check` does, upload it to a host's admin API, list its versions, make an
// earlier one current. Prints one line per outcome; every failure is one line with the fix.

import path from 'node:path';
import { HostError } from '../common/errors.ts';
import { formatProblem } from '../manifest/format.ts';
import { loadIntegration } from '../manifest/load.ts';
import { packArchive } from '../publish/archive-files.ts';
import type { VersionSummary } from '../publish/model.ts';
import { publishedFiles } from './publish-files.ts';
import { callHost, remoteOf } from './remote.ts';

export interface RemoteFlags {
  host?: string;
  token?: string;
}

const remote = (flags: RemoteFlags) => remoteOf(flags, '--token', 'INTEGRATION_HOST_TOKEN');
const short = (hash: string) => hash.slice(0, 12);

export async function runPublish(folder: string, flags: RemoteFlags): Promise<void> {
  const target = remote(flags);
  const dir = path.resolve(folder);
  // As `check` judges it: what the host needs (stored secrets) is the host's business, not this machine's.
  const loaded = await loadIntegration(dir, { env: process.env, check: true, mode: 'production' });
  for (const warning of loaded.warnings) process.stderr.write(`${formatProblem(warning)} (warning)\n`);
  if (loaded.status !== 'ready' || loaded.bundle === undefined) {
    for (const problem of loaded.errors) process.stderr.write(`${formatProblem(problem)}\n`);
    throw new HostError(
      'ERR_VERSION_INVALID',
      loaded.errors.length > 0
        ? `${loaded.name} does not load (above); nothing was uploaded`
        : `${loaded.name} has no script to publish; nothing was uploaded`,
    );
  }
  const files = await publishedFiles(dir, loaded.bundle.inputs ?? []);
  const archive = await packArchive(files);
  const { status, body } = await callHost(
    target,
    'POST',
    `/v1/integrations/${encodeURIComponent(loaded.name)}/versions`,
    { type: 'application/gzip', bytes: new Uint8Array(archive) },
  );
  const version = body as VersionSummary & { warnings: string[] };
  for (const warning of version.warnings) process.stderr.write(`host: ${warning} (warning)\n`);
  process.stdout.write(
    status === 201
      ? `published ${version.integration} version ${version.version} (${files.length} files, ` +
          `${archive.length} bytes gzipped, sha256 ${short(version.contentHash)}) to ${target.url}: it serves now\n`
      : `${version.integration} version ${version.version} at ${target.url} has the same files: nothing new\n`,
  );
}

export async function runVersions(integration: string, flags: RemoteFlags): Promise<void> {
  const target = remote(flags);
  const { body } = await callHost(target, 'GET', `/v1/integrations/${encodeURIComponent(integration)}/versions`);
  const rows = (body as { items: VersionSummary[] }).items.map((item) => [
    `${item.current ? '*' : ' '} ${item.version}`,
    item.publishedAt,
    item.publishedBy,
    short(item.contentHash),
    `${item.files} files`,
  ]);
  const widths = rows[0]?.map((_, column) => Math.max(...rows.map((row) => row[column].length))) ?? [];
  process.stdout.write(`versions of ${integration} at ${target.url} (* current):\n`);
  for (const row of rows) process.stdout.write(`${row.map((cell, index) => cell.padEnd(widths[index])).join('  ')}\n`);
}

export async function runRollback(integration: string, version: string, flags: RemoteFlags): Promise<void> {
  const target = remote(flags);
  if (!/^[1-9][0-9]*$/.test(version))
    throw new HostError('ERR_OPTIONS_INVALID', `<version> must be a version number (1, 2, …); got "${version}"`);
  const { body } = await callHost(
    target,
    'POST',
    `/v1/integrations/${encodeURIComponent(integration)}/versions/${version}/current`,
  );
  const current = body as VersionSummary;
  process.stdout.write(`${integration} version ${current.version} is current at ${target.url}: it serves now\n`);
}
