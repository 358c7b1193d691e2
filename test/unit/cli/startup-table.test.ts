// The startup table of `npm run host`/`npm run dev` shows an invalid integration's warnings with its
// errors (the same lines `npm run check` prints), and a code frame under a located problem.
import { describe, expect, it } from 'vitest';
import type { Host } from '../../../host/index.ts';
import type { LoadedIntegration } from '../../../host/manifest/types.ts';
import { startupRows } from '../../../host/cli/startup-table.ts';

const file = 'integrations/greeter/platform-manifest.yaml';

describe('startup table', () => {
  it('lists an invalid integration\'s warnings and "did you mean" under its errors', async () => {
    const greeter: LoadedIntegration = {
      name: 'greeter',
      dir: '/x/greeter',
      manifestPath: `/x/greeter/platform-manifest.yaml`,
      status: 'invalid',
      secrets: {},
      errors: [
        { file, pointer: '/scopes', message: 'required key "scopes" is missing (is "scope" a misspelling of it?)' },
      ],
      warnings: [{ file, pointer: '/scope', message: 'unknown key "scope" (ignored; did you mean "scopes"?)' }],
    };
    const rows = await startupRows({ integrations: [greeter] } as unknown as Host);
    expect(rows.slice(1)).toEqual([
      ['greeter', 'invalid', `${file}: /scopes: required key "scopes" is missing (is "scope" a misspelling of it?)`],
      ['', 'warning', `${file}: /scope: unknown key "scope" (ignored; did you mean "scopes"?)`],
    ]);
  });

  it('puts the code frame of a build error on the rows below it', async () => {
    const broken: LoadedIntegration = {
      name: 'broken',
      dir: '/x/broken',
      manifestPath: '/x/broken/platform-manifest.yaml',
      status: 'invalid',
      secrets: {},
      warnings: [],
      errors: [
        {
          file: 'integrations/broken/src/index.ts',
          pointer: '/script',
          message: 'Unexpected ";"',
          at: { line: 2, column: 7, lineText: 'a = b;;' },
        },
      ],
    };
    const rows = await startupRows({ integrations: [broken] } as unknown as Host);
    expect(rows.slice(1)).toEqual([
      ['broken', 'invalid', 'integrations/broken/src/index.ts:2:7: error: Unexpected ";"'],
      ['', '', '  2 | a = b;;'],
      ['', '', '    |       ^'],
    ]);
  });
});
