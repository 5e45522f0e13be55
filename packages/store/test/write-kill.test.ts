// Crash safety: a child process keeps modifying a dataset on disk and is SIGKILLed at a random
// moment. After every kill the dataset must open read-only (no recovery run) and hold exactly a
// state the writer reached. The child logs each state, fsynced, before starting the operation
// that leads to it.
// - carray (test/kill/writer.mjs): the committed prefix of the state before the operation in
//   progress, or of the state after it; one scenario mixes append/set/resize/trim/flush/reopen,
//   the others spend most of their time in append, in-place set, resize or trim.
// - ctable (test/kill/ctable-writer.mjs): append, addColumn and deleteColumn are all-or-nothing,
//   so the table is the whole state before or the whole state after (names and every column).
// CI runs a few kills per scenario; KILL_TRIALS=N runs N per scenario (the long run in
// tools/fuzz/README.md uses 36, 252 kills in all).
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { FileSystemStore } from "@fmt/fs-adapters/node";
import { openCarray, openCtable } from "@fmt/store";

const CARRAY_WRITER = fileURLToPath(new URL("./kill/writer.mjs", import.meta.url));
const CTABLE_WRITER = fileURLToPath(new URL("./kill/ctable-writer.mjs", import.meta.url));
const TRIALS = Number(process.env.KILL_TRIALS ?? 3);
// A fresh dataset every few kills keeps the logged states (whole contents) small.
const TRIALS_PER_DATASET = 8;

interface CarrayEntry {
  op: string;
  state: number[];
  committed: number;
}
interface TableState {
  names: string[];
  columns: { [name: string]: number[] };
}
interface CtableEntry {
  op: string;
  state: TableState;
}

function killDelay(seed: number): number {
  // The kill moment: 40 to 700 ms after the writer is ready, spread by a hash of the trial seed.
  const h = Math.imul(seed ^ 0x9e3779b9, 0x85ebca6b) >>> 0;
  return 40 + (((h ^ (h >>> 13)) >>> 0) % 660);
}

function runAndKill(writer: string, args: string[], delayMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [writer, ...args], { stdio: ["ignore", "pipe", "pipe"] });
    let stderr = "";
    let timer: NodeJS.Timeout | undefined;
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.stdout.on("data", (d: Buffer) => {
      if (timer === undefined && d.toString().includes("ready")) timer = setTimeout(() => child.kill("SIGKILL"), delayMs);
    });
    child.on("error", reject);
    child.on("exit", (code, signal) => {
      if (timer !== undefined) clearTimeout(timer);
      if (signal === "SIGKILL") resolve();
      else reject(new Error(`writer exited by itself (${code}): ${stderr}`));
    });
  });
}

function readLog<T>(path: string): T[] {
  const lines = readFileSync(path, "utf8").split("\n");
  const out: T[] = [];
  // The last line may be cut by the kill: the operation it announces had not started.
  for (const line of lines) {
    try {
      out.push(JSON.parse(line) as T);
    } catch {
      break;
    }
  }
  return out;
}

const sameNumbers = (a: readonly number[], b: readonly number[]): boolean => a.length === b.length && a.every((v, i) => v === b[i]);

function sameTable(a: TableState, b: TableState): boolean {
  return sameNumbers(a.names.map((_, i) => i), b.names.map((_, i) => i)) && a.names.every((n, i) => n === b.names[i] && sameNumbers(a.columns[n]!, b.columns[n]!));
}

