// `npm run check` type-checks TypeScript integrations against sandbox-api's types with a generated,
// hermetic config (the folder's own tsconfig.json changes nothing; the isolate has no DOM), reports
// `file:line:col: error TSnnnn: message` and a code frame, the shape of syntax errors, and exits 1;
// `--no-types` skips it.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CLI } from '../helpers/cli.ts';
import { TempDirs } from '../unit/manifest/temp-integration.ts';
import { parseTscOutput } from '../../host/typecheck/run-tsc.ts';

const temp = new TempDirs();
afterAll(() => temp.cleanup());

const MANIFEST = (name: string, script = 'src/index.ts') =>
  `name: ${name}\ntitle: T\ndescription: D.\norganization: acme\nvisibility: public\nscopes: []\nscript: ${script}\n`;
const BROKEN = [
  "import { createIntegration } from 'sandbox-api';",
  "import { double } from './lib/math.ts';",
  "const count: number = 'three';",
  'export default createIntegration({',
  '  async fetch(request) {',
  "    document.title = 'no DOM in an isolate';",
  '    return Response.json({ n: double(count), nope: request.nope });',
  '  },',
  '});',
  '',
].join('\n');

function check(args: string[], cwd: string): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [...CLI, 'check', ...args], { cwd });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}

describe('npm run check: types', () => {
  it('reports each type error as file:line:col: error TSnnnn, ' +
    'from every file of the integration, and exits 1', async () => {
    const root = temp.make({
      'greeter/platform-manifest.yaml': MANIFEST('greeter'),
      'greeter/src/index.ts': BROKEN,
      'greeter/src/lib/math.ts':
        'export function double(n: number): number {\n  const twice: string = n * 2;\n  return Number(twice);\n}\n',
      // A lenient config in the folder must not loosen the check: the generated one is used.
      'greeter/tsconfig.json': JSON.stringify({
        compilerOptions: { strict: false, noImplicitAny: false, lib: ['dom', 'es2022'], skipLibCheck: true },
        include: ['nothing'],
      }),
      'plain/platform-manifest.yaml': MANIFEST('plain', 'index.js'),
      'plain/index.js':
        "import { createIntegration } from 'sandbox-api';\nexport default createIntegration({ fetch: () => new " +
        "Response(1 + 'untyped') });\n",
    });
    const run = await check(
      ['greeter', 'plain'].map((name) => path.join(root, name)),
      root,
    );
    expect(run.status).toBe(1);
    const lines = run.stdout.split('\n').filter((line) => / error TS\d+: /.test(line));
    expect(lines).toEqual([
      "greeter/src/index.ts:3:7: error TS2322: Type 'string' is not assignable to type 'number'.",
      "greeter/src/index.ts:6:5: error TS2584: Cannot find name 'document'. Do you need to change your target " +
        "library? Try changing the 'lib' compiler option to include 'dom'.",
      "greeter/src/index.ts:7:60: error TS2339: Property 'nope' does not exist on type 'Request'.",
      "greeter/src/lib/math.ts:2:9: error TS2322: Type 'number' is not assignable to type 'string'.",
    ]);
    expect(run.stdout).toMatch(
      /2 integration\(s\) checked in greeter, plain: 2 ready, 0 invalid, 0 error\(s\), 4 type error\(s\)\n$/,
    );
  }, 60_000);

  it('shows a syntax error and a type error in one shape: file:line:col: error: message and a code frame', async () => {
    const root = temp.make({
      'broken/platform-manifest.yaml': MANIFEST('broken'),
      'broken/src/index.ts':
        "import { createIntegration } from 'sandbox-api';\nexport default createIntegration({\n  fetch: () => " +
        "Response.json({ word: 'héllo' ),\n});\n",
      'typed/platform-manifest.yaml': MANIFEST('typed'),
      'typed/src/index.ts':
        "import { createIntegration } from 'sandbox-api';\nconst count: number = 'three';\nexport default " +
        'createIntegration({ fetch: () => Response.json({ count }) });\n',
    });
    const run = await check([root], root);
    expect(run.status).toBe(1);
    // The syntax error names the script, not the manifest; its column counts characters (é is one).
    expect(run.stdout).toContain(
      [
        'broken/src/index.ts:3:46: error: Expected "}" but found ")"',
        "  3 |   fetch: () => Response.json({ word: 'héllo' ),",
        '    |                                              ^',
        '',
      ].join('\n'),
    );
    expect(run.stdout).toContain(
      [
        "typed/src/index.ts:2:7: error TS2322: Type 'string' is not assignable to type 'number'.",
        "  2 | const count: number = 'three';",
        '    |       ^',
        '',
      ].join('\n'),
    );
    expect(run.stdout).not.toContain('platform-manifest.yaml: /script');
  }, 60_000);

  it("types Response#json with a type argument, as the Workers types GitBook's integrations use do", async () => {
    const root = temp.make({
      'oembed/platform-manifest.yaml': MANIFEST('oembed'),
      'oembed/src/index.ts': [
        "import { createIntegration } from 'sandbox-api';",
        'type Answer = { title: string };',
        'export default createIntegration({',
        '  async fetch(request) {',
        '    const answer = await request.json<Answer>();',
        '    const loose = await request.clone().json();',
        '    const wrong: number = answer.title;',
        '    return Response.json({ title: answer.title.toUpperCase(), loose: loose.anything, wrong });',
        '  },',
        '});',
        '',
      ].join('\n'),
    });
    const run = await check([path.join(root, 'oembed')], root);
    // The type argument is taken (and checked against its use); without one the body is `any`.
    expect(run.stdout.split('\n').filter((line) => / error TS\d+: /.test(line))).toEqual([
      "oembed/src/index.ts:7:11: error TS2322: Type 'string' is not assignable to type 'number'.",
    ]);
  }, 60_000);

  it('passes a well-typed integration, .tsx with sandbox-api JSX included', async () => {
    const root = temp.make({
      'card/platform-manifest.yaml': MANIFEST('card', 'src/index.tsx'),
      'card/src/index.tsx': [
        "import { createComponent, createIntegration } from 'sandbox-api';",
        'const card = createComponent<{ title?: string }, { n: number }>({',
        "  componentId: 'card',",
        '  initialState: () => ({ n: 0 }),',
        '  render: (element) => <block><text>{element.props.title ?? `count ${element.state.n}`}</text></block>,',
        '});',
        'export default createIntegration({ components: [card] });',
        '',
      ].join('\n'),
    });
    const run = await check([root], root);
    expect(run.stdout).toMatch(
      /1 integration\(s\) checked in \.: 1 ready, 0 invalid, 0 error\(s\), 0 type error\(s\)\n$/,
    );
    expect(run.status).toBe(0);
  }, 60_000);

  it('types the bundler’s text imports as strings and reads the folder’s own declaration files', async () => {
    const root = temp.make({
      'pages/platform-manifest.yaml': MANIFEST('pages'),
      'pages/src/index.ts': [
        "import { createIntegration } from 'sandbox-api';",
        "import script from './tracker.raw.js';",
        "import page from './page.html' with { type: 'text' };",
        'const both: string = script + page;',
        'export default createIntegration({ fetch: () => new Response(both) });',
        '',
      ].join('\n'),
      'pages/src/tracker.raw.js': 'console.log("never run, only sent");\n',
      'pages/src/page.html': '<p>hi</p>\n',
      'pages/src/html.d.ts': "declare module '*.html' {\n  const text: string;\n  export default text;\n}\n",
    });
    const run = await check([root], root);
    expect(run.stdout).toMatch(/1 ready, 0 invalid, 0 error\(s\), 0 type error\(s\)\n$/);
    expect(run.status).toBe(0);
  }, 60_000);

  it('checks GitBook-format integrations against @gitbook/runtime', async () => {
    const run = await check([path.resolve(import.meta.dirname, '../../fixtures/gitbook')], process.cwd());
    expect(run.stdout).toMatch(
      /3 integration\(s\) checked in fixtures\/gitbook: 3 ready, 0 invalid, 0 error\(s\), 0 type error\(s\)\n$/,
    );
    expect(run.status).toBe(0);
  }, 60_000);

  it('skips types with --no-types', async () => {
    const root = temp.make({
      'greeter/platform-manifest.yaml': MANIFEST('greeter'),
      'greeter/src/index.ts': BROKEN,
      'greeter/src/lib/math.ts': 'export const double = (n: number) => n * 2;\n',
    });
    const run = await check([root, '--no-types'], root);
    expect(run.status).toBe(0);
    expect(run.stdout).not.toMatch(/error TS/);
    expect(run.stdout).toMatch(/1 ready, 0 invalid, 0 error\(s\) \(types not checked: --no-types\)\n$/);
  }, 60_000);

  it('checks ./integrations without arguments, and explains when there is none', async () => {
    const empty = temp.make();
    const none = await check([], empty);
    expect(none.status).toBe(2);
    expect(none.stderr).toMatch(
      new RegExp(
        /^error: check needs at least one folder of integrations \(\.\/integrations does not exist\), /.source +
          /e\.g\. npm run check -- path\/to\/integrations\n/.source,
      ),
    );
    const project = temp.make({
      'integrations/greeter/platform-manifest.yaml': MANIFEST('greeter'),
      'integrations/greeter/src/index.ts':
        "import { createIntegration } from 'sandbox-api';\nexport default createIntegration({ fetch: () => " +
        'Response.json({ ok: true }) });\n',
    });
    const run = await check([], project);
    expect(run.stdout).toMatch(
      /1 integration\(s\) checked in integrations: 1 ready, 0 invalid, 0 error\(s\), 0 type error\(s\)\n$/,
    );
    expect(run.status).toBe(0);
  }, 60_000);
});

describe('parseTscOutput', () => {
  it('reads errors with their continuation lines and config errors without a file', () => {
    const output =
      "src/a.ts(1,2): error TS2322: Type 'X' is not assignable to type 'Y'.\n  Types of property 'a' are " +
      "incompatible.\nerror TS5023: Unknown compiler option 'x'.\n";
    expect(parseTscOutput(output, '/nowhere/int')).toEqual([
      {
        file: '/nowhere/int/src/a.ts',
        line: 1,
        column: 2,
        code: 'TS2322',
        message: "Type 'X' is not assignable to type 'Y'.\n  Types of property 'a' are incompatible.",
      },
      { file: '/nowhere/int', line: 1, column: 1, code: 'TS5023', message: "Unknown compiler option 'x'." },
    ]);
  });
});
