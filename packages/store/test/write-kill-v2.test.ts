// Crash safety of the format-2 write paths (spec/v2.md §13, issue 15): a child writer
// (test/kill/writer.mjs) is SIGKILLed at random moments inside
// - grow: appends that rewrite the partial last chunk, in place through the journal (§13.4) or by
//   relocation when it outgrows its slot (§13.5);
// - setmulti: sets spanning several committed chunks, one journal (§13.4), installed in place or
//   by relocation;
// - relocate: one-chunk sets that shrink a chunk (in place, journaled) or grow it beyond a slot
//   without spare room (relocation, the offsets entry as the commit);
// - compact: relocations and compactions (§13.6, each file replaced whole);
// - shrink: resize and trim down across chunk and superchunk boundaries (§13.3), and growing again;
// and a utf8 vlarray writer (test/kill/vlarray-writer.mjs) killed during appends (§12).
// After every kill (kill-harness.ts): the dataset opens read-only with the values before or after
// the interrupted operation (§13.7), opens for writing (recovery, §13.1) with the same values and
// no `.journal`, `.next`, `.compact` or temporary file and no superchunk beyond the last required
// one, and takes a further append. A second part checks, without kills, that each scenario's
// operations really take the path it is named for.
// KILL_TRIALS_V2=N runs N kills per carray scenario and N/2 for the vlarray (default 40: 220
// kills, a minute and a half on 2 cores).
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FileSystemStore } from "@fmt/fs-adapters/node";
import type { PutOptions } from "@fmt/fs-adapters";
import { createCarray, openCarray } from "@fmt/store";
import { CARRAY_WRITER, VLARRAY_WRITER, checkCarrayAfterKill, checkVlarrayAfterKill, childEnvironment, killDelay, runAndKill, trials } from "./kill-harness.js";

const TRIALS = Number(process.env.KILL_TRIALS_V2 ?? 40);
const SCENARIOS = ["grow", "setmulti", "relocate", "compact", "shrink"] as const;

