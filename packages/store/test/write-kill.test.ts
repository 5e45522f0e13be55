// Crash safety: a child process keeps modifying a dataset on disk and is SIGKILLed at a random
// moment. After every kill the dataset must open read-only (no recovery run) and hold exactly a
// state the writer reached; then open for writing (recovery) with the same values and no
// journal, staged or temporary file left; then take a further append (kill-harness.ts). The
// child logs each state, fsynced, before starting the operation that leads to it.
// - carray (test/kill/writer.mjs): the committed prefix of the state before the operation in
//   progress, or of the state after it; one scenario mixes append/set/resize/trim/flush/reopen,
//   the others spend most of their time in append, in-place set, resize or trim.
// - ctable (test/kill/ctable-writer.mjs): append, addColumn and deleteColumn are all-or-nothing,
//   so the table is the whole state before or the whole state after (names and every column).
// Every scenario runs on format 1 (bcolz 1.x) and format 2 (superchunks); write-kill-v2.test.ts
// adds the paths only format 2 has (journaled rewrites of the partial chunk, relocation,
// compaction).
// CI runs a few kills per scenario; KILL_TRIALS=N runs N per scenario (the long run in
// tools/fuzz/README.md uses 36, 252 kills per format).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CARRAY_WRITER, CTABLE_WRITER, checkCarrayAfterKill, checkCtableAfterKill, childEnvironment, killDelay, runAndKill, trials } from "./kill-harness.js";

const TRIALS = Number(process.env.KILL_TRIALS ?? 3);

const dir = mkdtempSync(join(tmpdir(), "kill-bundle-"));
let env: NodeJS.ProcessEnv;
beforeAll(async () => {
  env = await childEnvironment(dir);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const CARRAY_SCENARIOS: [focus: string, count: number][] = [
  ["mixed", 2 * TRIALS + 2],
  ["append", TRIALS],
  ["set", TRIALS],
  ["resize", TRIALS],
  ["trim", TRIALS],
];

for (const format of [1, 2] as const) {
  describe(`format ${format}: a carray writer killed at random moments leaves a state it reached`, () => {
    for (const [focus, count] of CARRAY_SCENARIOS) {
      it(`${focus}: survives ${count} SIGKILLs`, async () => {
        const operations = await trials(`v${format}-carray-${focus}`, count, async (root, round, logPath) => {
          const seed = 1000 * (1 + CARRAY_SCENARIOS.findIndex(([f]) => f === focus)) + round + (format === 2 ? 100_000 : 0);
          await runAndKill(CARRAY_WRITER, [root, String(seed), logPath, focus, String(format)], killDelay(seed), env);
          return checkCarrayAfterKill(root, logPath, [seed % 997, -round]);
        });
        // The kills must have hit the writer in the middle of its work, not only at start-up.
        expect(operations).toBeGreaterThan(count);
      }, 60_000 + count * 20_000);
    }
  });

  describe(`format ${format}: a ctable writer killed at random moments leaves the whole old or the whole new table`, () => {
    for (const focus of ["append", "addColumn"]) {
      it(`${focus}: survives ${TRIALS + 1} SIGKILLs`, async () => {
        const operations = await trials(`v${format}-ctable-${focus}`, TRIALS + 1, async (root, round, logPath) => {
          const seed = 50_000 + (focus === "append" ? 0 : 10_000) + round + (format === 2 ? 100_000 : 0);
          await runAndKill(CTABLE_WRITER, [root, String(seed), logPath, focus, String(format)], killDelay(seed), env);
          return checkCtableAfterKill(root, logPath);
        });
        expect(operations).toBeGreaterThan(TRIALS + 1);
      }, 60_000 + (TRIALS + 1) * 20_000);
    }
  });
}
