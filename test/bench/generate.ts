// Generates N trivial integrations (and optional hostile ones) into a temporary fixtures folder
// for the benchmarks. Never writes inside the repository.

import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Each trivial integration carries its own constant, so no two share a bundle (nor a V8 code cache). */
const trivial = (name: string) => `import { createIntegration } from 'sandbox-api';
const NAME = ${JSON.stringify(name)};
export default createIntegration({ async fetch() { return new Response(NAME ? 'ok' : ''); } });
`;
const SPIN = `import { createIntegration } from 'sandbox-api';
export default createIntegration({ async fetch() { for (;;) {} } });
`;
const ALLOCATE = `import { createIntegration } from 'sandbox-api';
const hoard: unknown[] = [];
export default createIntegration({ async fetch() { for (;;) hoard.push(new Array(10_000).fill({ n: hoard.length }));
  } });
`;

function writeIntegration(root: string, name: string, script: string): void {
  const dir = join(root, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, 'platform-manifest.yaml'),
    `name: ${name}\ntitle: ${name}\ndescription: benchmark fixture\norganization: acme\nvisibility: ` +
      `public\nscopes: []\nscript: index.ts\n`,
  );
  writeFileSync(join(dir, 'index.ts'), script);
}

/** The name prefix of the trivial integrations that the startup section requests one at a time (startup.ts). */
export const PACED_PREFIX = 'paced';

export function generateFixtures(options: {
  trivial: number;
  paced?: number;
  spinners?: number;
  allocators?: number;
  prefix?: string;
}): string {
  const root = mkdtempSync(join(tmpdir(), 'ih-bench-'));
  const prefix = options.prefix ?? 'bench';
  for (let i = 0; i < options.trivial; i++) {
    const name = `${prefix}-${String(i).padStart(4, '0')}`;
    writeIntegration(root, name, trivial(name));
  }
  for (let i = 0; i < (options.paced ?? 0); i++) {
    const name = `${PACED_PREFIX}-${String(i).padStart(4, '0')}`;
    writeIntegration(root, name, trivial(name));
  }
  for (let i = 0; i < (options.spinners ?? 0); i++) writeIntegration(root, `spin-${i}`, SPIN);
  for (let i = 0; i < (options.allocators ?? 0); i++) writeIntegration(root, `allocate-${i}`, ALLOCATE);
  return root;
}
