// Runs fast-check properties with the fuzz folder's fixed seed and a time budget, and fails with
// the seed and counterexample path in the message. Rerun with another seed: `FUZZ_SEED=123 npm test`;
// replay one counterexample: `FUZZ_SEED=<seed> FUZZ_PATH=<path> npx vitest run <file> -t '<test name>'`.
// A property its time budget interrupted says how many cases it ran, and fails below its floor.

import fc from 'fast-check';

const DEFAULT_SEED = 20_260_605;

const seedFromEnv = Number.parseInt(process.env.FUZZ_SEED ?? '', 10);
export const FUZZ_SEED = Number.isNaN(seedFromEnv) ? DEFAULT_SEED : seedFromEnv;
const FUZZ_PATH = process.env.FUZZ_PATH || undefined;

export interface FuzzOptions<Ts = unknown> {
  numRuns: number;
  /** Generation stops past this budget, so the suite stays bounded on slow machines. */
  timeLimitMs?: number;
  /**
   * Cases that must have run when the budget interrupts the property (default: minRunsFor(numRuns)):
   * fewer, and the property fails, as it tested too little to say anything.
   */
  minRuns?: number;
  /** Counterexamples found earlier: checked first on every run, whatever the seed. */
  examples?: Ts[];
}

/**
 * The default floor: a fifth of the cases asked for, at least one. On a 2-core machine with a load
 * average of 14 (this folder beside other test runs) every property here ran all its cases within
 * its 15 s budget, the slowest in 8.5 s (manifest-load, 400 cases): missing the floor takes a
 * machine about nine times slower than that, a stall rather than a busy machine.
 */
export function minRunsFor(numRuns: number): number {
  return Math.max(1, Math.ceil(numRuns / 5));
}

type AnyProperty<Ts> = fc.IProperty<Ts> | fc.IAsyncProperty<Ts>;

export async function fuzz<Ts>(
  property: AnyProperty<Ts>,
  { numRuns, timeLimitMs = 15_000, minRuns = minRunsFor(numRuns), examples = [] }: FuzzOptions<Ts>,
): Promise<void> {
  const details = await fc.check(property as fc.IAsyncProperty<Ts>, {
    seed: FUZZ_SEED,
    path: FUZZ_PATH,
    numRuns,
    examples,
    plugins: [fc.interruptAfterTimeLimit(timeLimitMs)],
  });
  // Interrupted without a counterexample (fast-check itself fails a property interrupted before its first case).
  if (details.interrupted && details.counterexample === null) {
    const ran = `ran ${details.numRuns} of ${numRuns} cases before its ${timeLimitMs} ms budget ran out`;
    if (details.numRuns < minRuns) {
      throw new Error(
        `fuzz property interrupted: it ${ran}, fewer than its floor of ${minRuns} (seed ${details.seed}); the ` +
          `machine was too busy or the property too slow for its budget`,
      );
    }
    console.warn(`fuzz property interrupted: it ${ran} (floor ${minRuns}, seed ${details.seed})`);
    return;
  }
  if (!details.failed) return;
  const report = fc.defaultReportMessage(details) ?? 'property failed';
  const cause =
    details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance ?? '');
  const replay = `FUZZ_SEED=${details.seed} FUZZ_PATH=${details.counterexamplePath ?? ''}`;
  throw new Error(`fuzz property failed — reproduce with ${replay}\n${report}\nFailure: ${cause}`, {
    cause: details.errorInstance,
  });
}
