// When the zstd encoder cannot load (a runtime that refuses its WebAssembly, a broken install), a
// zstd create fails before it writes anything: no new dataset appears, an existing one replaced
// with mode "w" keeps its content, and a zstd column added to a table leaves no directory behind.
// The encoder's package is replaced by one whose load rejects: the failure being tested is ours to
// handle, not the package's behaviour.
import { describe, expect, it, vi } from "vitest";
import { MemoryStore } from "@fmt/fs-adapters";
import { createCarray, createCtable, openCarray, openCtable } from "@fmt/store";

// The path @fmt/blosc resolves the package to (a dependency of @fmt/blosc, not of this package).
vi.mock("../../blosc/node_modules/@hpcc-js/wasm-zstd/dist/index.js", () => ({
  Zstd: {
    load: () => Promise.reject(new Error("zstd WebAssembly refused")),
    unload: () => Promise.resolve(),
  },
}));

const values = Float64Array.from({ length: 5000 }, (_, i) => Math.cos(i / 30) * 100);
const zstd = { cname: "zstd" } as const;

async function snapshot(store: MemoryStore): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const key of await store.list("")) out.set(key, Buffer.from((await store.get(key))!).toString("hex"));
  return out;
}

describe("a zstd create whose encoder cannot load writes nothing", () => {
  it("a new dataset: the create rejects and the store stays empty", async () => {
    const store = new MemoryStore();
    await expect(createCarray(store, "z", values, { dtype: "<f8", chunklen: 1000, cparams: zstd })).rejects.toThrow("zstd WebAssembly refused");
    expect(await store.list("")).toEqual([]);
  });

  it("mode \"w\" over an existing array: the old array is untouched", async () => {
    const store = new MemoryStore();
    await (await createCarray(store, "a", values, { dtype: "<f8", chunklen: 1000 })).close();
    const before = await snapshot(store);
    await expect(createCarray(store, "a", values.subarray(0, 10), { dtype: "<f8", chunklen: 1000, cparams: zstd, mode: "w" })).rejects.toThrow("zstd WebAssembly refused");
    expect(await snapshot(store)).toEqual(before);
    expect((await (await openCarray(store, "a")).read()) as Float64Array).toEqual(values);
  });

  it("a zstd column added to an lz4 table: nothing of it is left, the table is unchanged", async () => {
    const store = new MemoryStore();
    await (await createCtable(store, "t", [{ name: "x", data: values }], { cparams: { cname: "lz4" } })).close();
    const before = await snapshot(store);
    const table = await openCtable(store, "t", { mode: "a" });
    await expect(table.addColumn("y", values, { cparams: zstd })).rejects.toThrow("zstd WebAssembly refused");
    await table.close();
    const after = await snapshot(store);
    expect([...after.keys()].filter((k) => k.startsWith("t/y"))).toEqual([]);
    expect(after).toEqual(before);
  });
});
