// Issue 9: limits an embedding server can rely on. maxReadBytes and maxChunksPerCall bound one
// call as a whole (all columns of a ctable together), and resize refuses absurd lengths before
// writing anything.
import { describe, expect, it } from "vitest";
import { BcolzError } from "@fmt/errors";
import { MemoryStore } from "@fmt/fs-adapters";
import { encodeMetadata } from "@fmt/meta";
import { createCarray, createCtable, DEFAULT_MAX_CHUNKS_PER_CALL, DEFAULT_MAX_READ_BYTES, MAX_RESIZE_BYTES, openCarray, openCtable } from "@fmt/store";
import { CountingStore } from "./helpers.js";

async function failure(p: Promise<unknown>): Promise<BcolzError> {
  try {
    await p;
  } catch (e) {
    if (e instanceof BcolzError) return e;
    throw e;
  }
  throw new Error("expected a failure");
}

const ROWS = 1000;
const chunkReads = (store: CountingStore): string[] => store.reads.filter((k) => k.includes("/data/"));

/** A ctable of four <f8 columns of ROWS rows, chunklen 100. */
async function table(): Promise<CountingStore> {
  const store = new CountingStore();
  const data = Float64Array.from({ length: ROWS }, (_, i) => i);
  const t = await createCtable(store, "t", ["a", "b", "c", "d"].map((name) => ({ name, data })), { chunklen: 100 });
  await t.close();
  store.reads.length = 0;
  return store;
}

describe("maxReadBytes bounds a whole ctable call", () => {
  // Each column is 8000 bytes, the four together 32000: a per-column limit let 2 GiB through.
  it("readRows over all columns is refused when the columns together exceed the limit", async () => {
    const store = await table();
    const t = await openCtable(store, "t", { maxReadBytes: 10_000 });
    const e = await failure(t.readRows());
    expect([e.code, e.field, e.expected, e.actual]).toEqual(["SIZE_LIMIT", "maxReadBytes", "<= 10000", 32_000]);
    expect(e.message).toContain("maxReadBytes (10000)");
    expect(chunkReads(store)).toEqual([]);
    expect(Object.keys(await t.readRows(0, ROWS, 1, ["a"]))).toEqual(["a"]);
  });

  it("one iterBlocks block of all columns must fit the limit", async () => {
    const store = await table();
    const t = await openCtable(store, "t", { maxReadBytes: 10_000 });
    const e = await failure(t.iterBlocks({ blockLen: 500 }).next());
    expect([e.code, e.field, e.actual]).toEqual(["SIZE_LIMIT", "maxReadBytes", 16_000]);
    let blocks = 0;
    for await (const b of t.iterBlocks({ blockLen: 300 })) blocks += b.stop > b.start ? 1 : 0;
    expect(blocks).toBe(4);
  });

  it("where's result (rows or indices) counts against the table's maxReadBytes", async () => {
    const store = await table();
    const t = await openCtable(store, "t", { maxReadBytes: 10_000 });
    // 600 matches x 4 columns x 8 bytes = 19200 bytes of rows; 600 x 8 = 4800 bytes of indices.
    const e = await failure(t.where("a >= 400", { as: "rows" }));
    expect([e.code, e.field, e.expected]).toEqual(["SIZE_LIMIT", "maxReadBytes", "<= 10000"]);
    expect((await t.where("a >= 400")).length).toBe(600);
    expect(Object.keys(await t.where("a >= 400", { as: "rows", columns: ["a", "b"] }))).toEqual(["a", "b"]);
    expect((await t.where("a >= 400", { as: "rows", limit: 300 }))["d"]!.length).toBe(300);
    const small = await failure(t.where("a >= 400", { maxResultBytes: 4000 }));
    expect(small.code).toBe("SIZE_LIMIT");
    expect(await t.where("a >= 0", { as: "count", maxResultBytes: 0 })).toBe(ROWS);
  });

  it("defaults are documented constants", async () => {
    expect(DEFAULT_MAX_READ_BYTES).toBe(2 ** 31 - 1);
    expect(DEFAULT_MAX_CHUNKS_PER_CALL).toBe(2 ** 22);
    expect(MAX_RESIZE_BYTES).toBe(2 ** 40);
  });
});

