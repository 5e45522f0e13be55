// The seed of every randomised test, so that any failure replays: TEST_SEED from the environment
// (an integer), else a fixed default. Loaded by vitest before every test file (vitest.config.ts
// setupFiles): every fast-check property (fc.assert, fc.check, fc.sample) without a seed of its
// own runs from it, and fast-check prints it with any counterexample. Tests that draw their own
// random data take `TEST_SEED` (or `seedFrom(name)`) from here, and a failing test prints it.
import fc from "fast-check";
import { afterEach } from "vitest";

/** The fixed seed when TEST_SEED is not set. */
export const DEFAULT_TEST_SEED = 20261125;

function parseSeed(text: string | undefined, name: string): number | undefined {
  if (text === undefined || text.trim() === "") return undefined;
  const seed = Number(text);
  if (!Number.isSafeInteger(seed)) throw new Error(`${name} must be an integer, got ${JSON.stringify(text)}`);
  return seed | 0;
}

/** The run's seed (a 32-bit integer): TEST_SEED, else DEFAULT_TEST_SEED. */
export const TEST_SEED = parseSeed(process.env.TEST_SEED, "TEST_SEED") ?? DEFAULT_TEST_SEED;

/**
 * A seed for one test file that has its own knob: the environment variable `name` when set (the
 * older per-suite variables, such as BLOSC_ORACLE_SEED), else the run's TEST_SEED.
 */
export function seedFrom(name: string): number {
  return parseSeed(process.env[name], name) ?? TEST_SEED;
}

fc.configureGlobal({ ...fc.readConfigureGlobal(), seed: TEST_SEED });

afterEach(({ task }) => {
  if (task.result?.state === "fail") console.error(`[test seed] "${task.name}" failed; its random data came from TEST_SEED=${TEST_SEED} (rerun with that variable set)`);
});
