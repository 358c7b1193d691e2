// The exercise's pure parts: which packages a tree gets where, the placeholders a user would type,
// what the loopback third party answers, how a rendered component is pressed, how an integration
// is classified from its answers and logs, and the report's summary line.
import { describe, expect, it } from 'vitest';
import { actionsIn, filledState, resolveBindings } from './components.ts';
import { CookieJar } from './connect.ts';
import { planDependencies } from './dependency-plan.ts';
import { hostEvidenceIn, judgeExercise, judgeLoad, type Step } from './evidence.ts';
import { mockAnswer } from './mock-third-party.ts';
import { hostsIn, placeholderConfiguration, placeholderSecret, secretVariables, unfurlLink } from './placeholders.ts';
import { formatTable, summaryLine } from './report.ts';
import type { IntegrationResult } from './exercise.ts';

const PINS = { '@gitbook/runtime': '0.23.3', '@gitbook/api': '0.202.0' };
const context = { integration: 'demo', originFor: (host: string) => `https://${host}:8443` };
const GLOBALS = new Set(['TransformStream', 'HTMLRewriter', 'crypto']);

describe('the dependency plan of a tree', () => {
  const plan = planDependencies(
    {
      a: {
        dependencies: { '@gitbook/runtime': '*', 'itty-router': '^4.0.9' },
        devDependencies: { '@gitbook/cli': 'workspace:*', '@types/hash-sum': '^1.0.0' },
      },
      b: { dependencies: { '@gitbook/runtime': 'workspace:*', '@gitbook/api': '*', 'itty-router': '^4.0.27' } },
      c: { dependencies: { 'itty-router': '^2.6.1', jwt: '2.3.2' }, devDependencies: { esbuild: '^0.15.7' } },
      d: { dependencies: { jwt: '3.1.3', 'itty-router': '*' } },
      e: { dependencies: { jwt: '3.1.3' } },
    },
    PINS,
  );

  it(
    'hoists the version most integrations share, the highest ' + 'range of that major, and pins the workspace packages',
    () => {
      expect(plan.hoisted).toEqual({
        '@gitbook/api': '0.202.0',
        '@gitbook/runtime': '0.23.3',
        '@types/hash-sum': '^1.0.0',
        'itty-router': '^4.0.27',
        jwt: '3.1.3',
      });
    },
  );

  it('nests a conflicting major in the integration that asks for it', () => {
    expect(plan.nested).toEqual({ c: { 'itty-router': '^2.6.1', jwt: '2.3.2' } });
  });

  it("leaves out build tools and the workspace's unpublished packages, saying why", () => {
    expect(plan.skipped.map((entry) => `${entry.integration}:${entry.name}`)).toEqual(['a:@gitbook/cli', 'c:esbuild']);
  });
});

describe('placeholders', () => {
  it(
    'fills required properties from the schema: enum first value, URL-named ones a mock URL, numbers, buttons left ' +
      'to their flow',
    () => {
      const values = placeholderConfiguration(
        {
          properties: {
            region: { type: 'string', enum: ['EU', 'US'] },
            site_url: { type: 'string' },
            count: { type: 'number', minimum: 3 },
            tracking_id: { type: 'string' },
            oauth_credentials: { type: 'button' },
            optional: { type: 'string' },
          },
          required: ['region', 'site_url', 'count', 'tracking_id', 'oauth_credentials'],
        },
        context,
      );
      expect(values).toEqual({
        region: 'EU',
        site_url: 'https://demo.mock.test:8443/site_url',
        count: 3,
        tracking_id: 'placeholder-tracking-id',
      });
    },
  );

  it('picks a placeholder that fits a pattern', () => {
    expect(
      placeholderConfiguration(
        { properties: { id: { type: 'string', pattern: '^[0-9]+$' } }, required: ['id'] },
        context,
      ),
    ).toEqual({ id: '12345' });
  });

  it('reads the variables of ${{ env.NAME }} references and gives URLs, keys and text placeholders', () => {
    expect(
      secretVariables({
        A: '${{ env.DEMO_CLIENT_ID }}',
        B: '${{ op://vault/item }}',
        C: 'x ${{ env.DEMO_TOKEN_URL }}',
      }),
    ).toEqual(['DEMO_CLIENT_ID', 'DEMO_TOKEN_URL']);
    expect(placeholderSecret('DEMO_TOKEN_URL', context)).toBe('https://demo.mock.test:8443/demo_token_url');
    expect(placeholderSecret('DEMO_CLIENT_ID', context)).toBe('placeholder-demo-client-id');
    expect(placeholderSecret('DEMO_PRIVATE_KEY', context)).toMatch(/^-----BEGIN PRIVATE KEY-----\n/);
  });

  it('makes a link a block unfurls from its pattern', () => {
    expect(unfurlLink('https://github.com/*/*/blob/**')).toBe(
      'https://github.com/placeholder/placeholder/blob/PLACEHOLDER-1/placeholder',
    );
    expect(unfurlLink('https://*.toucantoco.com/embed.html*')).toBe(
      'https://placeholder.toucantoco.com/embed.html?id=placeholder',
    );
  });

  it('finds the third parties a source names in URLs', () => {
    expect(
      hostsIn("fetch('https://api.github.com/user'); const b = `https://slack.com/api/${x}`; // http://127.0.0.1:80/"),
    ).toEqual(['api.github.com', 'slack.com']);
  });
});

