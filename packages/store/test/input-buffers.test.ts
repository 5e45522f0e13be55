// Reads through many chunk files reuse a few input buffers (Store.getInto): the values stay
// right whatever the reader does with the rows it was given, the buffers are few, and memory a
// store hands back that is not one of the reader's own buffers is never written into.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { useCrc32Offload } from "@fmt/header";
import { Crc32Worker } from "@fmt/header/node";
import { setDecodeBackend } from "@fmt/blosc";
import { MemoryStore, READ_BUFFER_OFFSET } from "@fmt/fs-adapters";
import type { ReadableStore } from "@fmt/fs-adapters";
import { FileSystemStore } from "@fmt/fs-adapters/node";
import { createCarray, openCarray } from "@fmt/store";
import { IdleBuffers, idleInputs } from "../src/lent-buffers.js";
import { recording } from "./recording-store.js";

const dir = mkdtempSync(join(tmpdir(), "bcolz-input-buffers-"));
const worker = new Crc32Worker();
afterEach(async () => {
  await useCrc32Offload(undefined);
  setDecodeBackend("auto");
});
afterAll(async () => {
  await worker.close();
  rmSync(dir, { recursive: true, force: true });
});

/**
 * Format-2 runs go to a CRC-32 thread that takes only transfers: they are then read into ordinary
 * buffers (a WebAssembly memory cannot be transferred), which the idle buffers keep between passes.
 * Without such a thread they are read into the decoder's memory, as format 1's files are.
 */
async function transferringThread(): Promise<void> {
  expect(await useCrc32Offload({ crc32: (buffer, spans) => worker.crc32(buffer, spans) })).toBe(true);
}

