// Issue 9, item 2: a meta/sizes that claims far more rows than the chunk files hold must not make
// strided reads work through the claimed length; they read only the chunks of the selected rows
// and fail with MISSING_FILE naming the first absent one.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { BcolzError } from "@fmt/errors";
import { encodeMetadata } from "@fmt/meta";
import { createCarray, openCarray } from "@fmt/store";
import type { CArray } from "@fmt/store";
import { selectedChunks } from "../src/selection.js";
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

const CHUNKLEN = 100;

/** Three full chunks of int32 0..299, with meta/sizes claiming `claimed` rows. */
async function liar(claimed: number): Promise<CountingStore> {
  const store = new CountingStore();
  const a = await createCarray(store, "x", Int32Array.from({ length: 3 * CHUNKLEN }, (_, i) => i), { dtype: "<i4", chunklen: CHUNKLEN });
  await a.close();
  await store.put("x/meta/sizes", encodeMetadata(`{"shape": [${claimed}], "nbytes": ${claimed * 4}, "cbytes": 0}\n`));
  store.reads.length = 0;
  return store;
}

const chunkReads = (store: CountingStore): string[] => store.reads.filter((k) => k.includes("/data/"));

describe("strided reads of a dataset whose meta/sizes claims 10^12 or 10^15 rows", () => {
  it.each([1e12, 1e15])("take([0, 150, 7]) with length %d reads only the two chunks those rows lie in", async (claimed) => {
    const store = await liar(claimed);
    const a = await openCarray(store, "x", { cacheBytes: 0 });
    expect(Array.from((await a.take([0, 150, 7])) as Int32Array)).toEqual([0, 150, 7]);
    expect(new Set(chunkReads(store))).toEqual(new Set(["x/data/__0.blp", "x/data/__1.blp"]));
  });

  it.each([1e12, 1e15])("read(0, length, length - 1) with length %d reads two chunks and names the missing one", async (claimed) => {
    const store = await liar(claimed);
    const a = await openCarray(store, "x");
    expect(a.length).toBe(claimed);
    const missing = `x/data/__${Math.floor((claimed - 1) / CHUNKLEN)}.blp`;
    const e = await failure(a.read(0, a.length, a.length - 1));
    expect([e.code, e.path]).toEqual(["MISSING_FILE", missing]);
    expect(new Set(chunkReads(store))).toEqual(new Set(["x/data/__0.blp", missing]));
  });

  it("iterBlocks with a step reads only the chunks that hold selected rows", async () => {
    const store = await liar(1e12);
    const a = await openCarray(store, "x");
    const e = await failure((async () => {
      for await (const block of a.iterBlocks({ step: a.length - 1 })) expect(block.start).toBe(0);
    })());
    const missing = `x/data/__${Math.floor((1e12 - 1) / CHUNKLEN)}.blp`;
    expect([e.code, e.path]).toEqual(["MISSING_FILE", missing]);
    expect(new Set(chunkReads(store))).toEqual(new Set(["x/data/__0.blp", missing]));
  });

  it("selected rows inside the existing chunks read fine however long the claim", async () => {
    const store = await liar(1e15);
    const a = await openCarray(store, "x");
    expect([...(await a.read(5, 3 * CHUNKLEN, 140))]).toEqual([5, 145, 285]);
    const blocks: number[][] = [];
    for await (const b of a.iterBlocks({ start: 5, stop: 3 * CHUNKLEN, step: 140, blockLen: 2 })) blocks.push([...new Int32Array(b.bytes.slice().buffer)]);
    expect(blocks).toEqual([[5, 145], [285]]);
    expect(new Set(chunkReads(store))).toEqual(new Set(["x/data/__0.blp", "x/data/__1.blp", "x/data/__2.blp"]));
  });
});

describe("whole reads of a dataset whose meta/sizes claims more rows than its files hold", () => {
  // The precheck reads the last chunk the result needs before the result is allocated: a claim
  // of 10^7 int32 rows (40 MB, within the read limits) fails without 40 MB ever being taken.
  it.each([["read", (a: CArray) => a.read()], ["readBytes", (a: CArray) => a.readBytes()]] as const)("%s fails with MISSING_FILE for the last chunk before allocating the result", async (_name, read) => {
    const claimed = 1e7;
    const store = await liar(claimed);
    const missing = `x/data/__${Math.floor((claimed - 1) / CHUNKLEN)}.blp`;
    let heldWhenAsked: number | undefined;
    const asking = Object.assign(Object.create(store) as CountingStore, {
      get: async (key: string) => {
        if (key === missing) heldWhenAsked ??= process.memoryUsage().arrayBuffers;
        return store.get(key);
      },
      getRange: async (key: string, range: { offset: number; length: number }) => {
        if (key === missing) heldWhenAsked ??= process.memoryUsage().arrayBuffers;
        return store.getRange(key, range);
      },
    });
    const a = await openCarray(asking, "x", { cacheBytes: 0 });
    const before = process.memoryUsage().arrayBuffers;
    const e = await failure(read(a));
    expect([e.code, e.path]).toEqual(["MISSING_FILE", missing]);
    expect(heldWhenAsked).toBeDefined();
    expect(heldWhenAsked! - before).toBeLessThan(claimed * 4 / 2);
  });
});

describe("selectedChunks", () => {
  it("equals the set of chunks of the selected rows, each once, ascending", () => {
    fc.assert(
      fc.property(fc.nat(500), fc.nat(500), fc.integer({ min: 1, max: 300 }), fc.integer({ min: 1, max: 120 }), (start, span, step, chunklen) => {
        const count = Math.ceil((span + 1) / step);
        const lastRow = start + (count - 1) * step;
        const want: number[] = [];
        for (let r = start; r <= lastRow; r += step) {
          const k = Math.floor(r / chunklen);
          if (want[want.length - 1] !== k) want.push(k);
        }
        const got = [...selectedChunks(start, lastRow, step, chunklen)];
        expect(got).toEqual(want);
        expect(got.length).toBeLessThanOrEqual(count + 1);
      }),
    );
  });
});
