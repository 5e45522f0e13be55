// Reads through many chunk files reuse a few input buffers (Store.getInto): the values stay
// right whatever the reader does with the rows it was given, the buffers are few, and memory a
// store hands back that is not one of the reader's own buffers is never written into.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { MemoryStore } from "@fmt/fs-adapters";
import type { ReadableStore } from "@fmt/fs-adapters";
import { FileSystemStore } from "@fmt/fs-adapters/node";
import { createCarray, openCarray } from "@fmt/store";

const dir = mkdtempSync(join(tmpdir(), "bcolz-input-buffers-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const CHUNKLEN = 4096;
const CHUNKS = 40;
// Chunks of different compressed sizes: runs of repeats (small files) and noise (large ones).
const values = new Float64Array(CHUNKLEN * CHUNKS + 123);
let seed = 7;
for (let i = 0; i < values.length; i++) {
  seed = (seed * 1103515245 + 12345) >>> 0;
  values[i] = Math.floor(i / CHUNKLEN) % 2 === 0 ? Math.floor(i / 64) : seed / 7;
}

/** A FileSystemStore whose getInto calls are recorded: the buffers lent and what came back. */
function recording(inner: FileSystemStore) {
  const lent: Uint8Array[] = [];
  let calls = 0;
  const store: ReadableStore = {
    get: (key) => inner.get(key),
    getRange: (key, range) => inner.getRange(key, range),
    list: (prefix) => inner.list(prefix),
    getInto: async (key, buffer) => {
      calls++;
      lent.push(buffer);
      return inner.getInto(key, buffer);
    },
  };
  return { store, lent, calls: () => calls };
}

describe("input buffers of whole-array reads", () => {
  it("read, sum, take and iterBlocks give the written values and lend a handful of buffers for 41 chunk files", async () => {
    const path = join(dir, "a.bcolz");
    const created = await createCarray(new FileSystemStore(path), "", values, { dtype: "<f8", chunklen: CHUNKLEN });
    await created.close();
    const { store, lent, calls } = recording(new FileSystemStore(path));
    const a = await openCarray(store, "", { cacheBytes: 0 });
    expect(Array.from((await a.read()) as Float64Array)).toEqual(Array.from(values));
    expect(calls()).toBe(CHUNKS + 1);
    const distinct = new Set(lent.map((b) => b.buffer));
    expect(distinct.size).toBeLessThanOrEqual(8);
    expect(distinct.size).toBeGreaterThanOrEqual(1);

    let expectedSum = 0;
    for (const v of values) expectedSum += v;
    // sum() adds pairwise (as numpy); the order differs from this loop's in the last bits only.
    expect(Math.abs(Number(await a.sum()) - expectedSum) / expectedSum).toBeLessThan(1e-12);

    const rows = [0, 5, CHUNKLEN * 7 + 3, values.length - 1, CHUNKLEN * 20, 17, CHUNKLEN * 39 + 4000];
    expect(Array.from((await a.take(rows)) as Float64Array)).toEqual(rows.map((r) => values[r]));

    // Blocks handed out earlier keep their values while later chunks are read into the buffers.
    const blocks: { start: number; bytes: Uint8Array }[] = [];
    for await (const block of a.iterBlocks({ blockLen: CHUNKLEN })) blocks.push({ start: block.start, bytes: block.bytes });
    for (const b of blocks) {
      const got = new Float64Array(b.bytes.buffer, b.bytes.byteOffset, b.bytes.length / 8);
      expect(Array.from(got)).toEqual(Array.from(values.subarray(b.start, b.start + got.length)));
    }
  });

  it("memory a store returns instead of the lent buffer is never written into", async () => {
    const path = join(dir, "b.bcolz");
    const created = await createCarray(new FileSystemStore(path), "", values, { dtype: "<f8", chunklen: CHUNKLEN });
    await created.close();
    const inner = new FileSystemStore(path);
    // A store that ignores the buffer and returns its own arrays, kept here to be checked after.
    const returned: { bytes: Uint8Array; copy: Uint8Array }[] = [];
    const store: ReadableStore = {
      get: (key) => inner.get(key),
      getInto: async (key) => {
        const bytes = await inner.get(key);
        if (bytes !== undefined) returned.push({ bytes, copy: bytes.slice() });
        return bytes;
      },
    };
    const a = await openCarray(store, "", { cacheBytes: 0 });
    expect(Array.from((await a.read()) as Float64Array)).toEqual(Array.from(values));
    expect(Array.from((await a.read()) as Float64Array)).toEqual(Array.from(values));
    expect(returned.length).toBe(2 * (CHUNKS + 1));
    for (const r of returned) expect(Buffer.compare(r.bytes, r.copy)).toBe(0);
  });

  it("a store without getInto reads as before", async () => {
    const mem = new MemoryStore();
    const created = await createCarray(mem, "", values, { dtype: "<f8", chunklen: CHUNKLEN });
    await created.close();
    const a = await openCarray(mem, "", { cacheBytes: 0 });
    expect(Array.from((await a.read()) as Float64Array)).toEqual(Array.from(values));
  });
});
