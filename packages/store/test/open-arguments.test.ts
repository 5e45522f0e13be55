// Issue 18 item 8: from plain JavaScript, `open(store, { mode: "a" })` (options in the path's
// place, the dataset at the store root) opens for writing instead of failing on "a store key must
// be a string"; the three-argument form is unchanged and a non-string, non-object path is still a
// usage error.
import { describe, expect, it } from "vitest";
import { MemoryStore } from "@fmt/fs-adapters";
import { createCarray, createCtable, open, openCarray, openCtable } from "@fmt/store";

describe("open functions take (store, options) for a dataset at the store root", () => {
  it("open, openCarray and openCtable", async () => {
    const store = new MemoryStore();
    await (await createCarray(store, "", [1, 2, 3], { dtype: "<i4" })).close();
    const a = await open(store, { mode: "a" });
    expect(a.mode).toBe("a");
    if (a.kind === "carray") await a.append([4]);
    await a.close();
    const w = await openCarray(store, { mode: "a", cacheBytes: 0 });
    await w.append([5]);
    await w.close();
    expect((await openCarray(store, "", {})).length).toBe(5);
    expect(Array.from((await (await openCarray(store)).read()) as Int32Array)).toEqual([1, 2, 3, 4, 5]);

    const tables = new MemoryStore();
    await (await createCtable(tables, "", [{ name: "x", data: [1, 2], options: { dtype: "<i4" } }])).close();
    const t = await openCtable(tables, { mode: "a" });
    await t.append([{ x: 3 }]);
    await t.close();
    expect((await openCtable(tables)).length).toBe(3);
    await expect(open(store, 5 as never)).rejects.toMatchObject({ code: "INVALID_ARGUMENT" });
  });
});
