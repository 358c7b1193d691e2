// Exercises one loaded GitBook integration through the host's HTTP API as a user would: install
// where its target says, configure, connect its buttons, render its components and press their
// actions, call its endpoints, fetch its site script, fire its events; then judge it (evidence.ts)
// from the answers and its event log, and uninstall it so it receives nothing more.

import path from 'node:path';
import { exerciseComponent } from './components.ts';
import { connectButton } from './connect.ts';
import { judgeExercise, judgeLoad, type Dispatch, type Step, type Verdict } from './evidence.ts';
import { stepOf, type HostClient } from './host-client.ts';
import type { MockThirdParty } from './mock-third-party.ts';
import { placeholderConfiguration, type ConfigurationSchema } from './placeholders.ts';
import type { ExercisePlan, InstallTarget, Level } from './plan.ts';

/** The platform data the exercise installs into (fixtures/platform.yaml has them). */
export const SCENE = { organization: 'acme', space: 'space_acme_docs', page: 'page_intro', site: 'site_acme' };

export interface ExerciseContext {
  client: HostClient;
  mock: MockThirdParty;
  runtimeGlobals: ReadonlySet<string>;
  /** Resolves once the host has no dispatch in flight (setup events run after their HTTP answer). */
  waitIdle(): Promise<void>;
  /** The space's current revision, which the platform names in its space events. */
  currentRevision(space: string): Promise<string>;
}

export interface IntegrationResult extends Verdict {
  name: string;
  folder: string;
  exercised: string[];
  steps: Step[];
  /** The third-party hosts it called (as the loopback mock saw them). */
  thirdParties: string[];
}

interface Installation {
  id: string;
  target: string;
  status?: string;
  urls: { publicEndpoint: string; buttons?: Record<string, string> };
  configuration: Record<string, unknown>;
  parent?: string;
}

interface Listed {
  name: string;
  status: string;
  errors?: string[];
}

/** Whether a host problem line names `folder` (the host prints paths under the working folder relative to it). */
function mentionsFolder(line: string, folder: string): boolean {
  const relative = path.relative(process.cwd(), folder).split(path.sep).join('/');
  return line.startsWith(`${folder}/`) || (!relative.startsWith('..') && line.startsWith(`${relative}/`));
}

const VISITOR = { anonymousId: 'visitor-compat', userAgent: 'gitbook-compat', ip: '127.0.0.1', cookies: {} };

/** The body of POST /v1/events for a platform event type, on the scene's space (at `revisionId`) and site. */
export function platformEvent(type: string, revisionId: string): Record<string, unknown> {
  const { space, site, page } = SCENE;
  const seen = { visitor: VISITOR, url: 'https://docs.acme.test/', referrer: '' };
  switch (type) {
    case 'space_view':
      return { type, spaceId: space, pageId: page, ...seen };
    case 'space_content_updated':
      return { type, spaceId: space, revisionId };
    case 'space_visibility_updated':
      return { type, spaceId: space, previousVisibility: 'private', visibility: 'public' };
    case 'space_gitsync_started':
      return { type, spaceId: space, revisionId, commitId: 'c0ffee' };
    case 'space_gitsync_completed':
      return { type, spaceId: space, revisionId, commitId: 'c0ffee', state: 'success' };
    case 'site_view':
      return { type, siteId: site, ...seen };
    case 'page_feedback':
      return {
        type,
        siteId: site,
        spaceId: space,
        pageId: page,
        feedback: { rating: 'good', comment: 'Clear.' },
        ...seen,
      };
    default:
      throw new Error(`no platform event ${type}`);
  }
}

const schemaOf = (level: Level | undefined): ConfigurationSchema | undefined =>
  level !== undefined && 'schema' in level ? level.schema : undefined;

type Logged = Dispatch & { createdAt: string };

