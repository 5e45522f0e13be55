// Crash safety: a child process (test/kill/writer.mjs) keeps modifying a carray on disk and is
// SIGKILLed at random moments. After every kill the dataset must open (read-only, no recovery)
// and hold exactly a state the writer reached: the committed prefix of the state before the
// operation in progress, or of the state after it. The child logs each state, fsynced, before
// starting the operation.
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { FileSystemStore } from "@fmt/fs-adapters/node";
import { openCarray } from "@fmt/store";

const WRITER = fileURLToPath(new URL("./kill/writer.mjs", import.meta.url));
const KILLS = 32;

interface Entry {
  op: string;
  state: number[];
  committed: number;
}

function runAndKill(dir: string, seed: number, logPath: string, delayMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [WRITER, dir, String(seed), logPath], { stdio: ["ignore", "pipe", "pipe"] });
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

function readLog(path: string): Entry[] {
  const lines = readFileSync(path, "utf8").split("\n");
  const out: Entry[] = [];
  // The last line may be cut by the kill: the operation it announces had not started.
  for (const line of lines) {
    try {
      out.push(JSON.parse(line) as Entry);
    } catch {
      break;
    }
  }
  return out;
}

describe("a writer killed at random moments leaves a state it reached", () => {
  it(`survives ${KILLS} SIGKILLs`, async () => {
    const dir = mkdtempSync(join(tmpdir(), "carray-kill-"));
    let operations = 0;
    try {
      for (let round = 0; round < KILLS; round++) {
        const logPath = join(dir, `log-${round}.jsonl`);
        await runAndKill(join(dir, "root"), 1000 + round, logPath, 30 + ((round * 37) % 400));
        const entries = readLog(logPath);
        expect(entries.length, "the writer logged its opening state").toBeGreaterThan(0);
        operations += entries.length - 1;
        const last = entries[entries.length - 1]!;
        const before = entries[entries.length - 2] ?? last;
        const allowed = [before.state.slice(0, before.committed), last.state.slice(0, last.committed)];
        const array = await openCarray(new FileSystemStore(join(dir, "root")), "ds");
        const content = Array.from((await array.read()) as Int32Array);
        const ok = allowed.some((a) => a.length === content.length && a.every((v, i) => v === content[i]));
        if (!ok) {
          throw new Error(`round ${round}: after "${last.op}" the dataset holds ${JSON.stringify(content)}; allowed ${JSON.stringify(allowed)}`);
        }
      }
      // The kills must have hit the writer in the middle of its work, not only at start-up.
      expect(operations).toBeGreaterThan(KILLS * 5);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 240_000);
});
