// `publishers issue|list|revoke`: an operator's publisher tokens, through a host's admin API. The
// token is printed once, when issued, with how to hand it over; listings never show one.

import { callHost, remoteOf } from './remote.ts';
import type { PublisherView } from '../publish/service.ts';
import { commandLine } from '../common/invocation.ts';

export interface AdminFlags {
  host?: string;
  adminToken?: string;
}

const admin = (flags: AdminFlags) =>
  remoteOf({ host: flags.host, token: flags.adminToken }, '--admin-token', 'HOST_ADMIN_TOKEN');

export async function runIssuePublisher(options: AdminFlags & { organization: string; label?: string }) {
  const target = admin(options);
  const bytes = new TextEncoder().encode(
    JSON.stringify({ organization: options.organization, label: options.label ?? '' }),
  );
  const { body } = await callHost(target, 'POST', '/v1/publishers', { type: 'application/json', bytes });
  const issued = body as PublisherView & { token: string };
  process.stdout.write(
    `publisher ${issued.id} for organization ${issued.organization}; its token, shown only now:\n${issued.token}\n` +
      `hand it to the author, who runs: INTEGRATION_HOST_TOKEN=<token> ` +
      `${commandLine('publish', `<folder> --host ${target.url}`)}\n`,
  );
}

export async function runListPublishers(options: AdminFlags) {
  const { body } = await callHost(admin(options), 'GET', '/v1/publishers');
  for (const item of (body as { items: PublisherView[] }).items)
    process.stdout.write(
      `${item.id}  ${item.organization}  ${item.createdAt}  ` +
        `${item.revokedAt ? `revoked ${item.revokedAt}` : 'active'}` +
        `${item.label ? `  ${item.label}` : ''}\n`,
    );
}

export async function runRevokePublisher(id: string, options: AdminFlags) {
  await callHost(admin(options), 'DELETE', `/v1/publishers/${encodeURIComponent(id)}`);
  process.stdout.write(`publisher ${id} revoked: its token is refused from now on\n`);
}
