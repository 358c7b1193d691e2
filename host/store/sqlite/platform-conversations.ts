// node:sqlite records of the conversations integrations ingest (`POST /v1/conversations`).
// Append-only; never checks who is asking nor what the messages say (the route validates them).

import { randomUUID } from 'node:crypto';
import type { DatabaseSync } from 'node:sqlite';
import type { ConversationRecord, PlatformStore } from '../../platform-data/records.ts';

export function createConversationRecords(
  db: DatabaseSync,
): Pick<PlatformStore, 'recordConversation' | 'conversationUsage'> {
  const insert = db.prepare(
    'INSERT INTO conversations (id, organization, installation_id, space, ' +
      'site, messages, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
  );
  const usage = db.prepare(
    'SELECT COUNT(*) AS count, COALESCE(SUM(LENGTH(messages)), 0) ' +
      'AS chars FROM conversations WHERE installation_id = ?',
  );
  return {
    async recordConversation(input) {
      const record: ConversationRecord = {
        ...input,
        id: `conv_${randomUUID().replaceAll('-', '')}`,
        createdAt: new Date().toISOString(),
      };
      insert.run(
        record.id,
        record.organization,
        record.installationId,
        record.spaceId,
        record.siteId,
        JSON.stringify(record.messages),
        record.createdAt,
      );
      return record;
    },
    async conversationUsage(installationId) {
      const row = usage.get(installationId) as { count: number; chars: number };
      return { conversations: Number(row.count), chars: Number(row.chars) };
    },
  };
}
