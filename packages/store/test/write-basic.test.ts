import { describe, expect, it } from "vitest";
import { MemoryStore } from "@fmt/fs-adapters";
import { createCarray, openCarray } from "@fmt/store";


const text = (b: Uint8Array | undefined) => (b === undefined ? undefined : new TextDecoder().decode(b));

describe("smoke", () => {
  it("creates and reads back", async () => {
    const store = new MemoryStore();
    const a = await createCarray(store, "x", new Int32Array([1, 2, 3, 4, 5]), { dtype: "<i4", chunklen: 2 });
    expect(Array.from((await a.read()) as Int32Array)).toEqual([1, 2, 3, 4, 5]);
    await a.close();
    expect(await store.list("x/")).toEqual(["x/__attrs__", "x/data/__0.blp", "x/data/__1.blp", "x/data/__2.blp", "x/meta/sizes", "x/meta/storage"]);
    expect(text(await store.get("x/meta/storage"))).toBe('{"dtype": "int32", "cparams": {"clevel": 5, "shuffle": 1, "cname": "lz4", "quantize": 0}, "chunklen": 2, "expectedlen": 5, "dflt": 0}\n');
    const b = await openCarray(store, "x", { mode: "a" });
    await b.append([6, 7]);
    await b.set({ start: 0, stop: 7, step: 3 }, -1);
    await b.resize(9);
    expect(Array.from((await b.read()) as Int32Array)).toEqual([-1, 2, 3, -1, 5, 6, -1, 0, 0]);
    await b.trim(4);
    await b.attrs.set("u", "m");
    await b.close();
    const c = await openCarray(store, "x");
    expect(Array.from((await c.read()) as Int32Array)).toEqual([-1, 2, 3, -1, 5]);
    expect(c.attrs.get("u")).toBe("m");
    expect(await c.sum()).toBe(8);
  });
});