async function eventLogSince(client: HostClient, name: string, since: string): Promise<Logged[]> {
  const found: Logged[] = [];
  let cursor: string | null = null;
  do {
    const after = cursor ? `&cursor=${encodeURIComponent(cursor)}` : '';
    const answer = await client.admin('GET', `/v1/integrations/${encodeURIComponent(name)}/events?limit=200${after}`);
    const page = answer.json as
      | { items?: (Dispatch & { createdAt: string })[]; nextCursor?: string | null }
      | undefined;
    const items = page?.items ?? [];
    for (const item of items)
      if (item.createdAt >= since)
        found.push({
          type: item.type,
          status: item.status,
          logs: item.logs,
          createdAt: item.createdAt,
          ...(item.errorCode ? { errorCode: item.errorCode } : {}),
        });
    cursor = items.length > 0 && items.at(-1)!.createdAt >= since ? (page?.nextCursor ?? null) : null;
  } while (cursor !== null);
  return found.reverse();
}

/** Waits (bounded) for tasks it queued that are due soon, so their attempts are judged too. */
async function settleTasks(context: ExerciseContext, name: string): Promise<void> {
  for (let round = 0; round < 150; round++) {
    await context.waitIdle();
    const answer = await context.client.admin('GET', `/v1/integrations/${encodeURIComponent(name)}/tasks?limit=50`);
    const items =
      (answer.json as { items?: { status: string; runAt: string; attempts: number }[] } | undefined)?.items ?? [];
    const due = items.filter(
      (task) =>
        (task.status === 'pending' || task.status === 'running') &&
        task.attempts === 0 &&
        Date.parse(task.runAt) < Date.now() + 15_000,
    );
    if (due.length === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

async function install(
  context: ExerciseContext,
  plan: ExercisePlan,
  installLink: string | undefined,
  steps: Step[],
): Promise<Map<'organization' | InstallTarget, Installation>> {
  const made = new Map<'organization' | InstallTarget, Installation>();
  const targets: ('organization' | InstallTarget)[] = plan.installs.length > 0 ? plan.installs : ['organization'];
  for (const target of targets) {
    // An unlisted integration installs with the link its listing shows the admin, as on GitBook.
    const body = {
      organization: SCENE.organization,
      target,
      ...(target === 'space' ? { space: SCENE.space } : target === 'site' ? { site: SCENE.site } : {}),
      ...(installLink ? { installLink } : {}),
    };
    const answer = await context.client.admin(
      'POST',
      `/v1/integrations/${encodeURIComponent(plan.name)}/installations`,
      body,
    );
    const step = stepOf(
      `install on ${target === 'organization' ? 'the organization' : target === 'space' ? SCENE.space : SCENE.site}`,
      answer,
    );
    if (answer.status !== 201) {
      steps.push(step);
      continue;
    }
    const installation = answer.json as Installation;
    made.set(target, installation);
    if (installation.parent !== undefined && !made.has('organization')) {
      const parent = await context.client.admin('GET', `/v1/installations/${installation.parent}`);
      if (parent.status === 200) made.set('organization', parent.json as Installation);
    }
  }
  return made;
}

/** Runs the whole exercise of one integration (loaded or not) and judges it. */
export async function exerciseIntegration(context: ExerciseContext, plan: ExercisePlan): Promise<IntegrationResult> {
  const { client, mock } = context;
  const steps: Step[] = [];
  const exercised: string[] = [];
  const base = { name: plan.name, folder: plan.folder, steps, exercised };
  mock.label = plan.name;
  const firstRequest = mock.requests.length;
  const thirdParties = () => [...new Set(mock.requests.slice(firstRequest).map((request) => request.host))].sort();

  // The listing holds every integration the host loaded or refused (a refused one beside a built-in
  // of the same name too); ours is the entry whose problems name its folder, else the ready one.
  const listing =
    ((await client.admin('GET', '/v1/integrations')).json as { items?: Listed[] } | undefined)?.items ?? [];
  const named = listing.filter((entry) => entry.name === plan.name);
  const refused = named.find(
    (entry) => entry.status !== 'ready' && (entry.errors ?? []).some((error) => mentionsFolder(error, plan.folder)),
  );
  if (refused !== undefined || named.length === 0) {
    exercised.push('load');
    return {
      ...base,
      ...judgeLoad(refused?.errors ?? [`the host lists no integration named ${plan.name}`], plan.build),
      thirdParties: [],
    };
  }
  const view = (await client.admin('GET', `/v1/integrations/${encodeURIComponent(plan.name)}`)).json as
    | { installLink?: string }
    | undefined;
  const since = new Date().toISOString();
  const installations = await install(context, plan, view?.installLink, steps);
  const organization = installations.get('organization');
  exercised.push(`install ${[...installations.keys()].join('+') || 'refused'}`);
  await context.waitIdle();
  const configuredFrom = new Date().toISOString();

  // Buttons first, as a user connects an account before choosing what the connection offers: each
  // (OAuth through the loopback provider) on whichever installation shows one.
  for (const [, installation] of installations) {
    const fresh = await client.admin('GET', `/v1/installations/${installation.id}`);
    for (const [property, url] of Object.entries((fresh.json as Installation | undefined)?.urls.buttons ?? {})) {
      await connectButton(client, mock, installation.id, property, url, steps);
      exercised.push(`connect ${property}`);
    }
  }

  // Configure: the required properties of each level with a schema (the space level falls back to the site's, as the
  // host does).
  const placeholders = { integration: plan.name, originFor: mock.originFor };
  const levels: ['organization' | InstallTarget, Level | undefined][] = [
    ['organization', plan.configurations.account],
    ['space', plan.configurations.space ?? plan.configurations.site],
    ['site', plan.configurations.site],
  ];
  for (const [target, level] of levels) {
    const installation = installations.get(target);
    const schema = schemaOf(level);
    if (installation === undefined || schema === undefined) continue;
    const values = placeholderConfiguration(schema, placeholders);
    if (Object.keys(values).length === 0) continue;
    const answer = await client.admin('PATCH', `/v1/installations/${installation.id}/configuration`, values);
    steps.push(stepOf(`configure ${target}`, answer));
    if (answer.status === 200) installations.set(target, answer.json as Installation);
    exercised.push(`configure ${target}`);
  }
  await context.waitIdle();

  // Components: configuration components with GitBook's props and context, then blocks in a document.
  const configurationOf = async (installation: Installation | undefined) =>
    installation === undefined
      ? {}
      : (((await client.admin('GET', `/v1/installations/${installation.id}`)).json as Installation | undefined)
          ?.configuration ?? {});
  const contexts = {
    organization: { type: 'configuration_account', theme: 'light', organizationId: SCENE.organization },
    space: { type: 'configuration_space', theme: 'light', spaceId: SCENE.space },
    site: { type: 'configuration_site', theme: 'light', siteId: SCENE.site },
  };
  const levelComponents: ['organization' | InstallTarget, Level | undefined][] = [
    ['organization', plan.configurations.account],
    ['space', plan.configurations.space],
    ['site', plan.configurations.site],
  ];
  for (const [target, level] of levelComponents) {
    const installation = installations.get(target);
    if (installation === undefined || level === undefined || !('componentId' in level)) continue;
    const props: Record<string, unknown> = { installation: { configuration: await configurationOf(organization) } };
    if (target === 'space') props.spaceInstallation = { configuration: await configurationOf(installation) };
    if (target === 'site') props.siteInstallation = { configuration: await configurationOf(installation) };
    const pressed = await exerciseComponent(
      client,
      mock,
      {
        installationId: installation.id,
        componentId: level.componentId,
        props,
        context: contexts[target],
        label: `configuration ${level.componentId} (${target})`,
      },
      placeholders,
      steps,
    );
    exercised.push(`render configuration (${target})${pressed > 0 ? ` +${pressed} action(s)` : ''}`);
  }
  const blockHome = installations.get('space') ?? organization;
  for (const block of plan.blocks) {
    if (blockHome === undefined) break;
    const pressed = await exerciseComponent(
      client,
      mock,
      {
        installationId: blockHome.id,
        componentId: block.id,
        props: {},
        context: { type: 'document', theme: 'light', spaceId: SCENE.space, editable: true },
        label: `block ${block.id}`,
        ...(block.link ? { firstAction: { action: '@link.unfurl', url: block.link } } : {}),
      },
      placeholders,
      steps,
    );
    exercised.push(`render block ${block.id}${pressed > 0 ? ` +${pressed} action(s)` : ''}`);
  }

  // Endpoints: those of the installations its target asks for, and its own when its code hands it out.
  const endpoints: [string, string][] = [...installations.entries()]
    .filter(([target]) => target !== 'organization' || plan.installs.length === 0)
    .map(([target, installation]) => [`GET ${target} installation endpoint`, installation.urls.publicEndpoint]);
  if (plan.usesIntegrationEndpoint)
    endpoints.unshift([
      'GET integration endpoint',
      `${client.url}/v1/integrations/${encodeURIComponent(plan.name)}/integration`,
    ]);
  for (const [what, endpoint] of endpoints) {
    const step = stepOf(what, await client.open('GET', endpoint));
    // An OAuth start the host refuses without a button's ticket is its protection working: the flow is
    // exercised through the button (connect above), never by a bare GET.
    steps.push(
      step.code === 'ERR_OAUTH_TICKET_INVALID'
        ? { what, status: step.status, message: `${step.code}: an OAuth start needs the button's ticket` }
        : step,
    );
  }
  exercised.push(`endpoints ×${endpoints.length}`);

  const site = installations.get('site');
  if (plan.siteScript && site !== undefined) {
    const list = await client.admin('GET', `/v1/site-scripts/${SCENE.site}`);
    const items = (list.json as { items?: { installationId: string }[] } | undefined)?.items ?? [];
    if (!items.some((item) => item.installationId === site.id))
      steps.push({
        what: 'site script listing',
        status: list.status,
        problem: `not listed for ${SCENE.site} (installation ${site.status ?? ''})`,
      });
    steps.push(
      stepOf('site script', await client.open('GET', `${client.url}/v1/site-scripts/${SCENE.site}/${site.id}`)),
    );
    exercised.push('site script');
  }
  if (plan.visitorAuth && site !== undefined) {
    const form = new FormData();
    form.append(
      'event',
      JSON.stringify({
        type: 'fetch_visitor_authentication',
        installationId: site.id,
        siteId: SCENE.site,
        location: '/',
        searchParams: {},
        cookies: {},
      }),
    );
    steps.push(stepOf('fetch_visitor_authentication', await client.admin('POST', '/v1', form)));
    exercised.push('visitor auth');
  }

  const handled: string[] = [];
  for (const type of plan.events) {
    const answer = await client.admin(
      'POST',
      '/v1/events',
      platformEvent(type, await context.currentRevision(SCENE.space)),
    );
    if (answer.status !== 202) {
      steps.push(stepOf(`event ${type}`, answer));
      continue;
    }
    const dispatched = (
      (answer.json as { dispatched?: { integration?: string; status?: number }[] }).dispatched ?? []
    ).filter((entry) => entry.integration === plan.name);
    for (const entry of dispatched) {
      steps.push({ what: `event ${type}`, status: entry.status ?? 0 });
      handled.push(`${type} ${entry.status}`);
    }
  }
  if (plan.events.length > 0)
    exercised.push(`events: ${handled.join(', ') || `none of ${plan.events.length} handled`}`);

  await settleTasks(context, plan.name);
  const dispatches = await eventLogSince(client, plan.name, since);
  for (const installation of installations.values()) {
    if (installation.target === 'organization') await client.admin('DELETE', `/v1/installations/${installation.id}`);
  }
  await context.waitIdle();
  const early = dispatches.filter((dispatch) => dispatch.createdAt < configuredFrom);
  const judged = dispatches.filter((dispatch) => dispatch.createdAt >= configuredFrom);
  return { ...base, ...judgeExercise(steps, judged, context.runtimeGlobals, early), thirdParties: thirdParties() };
}
