// Writers load the zstd encoder (libzstd in WebAssembly, ~0.1 s once per thread) only when they
// write zstd chunks: a create or an append of lz4, lz4hc, BloscLZ, zlib or snappy chunks does not load
// it, and a zstd writer does before its first chunk. Vitest isolates test files, so this one
// starts with no encoder loaded; the tests run in order and the first must stay first.
import { describe, expect, it } from "vitest";
import { isZstdReady } from "@fmt/blosc";
import { MemoryStore } from "@fmt/fs-adapters";
import { createCarray, createCtable, openCarray } from "@fmt/store";

const values = Float64Array.from({ length: 5000 }, (_, i) => Math.sin(i / 40) * 1000);

describe("the zstd encoder loads only for zstd writers", () => {
  it("creating, appending to and reopening non-zstd arrays (both formats, a table) leaves it unloaded", async () => {
    const store = new MemoryStore();
    for (const cname of ["lz4", "lz4hc", "blosclz", "zlib", "snappy"] as const) {
      for (const formatVersion of [1, 2] as const) {
        const a = await createCarray(store, `${cname}-v${formatVersion}`, values, { dtype: "<f8", chunklen: 1000, cparams: { cname }, formatVersion });
        await a.close();
        const w = await openCarray(store, `${cname}-v${formatVersion}`, { mode: "a" });
        await w.append(values.subarray(0, 10));
        await w.close();
        const read = (await (await openCarray(store, `${cname}-v${formatVersion}`)).read()) as Float64Array;
        expect(Array.from(read.subarray(-10))).toEqual(Array.from(values.subarray(0, 10)));
      }
    }
    const t = await createCtable(store, "table", [{ name: "x", data: values }], { cparams: { cname: "lz4" } });
    await t.close();
    expect(isZstdReady()).toBe(false);
  });

  it("a zstd create loads it and writes zstd chunks that read back", async () => {
    const store = new MemoryStore();
    const a = await createCarray(store, "z", values, { dtype: "<f8", chunklen: 1000, cparams: { cname: "zstd", clevel: 3 } });
    await a.close();
    expect(isZstdReady()).toBe(true);
    const chunk = await store.get("z/data/__0.blp");
    // blpk header (16 bytes), then the Blosc header: flags byte 2, codec in bits 5–7 (zstd = 4).
    expect((chunk![16 + 2]! >> 5) & 7).toBe(4);
    expect((await (await openCarray(store, "z")).read()) as Float64Array).toEqual(values);
  });
});
