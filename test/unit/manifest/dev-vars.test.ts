// `.dev.vars`: development values for an integration's own secrets only. Another integration's or
// the host's variables are refused with a warning naming the line; exported variables win; values
// never appear in a message.
import { afterAll, describe, expect, it } from 'vitest';
import { loadIntegrations } from '../../../host/manifest/load.ts';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { parseDevVars, readDevVars, withDevVars } from '../../../host/manifest/dev-vars.ts';
import { manifestYaml, TempDirs } from './temp-integration.ts';

const temp = new TempDirs();
afterAll(() => temp.cleanup());

describe('parseDevVars', () => {
  it('reads NAME=value lines, comments, quotes and export prefixes', () => {
    expect(
      parseDevVars('# dev\nGREETER_A=1\nexport GREETER_B = "two words"\n\nGREETER_C=\'x=y\'\n', 'greeter'),
    ).toEqual({ values: { GREETER_A: '1', GREETER_B: 'two words', GREETER_C: 'x=y' }, warnings: [] });
  });

  it('refuses variables outside the integration’s namespace, naming the line but never the value', () => {
    const parsed = parseDevVars(
      'HOST_ADMIN_TOKEN=stolen-value\nOTHER_SECRET=another-value\nnot a line\nGREETER_OK=1\n',
      'greeter',
    );
    expect(parsed.values).toEqual({ GREETER_OK: '1' });
    expect(parsed.warnings.map((warning) => warning.message)).toEqual([
      "line 1: HOST_ADMIN_TOKEN is not this integration's to set (HOST_ADMIN_TOKEN is one of the host's own " +
        'variables); ignored',
      'line 2: OTHER_SECRET is not this integration\'s to set (an integration named "greeter" may only read ' +
        'variables named GREETER_…, not OTHER_SECRET); ignored',
      'line 3: expected NAME=value; ignored',
    ]);
    expect(JSON.stringify(parsed.warnings)).not.toMatch(/stolen-value|another-value/);
  });

  it('fills only what the environment leaves unset or empty', () => {
    const devVars = parseDevVars('GREETER_A=dev\nGREETER_B=dev\nGREETER_C=dev\n', 'greeter');
    const { env, filled } = withDevVars({ GREETER_A: 'exported', GREETER_B: '' }, devVars);
    expect(env).toEqual({ GREETER_A: 'exported', GREETER_B: 'dev', GREETER_C: 'dev' });
    expect(filled).toEqual(['GREETER_B', 'GREETER_C']);
  });
});

describe('loading with .dev.vars', () => {
  const secretManifest = (name: string, variable: string) =>
    `${manifestYaml(name, `script: index.ts\nsecrets:\n  KEY: "\${{ env.${variable} }}"`)}\n`;

  it('fills a folder’s own secret and says which, only when asked', async () => {
    const root = temp.make({
      'greeter/platform-manifest.yaml': secretManifest('greeter', 'GREETER_KEY'),
      'greeter/index.ts': 'export default {};\n',
      'greeter/.dev.vars': 'GREETER_KEY=dev-key\n',
    });
    const [on] = await loadIntegrations([root], { env: {}, devVars: true, cacheDir: temp.make() });
    expect(on.status).toBe('ready');
    expect(on.secrets).toEqual({ KEY: 'dev-key' });
    expect(on.devVars).toEqual({ file: expect.stringMatching(/greeter\/\.dev\.vars$/), variables: ['GREETER_KEY'] });
    const [off] = await loadIntegrations([root], { env: {}, cacheDir: temp.make() });
    expect(off.status).toBe('invalid');
    expect(off.errors[0].message).toBe(
      'secret "KEY" needs environment variable GREETER_KEY, which is not set (or store it: npm run secrets -- set ' +
        'greeter GREETER_KEY)',
    );
  });

  it(
    'says a missing secret can go in the folder’s .dev.vars ' + 'when the load reads it (npm run dev, host, check)',
    async () => {
      const root = temp.make({
        'greeter/platform-manifest.yaml': secretManifest('greeter', 'GREETER_KEY'),
        'greeter/index.ts': 'export default {};\n',
      });
      const file = path.join(root, 'greeter', '.dev.vars');
      const [waiting] = await loadIntegrations([root], { env: {}, devVars: true, cacheDir: temp.make() });
      expect(waiting.status).toBe('invalid');
      expect(waiting.errors[0].message).toBe(
        `secret "KEY" needs environment variable GREETER_KEY, which is not set (put GREETER_KEY=<value> in ${file}, ` +
          `or store it: npm run secrets -- set greeter GREETER_KEY)`,
      );
      const [checked] = await loadIntegrations([root], { env: {}, devVars: true, check: true, cacheDir: temp.make() });
      expect(checked.warnings[0].message).toBe(
        `secret "KEY" needs environment variable GREETER_KEY, which is not set: the host will refuse to load the ` +
          `integration until it is set (put GREETER_KEY=<value> in ${file} for npm run dev, or stored with npm run ` +
          `secrets -- set greeter GREETER_KEY)`,
      );
    },
  );

  it('never lets one folder’s .dev.vars set another integration’s secret', async () => {
    const root = temp.make({
      'greeter/platform-manifest.yaml': `${manifestYaml('greeter', 'script: index.ts')}\n`,
      'greeter/index.ts': 'export default {};\n',
      'greeter/.dev.vars': 'VICTIM_KEY=planted-by-greeter\n',
      'victim/platform-manifest.yaml': secretManifest('victim', 'VICTIM_KEY'),
      'victim/index.ts': 'export default {};\n',
    });
    const loaded = await loadIntegrations([root], { env: {}, devVars: true, cacheDir: temp.make() });
    const victim = loaded.find((integration) => integration.name === 'victim')!;
    expect(victim.status).toBe('invalid');
    expect(victim.secrets).toEqual({});
    const greeter = loaded.find((integration) => integration.name === 'greeter')!;
    expect(greeter.warnings.map((warning) => warning.message)).toEqual([
      expect.stringMatching(/^line 1: VICTIM_KEY is not this integration's to set/),
    ]);
  });

  it(
    'ignores with a warning a .dev.vars that is a FIFO (never ' + 'waiting for a writer) or larger than its cap',
    async () => {
      const fifoDir = temp.make({ 'fifo/platform-manifest.yaml': manifestYaml('fifo', 'script: index.ts') });
      execFileSync('mkfifo', [path.join(fifoDir, 'fifo', '.dev.vars')]);
      expect(await readDevVars(path.join(fifoDir, 'fifo'), 'fifo')).toEqual({
        values: {},
        warnings: [{ pointer: '', message: 'is a FIFO, not a regular file; ignored' }],
      });
      const bigDir = temp.make({ 'big/.dev.vars': `BIG_VALUE=${'x'.repeat(200_000)}\n` });
      expect((await readDevVars(path.join(bigDir, 'big'), 'big')).warnings[0].message).toMatch(
        /^is larger than \d+ bytes; ignored$/,
      );
      expect(await readDevVars(path.join(bigDir, 'nothing-here'), 'nothing-here')).toEqual({
        values: {},
        warnings: [],
      });
    },
  );
});
