// Issue 9: inputs that used to leave part of their effect behind (item 5) or reach the file
// system with names it cannot hold (items 4/6).
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { BcolzError } from "@fmt/errors";
import { MemoryStore } from "@fmt/fs-adapters";
import { FileSystemStore } from "@fmt/fs-adapters/node";
import { createCarray, createCtable, openCarray, openCtable } from "@fmt/store";

async function failure(p: Promise<unknown>): Promise<BcolzError> {
  try {
    await p;
  } catch (e) {
    if (e instanceof BcolzError) return e;
    throw e;
  }
  throw new Error("expected a failure");
}

/** Every key of the store with its bytes (but the writer's lock), to compare before and after. */
async function snapshot(store: MemoryStore): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const key of await store.list("")) if (!key.endsWith(".lock")) out.set(key, Buffer.from((await store.get(key))!).toString("hex"));
  return out;
}

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe("CArray.append is all or nothing", () => {
  it("an element count that is not a whole number of rows commits nothing (shape [n, 2], 3 values)", async () => {
    const store = new MemoryStore();
    const a = await createCarray(store, "x", [1, 2, 3, 4], { dtype: "<i4", shape: [2], chunklen: 4 });
    await a.flush();
    const before = await snapshot(store);
    const e = await failure(a.append([5, 6, 7]));
    expect(e.code).toBe("INVALID_ARGUMENT");
    expect(a.shape).toEqual([2, 2]);
    await a.close();
    expect(await snapshot(store)).toEqual(before);
    const r = await openCarray(store, "x");
    expect(r.shape).toEqual([2, 2]);
    expect([...(await r.read())]).toEqual([1, 2, 3, 4]);
  });

  it("an iterable that yields valid rows and then a bad value leaves nothing behind", async () => {
    const store = new MemoryStore();
    const a = await createCarray(store, "x", [0], { dtype: "<f8", chunklen: 4 });
    await a.flush();
    const before = await snapshot(store);
    function* rows(): Generator<number[] | string[]> {
      for (let i = 1; i <= 10; i++) yield [i];
      yield ["not a number"];
    }
    const e = await failure(a.append(rows() as Iterable<number[]>));
    expect(e.code).toBe("INVALID_ARGUMENT");
    expect(a.length).toBe(1);
    await a.close();
    expect(await snapshot(store)).toEqual(before);
    expect((await openCarray(store, "x")).length).toBe(1);
  });

  it("an async iterable whose 3rd block is out of range leaves nothing behind", async () => {
    const store = new MemoryStore();
    const a = await createCarray(store, "x", [1], { dtype: "<i2", chunklen: 8 });
    await a.flush();
    const before = await snapshot(store);
    async function* blocks(): AsyncGenerator<Int16Array | number[]> {
      yield new Int16Array(16).fill(3);
      yield new Int16Array(16).fill(4);
      yield [1, 2, 70000];
    }
    const e = await failure(a.append(blocks()));
    expect(e.code).toBe("OUT_OF_RANGE");
    expect(a.length).toBe(1);
    await a.close();
    expect(await snapshot(store)).toEqual(before);
  });
});

describe("column names that a file system cannot hold", () => {
  function tempStore(): { dir: string; store: FileSystemStore } {
    const dir = mkdtempSync(join(tmpdir(), "names-"));
    dirs.push(dir);
    return { dir, store: new FileSystemStore(dir) };
  }
  const long = "c".repeat(300);

  it("addColumn, renameColumn and createCtable refuse a 300-character name with UNSAFE_NAME before writing", async () => {
    const { dir, store } = tempStore();
    const t = await createCtable(store, "t", [{ name: "a", data: [1, 2] }]);
    const listing = readdirSync(join(dir, "t")).sort();
    for (const attempt of [t.addColumn(long, [1, 2]), t.renameColumn("a", long), createCtable(store, "u", [{ name: long, data: [1] }])]) {
      const e = await failure(attempt);
      expect([e.code, e.field]).toEqual(["UNSAFE_NAME", expect.stringMatching(/^(name|to|columns\.0\.name|\/names\/0)$/)]);
    }
    expect(readdirSync(join(dir, "t")).sort()).toEqual(listing);
    expect(readdirSync(dir)).toEqual(["t"]);
    await t.close();
    expect((await openCtable(store, "t")).names).toEqual(["a"]);
  });

  it("accepts a name of exactly 255 characters", async () => {
    const { store } = tempStore();
    const name = "d".repeat(255);
    const t = await createCtable(store, "t", [{ name: "a", data: [1, 2] }]);
    await t.addColumn(name, [3, 4]);
    await t.close();
    expect((await openCtable(store, "t")).names).toEqual(["a", name]);
  });
});
