// Runs fast-check properties with the fuzz folder's fixed seed and a time budget, and fails with
// the seed and counterexample path in the message. Rerun with another seed: `FUZZ_SEED=123 npm test`;
// replay one counterexample: `FUZZ_SEED=<seed> FUZZ_PATH=<path> npx vitest run <file> -t '<test name>'`.

import fc from 'fast-check';

const DEFAULT_SEED = 20_260_605;

const seedFromEnv = Number.parseInt(process.env.FUZZ_SEED ?? '', 10);
export const FUZZ_SEED = Number.isNaN(seedFromEnv) ? DEFAULT_SEED : seedFromEnv;
const FUZZ_PATH = process.env.FUZZ_PATH || undefined;

export interface FuzzOptions<Ts = unknown> {
  numRuns: number;
  /** Generation stops (successfully) past this budget, so the suite stays bounded on slow machines. */
  timeLimitMs?: number;
  /** Counterexamples found earlier: checked first on every run, whatever the seed. */
  examples?: Ts[];
}

type AnyProperty<Ts> = fc.IProperty<Ts> | fc.IAsyncProperty<Ts>;

export async function fuzz<Ts>(property: AnyProperty<Ts>, { numRuns, timeLimitMs = 15_000, examples = [] }: FuzzOptions<Ts>): Promise<void> {
  const details = await fc.check(property as fc.IAsyncProperty<Ts>, {
    seed: FUZZ_SEED,
    path: FUZZ_PATH,
    numRuns,
    examples,
    plugins: [fc.interruptAfterTimeLimit(timeLimitMs)],
  });
  if (!details.failed) return;
  const report = fc.defaultReportMessage(details) ?? 'property failed';
  const cause = details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance ?? '');
  const replay = `FUZZ_SEED=${details.seed} FUZZ_PATH=${details.counterexamplePath ?? ''}`;
  throw new Error(`fuzz property failed — reproduce with ${replay}\n${report}\nFailure: ${cause}`, { cause: details.errorInstance });
}