// Runs `count` kills; a trial returns the operation it interrupted, or throws when the dataset
// is not in an allowed state. Every kill runs even after a failure (the next writer's open rolls
// the dataset back), so a failing run says how many kills went wrong, not only the first.
async function trials(label: string, count: number, trial: (root: string, round: number, logPath: string) => Promise<string>): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), `kill-${label}-`));
  const hit = new Map<string, number>();
  const failures: string[] = [];
  try {
    for (let round = 0; round < count; round++) {
      const root = join(dir, `root-${Math.floor(round / TRIALS_PER_DATASET)}`);
      try {
        const op = await trial(root, round, join(dir, `log-${round}.jsonl`));
        hit.set(op, (hit.get(op) ?? 0) + 1);
      } catch (error) {
        failures.push(`round ${round}: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  // The operation each kill interrupted (or was about to start), for the record of long runs.
  console.log(`kill ${label}: ${count} kills, ${failures.length} failed; interrupted ${[...hit].map(([op, n]) => `${op} ${n}`).join(", ")}`);
  if (failures.length > 0) throw new Error(`${failures.length} of ${count} kills left a dataset that is not a state the writer reached:\n${failures.join("\n").slice(0, 6000)}`);
}

const CARRAY_SCENARIOS: [focus: string, count: number][] = [
  ["mixed", 2 * TRIALS + 2],
  ["append", TRIALS],
  ["set", TRIALS],
  ["resize", TRIALS],
  ["trim", TRIALS],
];

describe("a carray writer killed at random moments leaves a state it reached", () => {
  for (const [focus, count] of CARRAY_SCENARIOS) {
    it(`${focus}: survives ${count} SIGKILLs`, async () => {
      let operations = 0;
      await trials(`carray-${focus}`, count, async (root, round, logPath) => {
        const seed = 1000 * (1 + CARRAY_SCENARIOS.findIndex(([f]) => f === focus)) + round;
        await runAndKill(CARRAY_WRITER, [root, String(seed), logPath, focus], killDelay(seed));
        const entries = readLog<CarrayEntry>(logPath);
        expect(entries.length, "the writer logged its opening state").toBeGreaterThan(0);
        operations += entries.length - 1;
        const last = entries[entries.length - 1]!;
        const before = entries[entries.length - 2] ?? last;
        const allowed = [before.state.slice(0, before.committed), last.state.slice(0, last.committed)];
        const array = await openCarray(new FileSystemStore(root), "ds");
        const content = Array.from((await array.read()) as Int32Array);
        if (!allowed.some((a) => sameNumbers(a, content))) {
          throw new Error(`after "${last.op}" the dataset holds ${JSON.stringify(content)}; allowed ${JSON.stringify(allowed)}`);
        }
        return last.op.split(" ")[0]!;
      });
      // The kills must have hit the writer in the middle of its work, not only at start-up.
      expect(operations).toBeGreaterThan(count);
    }, 60_000 + count * 20_000);
  }
});

describe("a ctable writer killed at random moments leaves the whole old or the whole new table", () => {
  for (const focus of ["append", "addColumn"]) {
    it(`${focus}: survives ${TRIALS + 1} SIGKILLs`, async () => {
      let operations = 0;
      await trials(`ctable-${focus}`, TRIALS + 1, async (root, round, logPath) => {
        const seed = 50_000 + (focus === "append" ? 0 : 10_000) + round;
        await runAndKill(CTABLE_WRITER, [root, String(seed), logPath, focus], killDelay(seed));
        const entries = readLog<CtableEntry>(logPath);
        expect(entries.length, "the writer logged its opening state").toBeGreaterThan(0);
        operations += entries.length - 1;
        const last = entries[entries.length - 1]!;
        const before = entries[entries.length - 2] ?? last;
        const table = await openCtable(new FileSystemStore(root), "tb").catch((error: unknown) => {
          throw new Error(`after "${last.op}" the table does not open read-only: ${(error as Error).message}`);
        });
        const rows = await table.readRows();
        const content: TableState = { names: [...table.names], columns: Object.fromEntries(table.names.map((n) => [n, Array.from(rows[n] as ArrayLike<number>)])) };
        if (!sameTable(content, before.state) && !sameTable(content, last.state)) {
          throw new Error(`after "${last.op}" the table holds ${JSON.stringify(content).slice(0, 2000)}; allowed ${JSON.stringify([before.state, last.state]).slice(0, 4000)}`);
        }
        return last.op.split(" ")[0]!;
      });
      expect(operations).toBeGreaterThan(TRIALS + 1);
    }, 60_000 + (TRIALS + 1) * 20_000);
  }
});