describe('the loopback third party', () => {
  it('approves an OAuth authorize request at once: back to redirect_uri with a code and the same state', () => {
    const answer = mockAnswer(
      'GET',
      'auth.example.test',
      '/authorize?client_id=c&redirect_uri=http%3A%2F%2F127.0.0.1%3A1%2Fcb&state=s%201',
      '',
      7,
    );
    expect(answer.status).toBe(302);
    expect(answer.headers.location).toBe('http://127.0.0.1:1/cb?code=mock-code-7&state=s+1');
  });

  it('answers a token request with a bearer token and anything else with a plausible JSON object', () => {
    expect(
      JSON.parse(mockAnswer('POST', 'auth.example.test', '/anything', 'grant_type=authorization_code&code=x', 2).body),
    ).toMatchObject({ access_token: 'mock-access-token-2', token_type: 'bearer' });
    expect(JSON.parse(mockAnswer('GET', 'api.example.test', '/v2/items', '', 3).body)).toMatchObject({
      ok: true,
      id: 'mock-1',
      items: [],
    });
  });
});

describe('pressing a rendered component', () => {
  const element = {
    type: 'block',
    children: [
      { type: 'textinput', state: 'token' },
      { type: 'select', state: 'project', options: [{ id: 'p1', label: 'One' }] },
      { type: 'switch', state: 'enabled' },
      { type: 'button', onPress: { action: 'save', token: { $state: 'token' } } },
      { type: 'button', onPress: { action: '@ui.modal.open', componentId: 'help' } },
      { type: 'button', onPress: { action: 'save', token: { $state: 'token' } } },
    ],
  };

  it('finds each distinct action once', () => {
    expect(actionsIn(element).map((action) => action.action)).toEqual(['save', '@ui.modal.open']);
  });

  it('fills the empty inputs a form binds to state, keeping what the state already holds', () => {
    expect(filledState(element, { token: '', project: 'p2', enabled: true }, context)).toEqual({
      token: 'placeholder-token',
      project: 'p2',
      enabled: true,
    });
  });

  it('turns on every switch and checkbox, including those the state starts off', () => {
    const form = [
      { type: 'switch', state: 'events' },
      { type: 'checkbox', state: 'notify', value: 'yes' },
      { type: 'textinput', state: 'url' },
    ];
    expect(filledState(form, { events: false, notify: null, url: 'https://kept.example' }, context)).toEqual({
      events: true,
      notify: 'yes',
      url: 'https://kept.example',
    });
  });

  it("resolves $state bindings in an action as GitBook's client does", () => {
    expect(
      resolveBindings({ action: 'save', token: { $state: 'token' }, nested: [{ $state: 'missing' }] }, { token: 't' }),
    ).toEqual({ action: 'save', token: 't', nested: [undefined] });
  });
});

describe('the browser of a connect flow', () => {
  it('sends back the cookies the host set, on their path only, and forgets an expired one', () => {
    const jar = new CookieJar();
    jar.store(['ih-oauth=abc; Path=/v1/integrations/x; HttpOnly; SameSite=Lax', 'other=1; Path=/elsewhere']);
    expect(jar.header('/v1/integrations/x/integration/oauth')).toBe('ih-oauth=abc');
    expect(jar.header('/v1/integrations/xy')).toBeUndefined();
    jar.store(['ih-oauth=; Path=/v1/integrations/x; Max-Age=0']);
    expect(jar.header('/v1/integrations/x/oauth')).toBeUndefined();
  });
});

