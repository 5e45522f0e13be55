// Format-1 passes read chunk files straight into the decoder's WebAssembly memory (slots of a
// `ResidentInputs` of @fmt/blosc): every buffer a pass lends lies in one memory, the values and
// sums are those written, iterBlocks with reuse hands out blocks decoded there, the memory serves
// the next pass (after an early exit too), and a broken chunk read there still gives its error
// with its file's path.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { ByteRange, ReadableStore } from "@fmt/fs-adapters";
import { READ_BUFFER_OFFSET } from "@fmt/fs-adapters";
import { FileSystemStore } from "@fmt/fs-adapters/node";
import { setDecodeBackend } from "@fmt/blosc";
import { createCarray, createCtable, openCarray, openCtable } from "@fmt/store";
import { recording } from "./recording-store.js";
import { randomWalk, sameValues } from "./walk-values.js";

const dir = mkdtempSync(join(tmpdir(), "bcolz-resident-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const CHUNKLEN = 8192;
const CHUNKS = 30;
const values = randomWalk(CHUNKLEN * CHUNKS + 321, 11);
const expectedSum = values.reduce((x, y) => x + y, 0);

describe("format-1 passes read chunk files into the decoder's memory", () => {
  it("read, sum, iterBlocks, take and where lend slots of one memory and give the written values", async () => {
    const path = join(dir, "a.bcolz");
    await (await createCarray(new FileSystemStore(path), "", values, { dtype: "<f8", chunklen: CHUNKLEN })).close();
    const { store, lent } = recording(new FileSystemStore(path));
    const a = await openCarray(store, "");
    expect(sameValues((await a.read()) as Float64Array, values)).toBe(true);
    expect(lent.length).toBe(CHUNKS + 1);
    const memory = lent[0]!.buffer;
    // One memory for every file (ordinary lent buffers are one ArrayBuffer each), each slot
    // READ_BUFFER_OFFSET bytes past a page boundary, where reads from the page cache run fastest.
    expect(lent.every((b) => b.buffer === memory && b.byteOffset % 4096 === READ_BUFFER_OFFSET)).toBe(true);
    expect(new Set(lent.map((b) => b.byteOffset)).size).toBeGreaterThan(1);
    lent.length = 0;
    expect(Math.abs(Number(await a.sum()) - expectedSum)).toBeLessThan(1e-6 * Math.abs(expectedSum) + 1e-6);
    for (const reuse of [false, true]) {
      // Blocks of 5,000 rows: some lie inside one chunk, some span two.
      const got = new Float64Array(values.length);
      let inMemory = 0;
      for await (const block of a.iterBlocks({ blockLen: 5000, reuse })) {
        got.set(new Float64Array(block.bytes.slice().buffer), block.start);
        if (block.bytes.buffer === memory) inMemory++;
      }
      expect(sameValues(got, values)).toBe(true);
      // With reuse, a block inside one chunk is a view of the chunk decoded in the pass's memory.
      if (reuse) expect(inMemory).toBeGreaterThan(10);
      else expect(inMemory).toBe(0);
    }
    const rows = [0, 9, CHUNKLEN * 3 + 1, values.length - 1, CHUNKLEN * 17 + 77, 4];
    expect(sameValues((await a.take(rows)) as Float64Array, rows.map((r) => values[r]!))).toBe(true);
    // Every later pass of this reader ran in the same memory, taken back from the first.
    expect(lent.length).toBeGreaterThan(3 * CHUNKS);
    expect(lent.every((b) => b.buffer === memory)).toBe(true);

    const tablePath = join(dir, "t.bcolz");
    await (await createCtable(new FileSystemStore(tablePath), "", [{ name: "x", data: values, options: { dtype: "<f8", chunklen: CHUNKLEN } }])).close();
    const table = recording(new FileSystemStore(tablePath));
    const t = await openCtable(table.store, "");
    const threshold = values[1234]!;
    let count = 0;
    for (const v of values) if (v > threshold) count++;
    expect(await t.where(`x > ${threshold}`, { as: "count" })).toBe(count);
    expect(table.lent.length).toBe(CHUNKS + 1);
    // A second query runs in the same memory: the first one's pass gave it back (a table's
    // iterBlocks asks each column past its last block).
    expect(await t.where(`x <= ${threshold}`, { as: "count" })).toBe(values.length - count);
    expect(table.lent.length).toBe(2 * (CHUNKS + 1));
    expect(new Set(table.lent.map((b) => b.buffer)).size).toBe(1);
  });

  it("where ended early by its limit keeps no block, so its memory serves the next query", async () => {
    const tablePath = join(dir, "limit.bcolz");
    await (await createCtable(new FileSystemStore(tablePath), "", [{ name: "x", data: values, options: { dtype: "<f8", chunklen: CHUNKLEN } }])).close();
    const table = recording(new FileSystemStore(tablePath));
    const t = await openCtable(table.store, "");
    const last = values[values.length - 1]!;
    for (let i = 0; i < 4; i++) {
      const rows = await t.where(`x == ${last}`, { limit: 1 });
      expect(values[rows[0]!]).toBe(last);
    }
    expect(table.lent.length).toBeGreaterThan(4);
    expect(new Set(table.lent.map((b) => b.buffer)).size).toBe(1);
  });

  it("chunks of any size, stored raw or not, and windows inside one chunk read right; without the WebAssembly decoder, no slots", async () => {
    // 1,000 int32 rows per chunk: 4,000 bytes, not a multiple of 64.
    const ints = Int32Array.from({ length: 1000 * 12 + 7 }, (_, i) => (i * 7919) % 100_003);
    for (const clevel of [5, 0]) {
      const path = join(dir, `ints-${clevel}.bcolz`);
      await (await createCarray(new FileSystemStore(path), "", ints, { dtype: "<i4", chunklen: 1000, cparams: { clevel } })).close();
      const { store, lent } = recording(new FileSystemStore(path));
      const a = await openCarray(store, "");
      expect(sameValues((await a.read()) as Int32Array, ints)).toBe(true);
      expect(new Set(lent.map((b) => b.buffer)).size).toBe(1);
      const memory = lent[0]!.buffer;
      let inMemory = 0;
      const got = new Int32Array(ints.length);
      for await (const block of a.iterBlocks({ blockLen: 1000, reuse: true })) {
        got.set(new Int32Array(block.bytes.slice().buffer), block.start);
        if (block.bytes.buffer === memory) inMemory++;
      }
      expect(sameValues(got, ints)).toBe(true);
      expect(inMemory).toBe(13); // twelve chunks and the leftover
      // A window of a few rows inside one chunk decodes only the blocks that hold them.
      for await (const block of a.iterBlocks({ blockLen: 10, start: 3005, stop: 3015, reuse: true })) {
        expect(block.bytes.buffer).not.toBe(memory);
        expect(sameValues(new Int32Array(block.bytes.slice().buffer), ints.subarray(block.start, block.stop))).toBe(true);
      }
    }
    setDecodeBackend("js");
    try {
      const { store, lent } = recording(new FileSystemStore(join(dir, "ints-5.bcolz")));
      expect(sameValues((await (await openCarray(store, "")).read()) as Int32Array, ints)).toBe(true);
      // Ordinary lent buffers: each READ_BUFFER_OFFSET bytes into an ArrayBuffer of its own.
      expect(lent.every((b) => b.byteOffset === READ_BUFFER_OFFSET && b.buffer.byteLength === b.length + READ_BUFFER_OFFSET)).toBe(true);
    } finally {
      setDecodeBackend("auto");
    }
  });

  it("a block kept after leaving iterBlocks early stays as it was while other passes read", async () => {
    const path = join(dir, "held.bcolz");
    await (await createCarray(new FileSystemStore(path), "", values, { dtype: "<f8", chunklen: CHUNKLEN })).close();
    const other = join(dir, "other.bcolz");
    await (await createCarray(new FileSystemStore(other), "", values.map((v) => -v), { dtype: "<f8", chunklen: CHUNKLEN })).close();
    const a = await openCarray(new FileSystemStore(path), "");
    let held: Uint8Array | undefined;
    for await (const block of a.iterBlocks({ blockLen: 1000, reuse: true })) {
      if (block.start === 3000) {
        held = block.bytes;
        break;
      }
    }
    const copy = held!.slice();
    // Passes over other arrays of the same chunk size, which would run in the held block's memory.
    const b = await openCarray(new FileSystemStore(other), "");
    for (let i = 0; i < 3; i++) await b.read();
    for await (const block of b.iterBlocks({ blockLen: 1000, reuse: true })) if (block.start > 10 * CHUNKLEN) break;
    expect(Buffer.compare(held!, copy)).toBe(0);
    expect(sameValues(new Float64Array(copy.buffer), values.subarray(3000, 4000))).toBe(true);
  });

  // A read that fails while the next one is still writing into its buffer: the pass ends with
  // that buffer lent, and no later pass is lent it before the read settles. Chunks of 32 KiB are
  // read into resident slots; chunks of 6.4 MB (over the resident limit) into ordinary buffers,
  // which go to the idle buffers shared by every reader of the thread.
  for (const chunklen of [4096, 800_000]) {
    it(`a failed read leaves no buffer that a slow read still writes into to later passes (chunks of ${chunklen} rows)`, async () => {
      const n = chunklen * (chunklen > 100_000 ? 3 : 6);
      const aValues = new Float64Array(n).map((_, i) => i);
      const bValues = new Float64Array(n).map((_, i) => -1 - i);
      const pa = join(dir, `fail-a-${chunklen}`);
      const pb = join(dir, `fail-b-${chunklen}`);
      // Stored raw (clevel 0): a chunk's bytes are its values, so bytes written late show up as values.
      await (await createCarray(new FileSystemStore(pa), "", aValues, { dtype: "<f8", chunklen, cparams: { clevel: 0 } })).close();
      await (await createCarray(new FileSystemStore(pb), "", bValues, { dtype: "<f8", chunklen, cparams: { clevel: 0 } })).close();
      const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
      const innerA = new FileSystemStore(pa);
      let slowReads = 0;
      const storeA: ReadableStore = {
        get: (k) => innerA.get(k),
        getRange: (k, r) => innerA.getRange(k, r),
        list: (p) => innerA.list(p),
        getInto: async (key: string, buffer: Uint8Array, range?: ByteRange) => {
          if (key.endsWith("__1.blp")) {
            await sleep(5);
            throw new Error("the read of chunk 1 failed");
          }
          if (key.endsWith("__2.blp")) {
            // A slow read (a remote store) that writes into its buffer late.
            await sleep(100);
            slowReads++;
          }
          return innerA.getInto(key, buffer, range);
        },
      };
      const innerB = new FileSystemStore(pb);
      const storeB: ReadableStore = {
        get: (k) => innerB.get(k),
        getRange: (k, r) => innerB.getRange(k, r),
        list: (p) => innerB.list(p),
        getInto: async (key: string, buffer: Uint8Array, range?: ByteRange) => {
          const got = await innerB.getInto(key, buffer, range);
          await sleep(150); // the bytes are in; the answer comes later, after A's slow read wrote
          return got;
        },
      };
      const a = await openCarray(storeA, "", { prefetch: 1 });
      const b = await openCarray(storeB, "", { prefetch: 1 });
      await expect(a.read()).rejects.toThrow("the read of chunk 1 failed");
      const got = (await b.read()) as Float64Array;
      expect(slowReads).toBe(1);
      expect(sameValues(got, bValues)).toBe(true);
    });
  }

  it("a pass left early gives its memory to the next pass (the chunk it was on and the reads in flight come back)", async () => {
    const path = join(dir, "b.bcolz");
    await (await createCarray(new FileSystemStore(path), "", values, { dtype: "<f8", chunklen: CHUNKLEN })).close();
    const { store, lent } = recording(new FileSystemStore(path));
    const a = await openCarray(store, "");
    for (let round = 0; round < 3; round++) {
      for await (const block of a.iterBlocks({ blockLen: CHUNKLEN })) if (block.start >= 3 * CHUNKLEN) break;
    }
    expect(sameValues((await a.read()) as Float64Array, values)).toBe(true);
    expect(new Set(lent.map((b) => b.buffer)).size).toBe(1);
  });

  it("a broken chunk read into the decoder's memory gives its error and path; the next pass reads right", async () => {
    const path = join(dir, "c.bcolz");
    // Values whose streams compress (every one is an lz4 stream, none stored raw).
    const steps = values.map((_, i) => Math.floor(i / 100));
    await (await createCarray(new FileSystemStore(path), "", steps, { dtype: "<f8", chunklen: CHUNKLEN })).close();
    const file = join(path, "data", "__5.blp");
    const good = readFileSync(file);
    const bad = Buffer.from(good);
    // The first stream of the first block (after the 16-byte file header, the chunk's header and
    // its block starts) filled with 0xff: as lz4, a literal run longer than the stream.
    const first = 16 + bad.readInt32LE(16 + 16);
    const csize = bad.readInt32LE(first);
    expect(csize).toBeLessThan(CHUNKLEN); // compressed, not stored raw
    bad.fill(0xff, first + 4, first + 4 + csize);
    writeFileSync(file, bad);
    const a = await openCarray(new FileSystemStore(path), "");
    await expect(a.read()).rejects.toMatchObject({ code: "CORRUPT_STREAM", path: expect.stringContaining("__5.blp") as unknown });
    writeFileSync(file, good);
    const again = await openCarray(new FileSystemStore(path), "");
    expect(sameValues((await again.read()) as Float64Array, steps)).toBe(true);
  });
});
