// Completions of a string property (docs/manifest.md, docs/installations.md): finds its completion_url and judges what
// the integration answered there. Pure; it never passes on an answer that is not a 200 JSON list of
// { label, value } strings, and names the problem instead (502 ERR_COMPLETION_INVALID).

import { Ajv } from 'ajv';
import { HostError } from '../common/errors.ts';
import { jsonTextTooDeep, tooDeepMessage } from '../common/json-depth.ts';
import type { LoadedIntegration } from '../manifest/types.ts';
import type { Installation } from './model.ts';
import type { SandboxResponse } from '../../sandbox-api/runtime/contract.ts';
import { configurationSchemaFor } from './plan.ts';

export interface CompletionItem {
  label: string;
  value: string;
}

const validateItems = new Ajv({ allErrors: false, strict: true }).compile<CompletionItem[]>({
  type: 'array',
  items: {
    type: 'object',
    required: ['label', 'value'],
    properties: { label: { type: 'string' }, value: { type: 'string' } },
  },
});

/** The completion_url of `property`, or 404 naming the property when it has none. */
export function completionUrlOf(integration: LoadedIntegration, installation: Installation, property: string): string {
  const properties = configurationSchemaFor(integration, installation.target)?.properties ?? {};
  const definition = Object.hasOwn(properties, property) ? properties[property] : undefined;
  if (definition?.type !== 'string' || definition.completion_url === undefined) {
    throw new HostError(
      'ERR_NOT_FOUND',
      `property "${property}" of the ${installation.target} configuration has no completion_url`,
    );
  }
  return definition.completion_url;
}

function invalid(path: string, problem: string): HostError {
  return new HostError(
    'ERR_COMPLETION_INVALID',
    `the integration's answer at ${path} is not a list of { label, value }: ${problem}`,
  );
}

export function readCompletionAnswer(response: SandboxResponse, path: string): CompletionItem[] {
  if (response.status !== 200) throw invalid(path, `it answered status ${response.status}`);
  let parsed: unknown;
  try {
    const text = new TextDecoder('utf-8', { fatal: true }).decode(response.body);
    if (jsonTextTooDeep(text)) throw invalid(path, `the body ${tooDeepMessage()}`);
    parsed = JSON.parse(text);
  } catch (error) {
    if (error instanceof HostError) throw error;
    // The parser's message would quote the body; the status of the problem is enough here.
    throw invalid(path, 'the body is not JSON');
  }
  if (!validateItems(parsed)) {
    const error = validateItems.errors?.[0];
    const where = error?.instancePath ? `item ${error.instancePath.slice(1).split('/').join('.')}` : 'the body';
    throw invalid(path, `${where} ${error?.message ?? 'is invalid'}`);
  }
  // Only the two documented fields travel on: extra fields are the integration's business.
  return parsed.map(({ label, value }) => ({ label, value }));
}