describe('classifying an integration', () => {
  it('calls a missing module with a build step "cannot be built", any other load refusal the host\'s', () => {
    const generated = [
      'x/linear/gitbook-manifest.yaml: /script: script imports "./gql/graphql" (from src/index.ts), which cannot ' +
        'be resolved',
    ];
    expect(judgeLoad(generated, 'graphql-codegen')).toEqual({
      outcome: 'cannot be built',
      evidence: [
        'script imports "./gql/graphql" (from src/index.ts), which cannot be resolved',
        'its build step: graphql-codegen',
      ],
    });
    expect(judgeLoad(generated, undefined).outcome).toBe('broken by the host');
    // The host's check names the build script and says the module is generated: said once, and a
    // folder whose .gitignore alone marks it generated counts too.
    const named =
      'script imports "./webframe" (from src/index.ts), which does not exist: it is probably generated by the ' +
      'integration\'s own build step (package.json scripts: "build": "bun run build.ts"); run it first (npm run ' +
      "build in the integration's folder), then check again";
    expect(judgeLoad([`x/marketo/gitbook-manifest.yaml: /script: ${named}`], 'bun run build.ts')).toEqual({
      outcome: 'cannot be built',
      evidence: [named],
    });
    const ignored =
      'script imports "./gen" (from src/index.ts), which does not exist: the folder\'s .gitignore lists ' +
      '"src/gen.ts", so it is probably generated by a build step of the integration; run that first, then check ' +
      'again';
    expect(judgeLoad([`x/y/gitbook-manifest.yaml: /script: ${ignored}`], undefined)).toEqual({
      outcome: 'cannot be built',
      evidence: [ignored],
    });
    expect(
      judgeLoad(
        ['x/y/gitbook-manifest.yaml: /script: script imports "./gen" (from src/index.ts), which does not exist'],
        undefined,
      ).outcome,
    ).toBe('broken by the host');
    expect(
      judgeLoad(
        ['x/webhook/gitbook-manifest.yaml: /name: "webhook" is the name of a built-in integration of this host'],
        undefined,
      ),
    ).toEqual({
      outcome: 'broken by the host',
      evidence: ['refused at load: /name: "webhook" is the name of a built-in integration of this host'],
    });
  });

  it("finds the host's gaps in logs: a missing platform route, an unbacked call, a missing runtime global", () => {
    expect(
      hostEvidenceIn(
        [
          'GitBookAPIError: GitBook API failed with [404] http://h/v1/spaces/s/revisions/r: no platform API route ' +
            'for GET /v1/spaces/s/revisions/r',
          'GitBookAPIError: GitBook API failed with [405] http://h/v1/orgs/o: POST is not allowed here',
          'ReferenceError: TransformStream is not defined',
          'ReferenceError: myHelper is not defined',
          'TypeError: crypto.subtle.timingSafeEqual is not a function',
          'TypeError: client.send is not a function',
        ],
        GLOBALS,
      ),
    ).toEqual([
      'no platform API route for GET /v1/spaces/s/revisions/r',
      'platform API answered 405 to http://h/v1/orgs/o',
      "ReferenceError: TransformStream is not defined (a global of GitBook's runtime)",
      "TypeError: crypto.subtle.timingSafeEqual is not a function (a global of GitBook's runtime)",
    ]);
  });

  it('blames the integration for its own failures and the host only on evidence', () => {
    const failed: Step[] = [
      { what: 'site script', status: 502, code: 'ERR_SANDBOX_BAD_RESPONSE', message: 'answered 500' },
    ];
    const thrown = [
      {
        type: 'fetch_published_script',
        status: 500,
        logs: [{ level: 'error', text: 'Error: The API key is missing\n    at x' }],
      },
    ];
    expect(judgeExercise(failed, thrown, GLOBALS)).toEqual({
      outcome: 'fails in its own code',
      evidence: [
        'site script: 502 ERR_SANDBOX_BAD_RESPONSE answered 500',
        'fetch_published_script dispatch 500: Error: The API key is missing',
      ],
    });
    const missing = [
      { type: 'fetch', status: 500, logs: [{ level: 'error', text: 'ReferenceError: HTMLRewriter is not defined' }] },
    ];
    expect(judgeExercise([{ what: 'GET space installation endpoint', status: 500 }], missing, GLOBALS).outcome).toBe(
      'broken by the host',
    );
    expect(
      judgeExercise([{ what: 'render block b', status: 422, code: 'ERR_CONTENTKIT_INVALID' }], [], GLOBALS).outcome,
    ).toBe('fails in its own code');
    expect(
      judgeExercise([{ what: 'configure site', status: 422, code: 'ERR_CONFIGURATION_INVALID' }], [], GLOBALS).outcome,
    ).toBe('broken by the host');
    expect(judgeExercise([{ what: 'GET space installation endpoint', status: 404 }], [], GLOBALS)).toEqual({
      outcome: 'works',
      evidence: [],
    });
  });

  it('counts only host evidence in the setup events the install itself sends before any configuration', () => {
    const early = [
      {
        type: 'site_installation_setup',
        status: 500,
        logs: [{ level: 'error', text: 'Error: No secret key configured' }],
      },
    ];
    expect(judgeExercise([], [], GLOBALS, early).outcome).toBe('works');
    expect(
      judgeExercise([], [], GLOBALS, [
        { ...early[0], logs: [{ level: 'error', text: 'no platform API route for GET /v1/x' }] },
      ]).outcome,
    ).toBe('broken by the host');
  });
});

describe('the report', () => {
  const result = (name: string, outcome: IntegrationResult['outcome'], evidence: string[] = []): IntegrationResult => ({
    name,
    folder: `/t/${name}`,
    outcome,
    evidence,
    exercised: ['install space'],
    steps: [],
    thirdParties: [],
  });

  it('sums the outcomes in one line and prints a row per integration with its evidence', () => {
    const results = [
      result('a', 'works'),
      result('b', 'works'),
      result('c', 'cannot be built'),
      result('d', 'broken by the host', ['load | refused']),
    ];
    expect(summaryLine(results)).toBe('2 of 4 work, 1 cannot be built, 0 fail in their own code, 1 broken by the host');
    expect(formatTable(results).split('\n').at(-1)).toBe(
      '| d | install space | broken by the host | load \\| refused |',
    );
  });
});