describe("maxChunksPerCall bounds the chunk files one call reads", () => {
  it("carray read, readBytes and iterBlocks are refused before any chunk is read", async () => {
    const store = await table();
    const a = await openCarray(store, "t/a", { maxChunksPerCall: 3 });
    for (const call of [a.read(0, 301), a.readBytes(50, 400), a.iterBlocks().next(), a.sum()]) {
      const e = await failure(call);
      expect([e.code, e.field, e.expected]).toEqual(["SIZE_LIMIT", "maxChunksPerCall", "<= 3"]);
    }
    expect(chunkReads(store)).toEqual([]);
    expect([...(await a.read(0, ROWS, 400))]).toEqual([0, 400, 800]);
    expect((await a.read(100, 400)).length).toBe(300);
  });

  it("a ctable call counts the chunks of every column it reads", async () => {
    const store = await table();
    const t = await openCtable(store, "t", { maxChunksPerCall: 5 });
    const e = await failure(t.readRows(0, 300));
    expect([e.code, e.field, e.actual]).toEqual(["SIZE_LIMIT", "maxChunksPerCall", 12]);
    const w = await failure(t.where("a > 5"));
    expect([w.code, w.field]).toEqual(["SIZE_LIMIT", "maxChunksPerCall"]);
    expect(chunkReads(store)).toEqual([]);
    expect(Object.keys(await t.readRows(0, 200, 1, ["a", "b"]))).toEqual(["a", "b"]);
  });

  it("a full scan of a dataset claiming 10^12 rows fails at once instead of working through them", async () => {
    const store = new CountingStore();
    const a = await createCarray(store, "x", new Float64Array(300), { dtype: "<f8", chunklen: 100 });
    await a.close();
    await store.put("x/meta/sizes", encodeMetadata(`{"shape": [${1e12}], "nbytes": ${8e12}, "cbytes": 0}\n`));
    store.reads.length = 0;
    const r = await openCarray(store, "x");
    const e = await failure(r.sum());
    expect([e.code, e.field, e.actual]).toEqual(["SIZE_LIMIT", "maxChunksPerCall", 1e10]);
    expect(chunkReads(store)).toEqual([]);
  });

  it("rejects a bad option value", async () => {
    for (const bad of [-1, 1.5, Number.NaN]) {
      const e = await failure(openCarray(new MemoryStore(), "x", { maxChunksPerCall: bad }));
      expect([e.code, e.field]).toEqual(["INVALID_ARGUMENT", "maxChunksPerCall"]);
    }
  });
});

describe("resize bounds", () => {
  it("refuses n beyond MAX_RESIZE_BYTES or not a safe integer before writing anything", async () => {
    const store = new MemoryStore();
    const a = await createCarray(store, "x", [1, 2, 3], { dtype: "<f8", chunklen: 100 });
    await a.flush();
    const before = new Map<string, Uint8Array | undefined>();
    for (const key of await store.list("")) before.set(key, await store.get(key));
    const big = await failure(a.resize(1e12));
    expect([big.code, big.field, big.actual]).toEqual(["SIZE_LIMIT", "n", 1e12]);
    expect(big.message).toContain(`MAX_RESIZE_BYTES (${2 ** 40})`);
    for (const bad of [2 ** 53, 1.5, Number.POSITIVE_INFINITY]) expect((await failure(a.resize(bad))).code).toBe("INVALID_ARGUMENT");
    expect(a.length).toBe(3);
    const after = new Map<string, Uint8Array | undefined>();
    for (const key of await store.list("")) after.set(key, await store.get(key));
    expect(after).toEqual(before);
    await a.close();
    expect([...(await (await openCarray(store, "x")).read())]).toEqual([1, 2, 3]);
  });
});