const dir = mkdtempSync(join(tmpdir(), "kill-v2-"));
let env: NodeJS.ProcessEnv;
beforeAll(async () => {
  env = await childEnvironment(dir);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("format 2: a carray writer killed inside each write path leaves a state it reached", () => {
  for (const [n, focus] of SCENARIOS.entries()) {
    it(`${focus}: survives ${TRIALS} SIGKILLs`, async () => {
      const operations = await trials(
        `v2-${focus}`,
        TRIALS,
        async (root, round, logPath) => {
          const seed = 200_000 + 1000 * n + round;
          // The operations take milliseconds: kills from 15 ms to 400 ms after the start land in
          // all of them, and a kill costs about a third of a second.
          await runAndKill(CARRAY_WRITER, [root, String(seed), logPath, focus, "2"], killDelay(seed, 15, 400), env);
          return checkCarrayAfterKill(root, logPath, [seed % 991, round]);
        },
        { perDataset: 8, parallel: 2 },
      );
      expect(operations).toBeGreaterThan(TRIALS);
    }, 60_000 + TRIALS * 6_000);
  }
});

describe("format 2: a vlarray writer killed during appends leaves the old or the new elements", () => {
  const count = Math.max(8, Math.round(TRIALS / 2));
  it(`append: survives ${count} SIGKILLs`, async () => {
    const operations = await trials(
      "v2-vlarray-append",
      count,
      async (root, round, logPath) => {
        const seed = 300_000 + round;
        await runAndKill(VLARRAY_WRITER, [root, String(seed), logPath], killDelay(seed, 15, 400), env);
        return checkVlarrayAfterKill(root, logPath);
      },
      { perDataset: 8, parallel: 2 },
    );
    expect(operations).toBeGreaterThan(count);
  }, 60_000 + count * 6_000);
});

/** A FileSystemStore that records the keys of its puts and its positional writes (key, offset, length). */
class RecordingStore extends FileSystemStore {
  readonly puts: string[] = [];
  readonly writes: string[] = [];
  override async put(key: string, value: Uint8Array, options?: PutOptions): Promise<void> {
    this.puts.push(key);
    await super.put(key, value, options);
  }
  override async writeAt(key: string, offset: number, bytes: Uint8Array, options?: PutOptions): Promise<void> {
    this.writes.push(`${key}@${offset}+${bytes.length}`);
    await super.writeAt(key, offset, bytes, options);
  }
  clear(): void {
    this.puts.length = 0;
    this.writes.length = 0;
  }
}

describe("format 2: the scenarios take the paths they are named for", () => {
  const chunklen = 64;
  const random = (n: number, seed: number): Int32Array => Int32Array.from({ length: n }, (_, i) => ((Math.imul(i + seed, 0x9e3779b1) >>> 8) % 2000) - 1000);
  // 4 chunks and 10 rows; chunk 1 holds a constant, so it compresses to a small slot.
  async function fresh(spare: number): Promise<{ store: RecordingStore; root: string }> {
    const root = mkdtempSync(join(dir, "paths-"));
    const store = new RecordingStore(root);
    const values = random(4 * chunklen + 10, 1).fill(3, chunklen, 2 * chunklen);
    const a = await createCarray(store, "ds", values, { dtype: "<i4", chunklen, formatVersion: 2, superchunksize: 3, spare, checksum: "adler32" });
    await a.close();
    store.clear();
    return { store, root };
  }
  const journaled = (s: RecordingStore): boolean => s.puts.includes("ds/.journal");
  // Offsets entries are the only 8-byte writes (headers take 32, zeroed Blosc headers 16, slots more).
  const entryWrites = (s: RecordingStore): string[] => s.writes.filter((w) => w.endsWith("+8"));

  it("grow: a partial chunk that fits its slot is rewritten through the journal; one that does not is relocated", async () => {
    const roomy = await fresh(100);
    let a = await openCarray(roomy.store, "ds", { mode: "a" });
    await a.append(random(5, 2));
    await a.flush();
    expect(journaled(roomy.store)).toBe(true);
    expect(roomy.store.puts).toContain("ds/data/__2__.bin.1.next");
    await a.close();

    const tight = await fresh(0);
    a = await openCarray(tight.store, "ds", { mode: "a" });
    await a.append(random(20, 3));
    await a.flush();
    expect(journaled(tight.store)).toBe(false);
    expect(entryWrites(tight.store).length).toBeGreaterThan(0);
    await a.close();
  });

  it("setmulti: a set over two committed chunks goes through one journal", async () => {
    const { store } = await fresh(10);
    const a = await openCarray(store, "ds", { mode: "a" });
    await a.set({ start: 10, stop: 3 * chunklen }, 7);
    expect(store.puts.filter((k) => k.endsWith(".next")).length).toBe(3);
    expect(journaled(store)).toBe(true);
    await a.close();
  });

  it("relocate: a one-chunk set that shrinks the chunk is journaled in place; one that grows it beyond a slot without spare room is relocated", async () => {
    const { store } = await fresh(0);
    const a = await openCarray(store, "ds", { mode: "a" });
    await a.set({ start: 2 * chunklen, stop: 3 * chunklen }, 5);
    expect(journaled(store)).toBe(true);
    expect(entryWrites(store)).toEqual([]);
    store.clear();
    await a.set({ start: chunklen, stop: 2 * chunklen }, random(chunklen, 9));
    expect(journaled(store)).toBe(false);
    expect(entryWrites(store).length).toBe(1);
    await a.close();
  });

  it("compact: after relocations, compaction replaces the superchunk file whole and reclaims space", async () => {
    const { store } = await fresh(0);
    const a = await openCarray(store, "ds", { mode: "a" });
    await a.set({ start: chunklen, stop: 2 * chunklen }, random(chunklen, 4));
    expect(entryWrites(store).length).toBe(1);
    store.clear();
    expect(await a.compact()).toBeGreaterThan(0);
    expect(store.puts).toContain("ds/data/__1__.bin");
    await a.close();
  });

  it("shrink: a resize across a superchunk boundary deletes the superchunk beyond", async () => {
    const { store, root } = await fresh(10);
    const a = await openCarray(store, "ds", { mode: "a" });
    await a.resize(2 * chunklen + 3);
    await a.close();
    expect(readdirSync(join(root, "ds/data")).sort()).toEqual(["__1__.bin"]);
  });
});
