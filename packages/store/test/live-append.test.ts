// Issue 9, item 9: read-only opens of a ctable while another process appends to it must all
// succeed and show a committed length (before the fix, about 1 in 7 failed with INCONSISTENT).
// Both format versions; format 2 also with a carray whose writer rewrites the partial last
// chunk (journal or relocation), rewrites committed rows and compacts while readers open it.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { FileSystemStore } from "@fmt/fs-adapters/node";
import { MemoryStore } from "@fmt/fs-adapters";
import { encodeMetadata } from "@fmt/meta";
import { APPEND_JOURNAL_FILE, createCarray, createCtable, openCarray, openCtable } from "@fmt/store";
import { asCArray } from "./helpers.js";

const APPENDER = fileURLToPath(new URL("./kill/table-appender.mjs", import.meta.url));
const CARRAY_APPENDER = fileURLToPath(new URL("./kill/carray-appender.mjs", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "bcolz-live-append-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const START = 10;
const ROWS = 37;

for (const format of [1, 2] as const) describe(`format ${format}: readers during a live ctable append`, () => {
  it("60+ read-only opens during appends in another process all see a committed length", async () => {
    const root = join(dir, `t${format}`);
    const first = Float64Array.from({ length: START }, (_, i) => i);
    const created = await createCtable(new FileSystemStore(root), "t", [
      { name: "a", data: first },
      { name: "b", data: first.map((x) => 2 * x) },
      { name: "c", data: Int32Array.from(first, (x) => -x) },
    ], { chunklen: 50, ...(format === 2 ? { formatVersion: 2 as const, superchunksize: 3 } : {}) });
    await created.close();
    expect(created.formatVersion).toBe(format);

    const child = spawn(process.execPath, [APPENDER, root], { stdio: ["pipe", "pipe", "inherit"] });
    const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
    expect((await lines.next()).value).toBe("READY");

    const seen = new Set<number>();
    const failures: string[] = [];
    let opens = 0;
    // Keep reading until the writer has visibly moved on several times (and at least 60 opens).
    while ((opens < 60 || seen.size < 4) && opens < 3000) {
      opens++;
      try {
        const t = await openCtable(new FileSystemStore(root), "t");
        const n = t.length;
        expect((n - START) % ROWS).toBe(0);
        const last = await t.readRows(n - 1, n);
        expect([last["a"]![0], last["b"]![0], last["c"]![0]]).toEqual([n - 1, 2 * (n - 1), -(n - 1)]);
        seen.add(n);
      } catch (e) {
        failures.push(String(e));
      }
    }
    child.stdin.write("stop\n");
    const stopped = (await lines.next()).value as string;
    expect(stopped).toMatch(/^STOPPED \d+$/);
    expect(failures).toEqual([]);
    expect(opens).toBeGreaterThanOrEqual(60);
    expect(seen.size).toBeGreaterThanOrEqual(4);
    const final = await openCtable(new FileSystemStore(root), "t");
    expect(final.length).toBe(Number(stopped.split(" ")[1]));
  });
});

describe("format 2: readers during live carray appends, rewrites and compactions", () => {
  for (const spare of [0, 100]) {
    it(`spare ${spare}: 60+ read-only opens all see a committed length and row r = r`, async () => {
      const root = join(dir, `a${spare}`);
      const created = await createCarray(new FileSystemStore(root), "a", Int32Array.from({ length: START }, (_, i) => i), { dtype: "<i4", chunklen: 64, formatVersion: 2, superchunksize: 3, spare });
      await created.close();

      const child = spawn(process.execPath, [CARRAY_APPENDER, root], { stdio: ["pipe", "pipe", "inherit"] });
      const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
      expect((await lines.next()).value).toBe("READY");

      const seen = new Set<number>();
      const failures: string[] = [];
      let opens = 0;
      while ((opens < 60 || seen.size < 4) && opens < 3000) {
        opens++;
        try {
          const a = await openCarray(new FileSystemStore(root), "a");
          const values = Array.from((await a.read()) as Int32Array);
          const wrong = values.findIndex((v, i) => v !== i);
          if (values.length < START || wrong >= 0) failures.push(`length ${values.length}, row ${wrong} holds ${values[wrong]}`);
          seen.add(values.length);
        } catch (e) {
          failures.push(String(e));
        }
      }
      child.stdin.write("stop\n");
      const stopped = (await lines.next()).value as string;
      expect(stopped).toMatch(/^STOPPED \d+$/);
      expect(failures).toEqual([]);
      expect(seen.size).toBeGreaterThanOrEqual(4);
      const final = await openCarray(new FileSystemStore(root), "a");
      expect(final.length).toBe(Number(stopped.split(" ")[1]));
      expect(Array.from((await final.read()) as Int32Array).every((v, i) => v === i)).toBe(true);
    });
  }
});

describe("a reader resolves an append journal to the committed length", () => {
  async function interrupted(): Promise<MemoryStore> {
    // A table of 3 rows whose append of 2 more rows stopped after column a.
    const store = new MemoryStore();
    const t = await createCtable(store, "t", [{ name: "a", data: [1, 2, 3] }, { name: "b", data: [4, 5, 6] }], { chunklen: 2 });
    await asCArray(t.column("a")).append([7, 8]);
    await t.column("a").flush();
    await store.put(`t/${APPEND_JOURNAL_FILE}`, encodeMetadata('{"format": 1, "length": 3}\n'));
    return store;
  }

  it("columns longer than the journal's length are read at that length", async () => {
    const r = await openCtable(await interrupted(), "t");
    expect(r.length).toBe(3);
    expect(r.columns.map((c) => c.length)).toEqual([3, 3]);
    const rows = await r.readRows();
    expect([[...rows["a"]!], [...rows["b"]!]]).toEqual([[1n, 2n, 3n], [4n, 5n, 6n]]);
  });

  it("unequal columns without a journal stay INCONSISTENT, naming the meta/sizes of the column that differs from the first", async () => {
    const store = await interrupted();
    await store.delete(`t/${APPEND_JOURNAL_FILE}`);
    const e = await openCtable(store, "t").then(() => undefined, (err: unknown) => err as { code: string; path: string });
    expect([e?.code, e?.path]).toEqual(["INCONSISTENT", "t/b/meta/sizes"]);
  });

  it("a journal recording more rows than every column has is INCONSISTENT naming the journal", async () => {
    const store = await interrupted();
    await store.put(`t/${APPEND_JOURNAL_FILE}`, encodeMetadata('{"format": 1, "length": 9}\n'));
    const e = await openCtable(store, "t").then(() => undefined, (err: unknown) => err as { code: string; path: string });
    expect(e?.code).toBe("INCONSISTENT");
  });
});
