// Conversation ingestion (docs/platform-api.md): `POST /v1/conversations` (`conversations:ingest`) into
// the installation's own organization. A space or site the body names goes through the same
// authorize() as any route's resource, so a foreign one is 404 exactly like a foreign path.

import { installationOf, type ApiRoute } from '../types.ts';
import type { PlatformApiDeps } from '../deps.ts';
import { authorize } from '../authorize.ts';
import { compileBodyValidator } from '../../common/validate-body.ts';
import { HostError } from '../../common/errors.ts';

interface ConversationBody {
  spaceId?: string;
  siteId?: string;
  messages: { role: 'user' | 'assistant' | 'system'; content: string }[];
}

const validateConversation = compileBodyValidator<ConversationBody>({
  type: 'object',
  additionalProperties: false,
  required: ['messages'],
  properties: {
    spaceId: { type: 'string', minLength: 1 },
    siteId: { type: 'string', minLength: 1 },
    messages: {
      type: 'array',
      minItems: 1,
      maxItems: 1000,
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['role', 'content'],
        properties: { role: { type: 'string', enum: ['user', 'assistant', 'system'] }, content: { type: 'string' } },
      },
    },
  },
  // Wrapped so ajv's `not` error carries this message (validate-body reads the parent's failureMessage).
  allOf: [{ not: { required: ['spaceId', 'siteId'] }, failureMessage: 'must name a space or a site, not both' }],
});

export const conversationRoutes: ApiRoute<PlatformApiDeps>[] = [
  {
    method: 'POST',
    pattern: '/v1/conversations',
    scope: 'conversations:ingest',
    resource: () => ({ kind: 'organization' }),
    async handle({ body, caller, deps }) {
      const input = validateConversation(body);
      // Scope already granted by the route; only the named resource is left to check.
      const checks = { directory: deps.directory, installations: deps.installations };
      if (input.spaceId !== undefined) await authorize(caller, null, { kind: 'space', id: input.spaceId }, checks);
      if (input.siteId !== undefined) await authorize(caller, null, { kind: 'site', id: input.siteId }, checks);
      // Bounded per installation, however many conversations it sends (JSON of the messages, as stored).
      const chars = JSON.stringify(input.messages).length;
      const usage = await deps.platform.conversationUsage(installationOf(caller).id);
      if (usage.chars + chars > deps.quotas.maxConversationBytesPerInstallation) {
        throw new HostError(
          'ERR_QUOTA_EXCEEDED',
          `this installation's conversations would hold ${usage.chars + chars} ` +
            `characters, more than its ${deps.quotas.maxConversationBytesPerInstallation}`,
        );
      }
      const record = await deps.platform.recordConversation({
        organization: installationOf(caller).organization,
        installationId: installationOf(caller).id,
        spaceId: input.spaceId ?? null,
        siteId: input.siteId ?? null,
        messages: input.messages,
      });
      return {
        status: 201,
        body: {
          id: record.id,
          organization: record.organization,
          spaceId: record.spaceId,
          siteId: record.siteId,
          messages: record.messages.length,
          createdAt: record.createdAt,
        },
      };
    },
  },
];