const CHUNKLEN = 4096;
const CHUNKS = 40;
// Chunks of different compressed sizes: runs of repeats (small files) and noise (large ones).
const values = new Float64Array(CHUNKLEN * CHUNKS + 123);
let seed = 7;
for (let i = 0; i < values.length; i++) {
  seed = (seed * 1103515245 + 12345) >>> 0;
  values[i] = Math.floor(i / CHUNKLEN) % 2 === 0 ? Math.floor(i / 64) : seed / 7;
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
    // Each buffer is lent READ_BUFFER_OFFSET bytes into its memory, every time (a destination just
    // past a page boundary makes the kernel's copy from the page cache several times slower).
    expect(lent.every((b) => b.byteOffset === READ_BUFFER_OFFSET && b.buffer.byteLength === b.length + READ_BUFFER_OFFSET)).toBe(true);

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

  it("format 2: runs of slots are read into a few reused buffers, checksums verified, values right", async () => {
    const path = join(dir, "v2.bcolz");
    // Four chunks per superchunk: 11 files, so the reader goes through more runs than it keeps in flight.
    const created = await createCarray(new FileSystemStore(path), "", values, { dtype: "<f8", chunklen: CHUNKLEN, formatVersion: 2, checksum: "crc32", superchunksize: 4, spare: 0 });
    await created.close();
    const { store, lent, ranges, calls } = recording(new FileSystemStore(path));
    const a = await openCarray(store, "", { cacheBytes: 0 });
    for (let pass = 0; pass < 2; pass++) expect(Array.from((await a.read()) as Float64Array)).toEqual(Array.from(values));
    expect(calls()).toBe(2 * Math.ceil((CHUNKS + 1) / 4)); // one range per superchunk and pass
    expect(ranges.every((r) => r !== undefined && "offset" in r && r.length > 0)).toBe(true);
    const distinct = new Set(lent.map((b) => b.buffer));
    expect(distinct.size).toBeLessThanOrEqual(16);
    expect(distinct.size).toBeLessThan(calls());

    let expectedSum = 0;
    for (const v of values) expectedSum += v;
    expect(Math.abs(Number(await a.sum()) - expectedSum) / expectedSum).toBeLessThan(1e-12);
    const rows = [0, 5, CHUNKLEN * 7 + 3, values.length - 1, CHUNKLEN * 20, 17, CHUNKLEN * 39 + 4000];
    expect(Array.from((await a.take(rows)) as Float64Array)).toEqual(rows.map((r) => values[r]));
    for (const r of rows) expect(await a.get(r)).toBe(values[r]);
    const blocks: { start: number; bytes: Uint8Array }[] = [];
    for await (const block of a.iterBlocks({ blockLen: CHUNKLEN })) blocks.push({ start: block.start, bytes: block.bytes });
    for (const b of blocks) {
      const got = new Float64Array(b.bytes.buffer, b.bytes.byteOffset, b.bytes.length / 8);
      expect(Array.from(got)).toEqual(Array.from(values.subarray(b.start, b.start + got.length)));
    }

    // A flipped byte inside a chunk read into a reused buffer is still refused by its checksum.
    const file = join(path, "data", "__2__.bin");
    const bytes = readFileSync(file);
    bytes[bytes.length - 100]! ^= 0x40;
    writeFileSync(file, bytes);
    const again = await openCarray(recording(new FileSystemStore(path)).store, "", { cacheBytes: 0 });
    await expect(again.read()).rejects.toMatchObject({ code: "CHECKSUM_MISMATCH" });
  });

  it("a pass of another reader reads into the buffers an earlier pass gave back (format 2 runs and format 1 files)", async () => {
    for (const version of [2, 1] as const) {
      // Format 2 on the TypeScript decoder: no decoder memory to read into, so its runs are read
      // into ordinary buffers (as with a transferring thread, whose round trips change the
      // buffers' identities, which this test follows).
      setDecodeBackend(version === 2 ? "js" : "auto");
      const path = join(dir, `idle-v${version}.bcolz`);
      const v2 = { formatVersion: 2, checksum: "crc32", superchunksize: 4, spare: 0 } as const;
      const created = await createCarray(new FileSystemStore(path), "", values, { dtype: "<f8", chunklen: CHUNKLEN, ...(version === 2 ? v2 : {}) });
      await created.close();
      while (idleInputs.take(0) !== undefined); // what earlier tests left
      const first = recording(new FileSystemStore(path));
      expect(Array.from((await (await openCarray(first.store, "")).read()) as Float64Array)).toEqual(Array.from(values));
      // Format 2 gives its runs' buffers to the idle buffers; format 1 reads into the slots of
      // the decoder's own WebAssembly memory (ResidentInputs), which go back to their thread.
      if (version === 2) expect(idleInputs.bytes).toBeGreaterThan(0);
      else expect(new Set(first.lent.map((b) => b.buffer)).size).toBe(1);
      // Another carray object over the same files: a reader of its own, no buffers of its own.
      const second = recording(new FileSystemStore(path));
      const expectedSum = values.reduce((x, y) => x + y, 0);
      expect(Math.abs(Number(await (await openCarray(second.store, "")).sum()) - expectedSum) / expectedSum).toBeLessThan(1e-12);
      const before = new Set(first.lent.map((b) => b.buffer));
      // Its pass may need one buffer more of a size the first had fewer of (the two passes
      // overlap reads and decoding differently); without the idle buffers every one is new.
      const fresh = new Set(second.lent.map((b) => b.buffer).filter((b) => !before.has(b)));
      expect(second.lent.length).toBeGreaterThan(5);
      expect(fresh.size).toBeLessThanOrEqual(1);
    }
  });

  it("a reader with cacheBytes 0 neither uses nor adds to the idle buffers; a store answering with its own memory drains nothing", async () => {
    const path = join(dir, "idle-v2-other.bcolz");
    const v2 = { formatVersion: 2, checksum: "crc32", superchunksize: 4, spare: 0 } as const;
    await (await createCarray(new FileSystemStore(path), "", values, { dtype: "<f8", chunklen: CHUNKLEN, ...v2 })).close();
    await transferringThread();
    while (idleInputs.take(0) !== undefined);
    await (await openCarray(new FileSystemStore(path), "")).sum();
    const warm = idleInputs.bytes;
    expect(warm).toBeGreaterThan(0);
    // cacheBytes 0: its pass reads into buffers of its own and leaves the pool as it was.
    const { store, lent } = recording(new FileSystemStore(path));
    await (await openCarray(store, "", { cacheBytes: 0 })).sum();
    expect(lent.length).toBeGreaterThan(0);
    expect(idleInputs.bytes).toBe(warm);
    // io "async" has getInto but answers with arrays of its own: each buffer taken comes back.
    for (const version of [2, 1] as const) {
      const target = version === 2 ? path : join(dir, "idle-v1-other.bcolz");
      if (version === 1) await (await createCarray(new FileSystemStore(target), "", values, { dtype: "<f8", chunklen: CHUNKLEN })).close();
      await (await openCarray(new FileSystemStore(target), "")).sum();
      const before = idleInputs.bytes;
      const expectedSum = values.reduce((x, y) => x + y, 0);
      const sum = Number(await (await openCarray(new FileSystemStore(target, { io: "async" }), "")).sum());
      expect(Math.abs(sum - expectedSum) / expectedSum).toBeLessThan(1e-12);
      expect(idleInputs.bytes).toBe(before);
    }
  });

  it("idle buffers: the smallest that fits is taken, and no more than the budget is kept (largest first)", () => {
    const idle = new IdleBuffers(1000);
    idle.keep([new Uint8Array(300), new Uint8Array(600), new Uint8Array(200), new Uint8Array(500)]);
    expect(idle.bytes).toBe(900); // 600 kept, 500 would pass 1000, 300 kept, 200 would pass it
    expect(idle.take(250)?.length).toBe(300);
    expect(idle.take(700)).toBeUndefined();
    expect(idle.take(1)?.length).toBe(600);
    expect(idle.bytes).toBe(0);
    // Full of small buffers, a larger one displaces the smallest (a pool of small ones would turn larger reads away for good).
    idle.keep([new Uint8Array(250), new Uint8Array(250), new Uint8Array(250), new Uint8Array(240)]);
    expect(idle.bytes).toBe(990);
    idle.keep([new Uint8Array(400)]);
    expect(idle.bytes).toBe(900); // 240 and one 250 made room
    expect(idle.take(300)?.length).toBe(400);
    idle.keep([new Uint8Array(2000)]); // over the budget: not kept
    expect(idle.bytes).toBe(500);
    // Evicting cannot make room: nothing is evicted.
    const full = new IdleBuffers(1000);
    full.keep([new Uint8Array(950), new Uint8Array(30)]);
    full.keep([new Uint8Array(100)]);
    expect(full.bytes).toBe(980);
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

describe("single-row reads and reused blocks", () => {
  it("random gets past a full cache read into one reused buffer and give the written values; a chunk read twice soon is decoded whole", async () => {
    // Chunk files larger than the reader's speculative first range (64 KiB), so that gets read
    // whole chunk files: noise that does not compress, 128 KiB per chunk.
    const big = 16_384;
    const noise = new Float64Array(big * 12 + 77);
    let s = 5;
    for (let i = 0; i < noise.length; i++) {
      s = (s * 1103515245 + 12345) >>> 0;
      noise[i] = s / 3;
    }
    const path = join(dir, "c.bcolz");
    const created = await createCarray(new FileSystemStore(path), "", noise, { dtype: "<f8", chunklen: big });
    await created.close();
    const { store, lent, calls } = recording(new FileSystemStore(path));
    // Room for about two chunks: the cache fills after the first reads, then gets borrow buffers.
    const a = await openCarray(store, "", { cacheBytes: 2 * big * 8 + 100 });
    let state = 99;
    for (let i = 0; i < 300; i++) {
      state = (state * 1103515245 + 12345) >>> 0;
      const row = state % noise.length;
      expect(await a.get(row)).toBe(noise[row]);
    }
    expect(calls()).toBeGreaterThan(100);
    expect(new Set(lent.map((b) => b.buffer)).size).toBe(1);
    // Rows read in order: after the first two reads of a chunk the rest come from the cache.
    const before = calls();
    for (let row = big * 3; row < big * 4; row++) expect(await a.get(row)).toBe(noise[row]);
    expect(calls() - before).toBeLessThanOrEqual(2);
  });

  it("iterBlocks({ reuse: true }) gives the same blocks as without, in a few buffers", async () => {
    const mem = new MemoryStore();
    const created = await createCarray(mem, "", values, { dtype: "<f8", chunklen: CHUNKLEN });
    await created.close();
    const a = await openCarray(mem, "", { cacheBytes: 0 });
    for (const blockLen of [CHUNKLEN, 1000, 3 * CHUNKLEN + 5]) {
      const plain: number[] = [];
      for await (const b of a.iterBlocks({ blockLen, start: 17, stop: values.length - 3 })) plain.push(...new Float64Array(b.bytes.slice().buffer));
      const reused: number[] = [];
      const buffers = new Set<ArrayBufferLike>();
      for await (const b of a.iterBlocks({ blockLen, start: 17, stop: values.length - 3, reuse: true })) {
        buffers.add(b.bytes.buffer);
        reused.push(...new Float64Array(b.bytes.slice().buffer));
      }
      expect(reused).toEqual(plain);
      expect(plain).toEqual(Array.from(values.subarray(17, values.length - 3)));
      expect(buffers.size).toBeLessThanOrEqual(2);
    }
  });
});

describe("single rows from pieces of the chunk's streams", () => {
  // Float64 random walks (raw low byte planes, compressed high ones), int32 small integers and
  // int16 noise; lz4, BloscLZ and zstd (which has no prefix decoder: whole reads); byte shuffle,
  // bit shuffle and none.
  const cases = [
    { dtype: "<f8", cname: "lz4", shuffle: 1 },
    { dtype: "<f8", cname: "blosclz", shuffle: 1 },
    { dtype: "<i4", cname: "lz4", shuffle: 1 },
    { dtype: "<i2", cname: "lz4", shuffle: 0 },
    { dtype: "<f8", cname: "lz4", shuffle: 2 },
    { dtype: "<f8", cname: "zstd", shuffle: 1 },
  ] as const;
  it.each(cases)("%o: random gets give the written values, mostly through a few small reads", async ({ dtype, cname, shuffle }) => {
    const chunklen = 16_384;
    const n = chunklen * 30 + 1000;
    const values = dtype === "<f8" ? new Float64Array(n) : dtype === "<i4" ? new Int32Array(n) : new Int16Array(n);
    let s = 11;
    let walk = 0;
    for (let i = 0; i < n; i++) {
      s = (s * 1103515245 + 12345) >>> 0;
      walk += (s / 2 ** 32 - 0.5) * 3;
      values[i] = dtype === "<f8" ? walk : dtype === "<i4" ? Math.round(walk) : (s >>> 16) - 32768;
    }
    const path = join(dir, `pieces-${dtype}-${cname}-${shuffle}.bcolz`);
    const created = await createCarray(new FileSystemStore(path), "", values, { dtype, chunklen, cparams: { cname, clevel: 5, shuffle } });
    await created.close();
    const inner = new FileSystemStore(path);
    let rangeCalls = 0;
    const store: ReadableStore = {
      get: (key) => inner.get(key),
      getRange: (key, range) => inner.getRange(key, range),
      getInto: (key, buffer) => inner.getInto(key, buffer),
      getRanges: (key, ranges) => {
        rangeCalls++;
        return inner.getRanges(key, ranges);
      },
      list: (prefix) => inner.list(prefix),
    };
    const a = await openCarray(store, "", { cacheBytes: chunklen * 8 + 100 });
    let state = 3;
    const gets = 600;
    for (let i = 0; i < gets; i++) {
      state = (state * 1103515245 + 12345) >>> 0;
      const row = state % n;
      expect(await a.get(row)).toBe(values[row]);
    }
    if (shuffle === 1 && cname !== "zstd") expect(rangeCalls).toBeGreaterThan(gets / 2);
    if (shuffle === 2 || cname === "zstd") expect(rangeCalls).toBe(0);
  });

  it("a chunk file cut short after its streams were learned gives an error, never other values", async () => {
    const chunklen = 32_768;
    const values = new Float64Array(chunklen * 2);
    for (let i = 1; i < values.length; i++) values[i] = values[i - 1]! + Math.sin(i * 7.1);
    const path = join(dir, "pieces-cut.bcolz");
    const created = await createCarray(new FileSystemStore(path), "", values, { dtype: "<f8", chunklen });
    await created.close();
    const a = await openCarray(new FileSystemStore(path), "", { cacheBytes: 0 });
    expect(await a.get(5)).toBe(values[5]); // learns chunk 0's streams
    const { truncateSync } = await import("node:fs");
    truncateSync(join(path, "data", "__0.blp"), 4000);
    const error: unknown = await a.get(chunklen - 1).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(["TRUNCATED", "CORRUPT_STREAM"]).toContain((error as { code?: string } | undefined)?.code);
  });
});
