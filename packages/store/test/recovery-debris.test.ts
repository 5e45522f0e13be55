// Issue 20 item 8, spec v1 §8.5 and v2 §13.1: a writer killed after staging chunks but before its
// journal leaves `.next` files (and, in format 2, `.compact` files) that no reader uses. Opening
// for writing removes them, in both formats, and changes no value.
import { describe, expect, it } from "vitest";
import { MemoryStore } from "@fmt/fs-adapters";
import { createCarray, openCarray } from "@fmt/store";

describe("opening for writing removes the debris of a killed writer", () => {
  it("format 1: data/__k.blp.next without a journal", async () => {
    const store = new MemoryStore();
    await (await createCarray(store, "a", Int32Array.from({ length: 30 }, (_, i) => i), { dtype: "<i4", chunklen: 10 })).close();
    await store.put("a/data/__1.blp.next", (await store.get("a/data/__2.blp"))!); // staged, never committed
    expect(Array.from((await (await openCarray(store, "a")).read()) as Int32Array)).toEqual(Array.from({ length: 30 }, (_, i) => i));
    const w = await openCarray(store, "a", { mode: "a" });
    await w.close();
    expect(await store.list("a/data/")).toEqual(["a/data/__0.blp", "a/data/__1.blp", "a/data/__2.blp"]);
    expect(Array.from((await (await openCarray(store, "a")).read()) as Int32Array)).toEqual(Array.from({ length: 30 }, (_, i) => i));
  });

  it("format 2: an unlisted data/__s__.bin.i.next and a data/__s__.bin.compact", async () => {
    const store = new MemoryStore();
    await (await createCarray(store, "a", Int32Array.from({ length: 30 }, (_, i) => i), { dtype: "<i4", chunklen: 10, formatVersion: 2, superchunksize: 2 })).close();
    await store.put("a/data/__1__.bin.1.next", new Uint8Array(40));
    await store.put("a/data/__2__.bin.compact", (await store.get("a/data/__2__.bin"))!);
    const w = await openCarray(store, "a", { mode: "a" });
    await w.close();
    expect(await store.list("a/data/")).toEqual(["a/data/__1__.bin", "a/data/__2__.bin"]);
    expect(Array.from((await (await openCarray(store, "a")).read()) as Int32Array)).toEqual(Array.from({ length: 30 }, (_, i) => i));
  });
});
