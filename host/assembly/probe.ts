// Tries a published version's bundle before it is made current: registered under a `host:probe:`
// name no manifest can take, started in a fresh isolate by one dispatch of an event no handler
// answers, then forgotten. Says why it failed to start (its top level threw, timed out, or its
// default export is not an integration); never touches the registry or the event log.

import type { IntegrationBundle } from '../manifest/types.ts';
import type { Supervisor } from '../sandbox/supervisor.ts';

/** The probe dispatch's event type: a createIntegration() integration answers "no handler" without running code. */
export const PROBE_EVENT = 'host_version_check';

const linesOf = (logs: readonly { level: string; text: string }[] | undefined): string =>
  (logs ?? [])
    .filter((line) => line.level === 'error')
    .map((line) => line.text.split('\n')[0])
    .join(' | ');

export function createProbe(
  supervisor: Pick<Supervisor, 'register' | 'dispatch' | 'unregister'>,
): (integration: string, bundle: IntegrationBundle) => Promise<string | null> {
  let count = 0;
  return async (integration, bundle) => {
    // One name per integration: tries of one integration run one at a time (the publishing service's queue).
    const name = `host:probe:${integration}`;
    supervisor.register(name, { code: bundle.code, hash: bundle.hash, ...(bundle.map ? { map: bundle.map } : {}) });
    try {
      const outcome = await supervisor.dispatch(name, {
        event: { eventId: `evt_probe_${++count}`, type: PROBE_EVENT },
        environment: {},
        fetchBody: null,
      });
      if (outcome.response.verdict === 'bad-entry')
        return linesOf(outcome.logs) || 'its default export is not what createIntegration() returns';
      return null;
    } catch (error) {
      const logs = linesOf((error as { logs?: { level: string; text: string }[] }).logs);
      return `${(error as Error).message}${logs ? ` (${logs})` : ''}`;
    } finally {
      supervisor.unregister(name);
    }
  };
}
