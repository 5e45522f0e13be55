// The read path's batched and partial reads: `get` through range reads (requests and bytes
// counted on the store), `take` against a model, `readInto` with its typed errors.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { BcolzError } from "@fmt/errors";
import { MemoryStore } from "@fmt/fs-adapters";
import { FileSystemStore } from "@fmt/fs-adapters/node";
import type { ByteRange, ReadableStore } from "@fmt/fs-adapters";
import { createCarray, createCtable, openCarray, openCtable } from "@fmt/store";
import { glibcMappingBytes, resultBufferBytes, ROUNDED_FROM_BYTES } from "../src/result-memory.js";

/** A store that counts the requests and bytes that reach `inner`. */
class CountingStore implements ReadableStore {
  gets: string[] = [];
  ranges: { key: string; offset: number; length: number; got: number }[] = [];
  constructor(readonly inner: MemoryStore, readonly withRanges = true) {
    if (!withRanges) this.getRange = undefined;
  }
  async get(key: string): Promise<Uint8Array | undefined> {
    if (key.includes("/data/")) this.gets.push(key);
    return this.inner.get(key);
  }
  getRange?: ((key: string, range: ByteRange) => Promise<Uint8Array | undefined>) | undefined = async (key, range) => {
    const bytes = await this.inner.getRange(key, range);
    const r = range as { offset: number; length: number };
    this.ranges.push({ key, offset: r.offset, length: r.length, got: bytes?.length ?? 0 });
    return bytes;
  };
  reset(): void {
    this.gets = [];
    this.ranges = [];
  }
}

const i32 = (b: Uint8Array, at: number): number => new DataView(b.buffer, b.byteOffset).getInt32(at, true);

/** Blosc fields of a chunk file, read here by hand (format-facts 1.3): nbytes, blocksize, cbytes, bstarts. */
function layout(file: Uint8Array): { flags: number; blocksize: number; cbytes: number; bstarts: number[] } {
  const nbytes = i32(file, 16 + 4);
  const blocksize = i32(file, 16 + 8);
  const cbytes = i32(file, 16 + 12);
  const nblocks = Math.ceil(nbytes / blocksize);
  const flags = file[16 + 2]!;
  const bstarts = (flags & 2) !== 0 ? [] : Array.from({ length: nblocks }, (_, j) => i32(file, 32 + 4 * j));
  return { flags, blocksize, cbytes, bstarts };
}

function walk(n: number, seed: number): Float64Array {
  const out = new Float64Array(n);
  let s = seed;
  let v = 0;
  for (let i = 0; i < n; i++) {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0;
    v += (s % 2001) - 1000;
    out[i] = v;
  }
  return out;
}

describe("get through range reads", () => {
  // The first range read of a chunk asks for this many bytes (the reader's speculative window,
  // documented in carray-read.ts): chunks smaller than it arrive whole in one request.
  const WINDOW = 64 * 1024;

  it("reads a small chunk whole in one range request", async () => {
    const values = walk(3 * 4096, 5);
    const inner = new MemoryStore();
    await (await createCarray(inner, "a", values, { dtype: "<f8", chunklen: 4096 })).close();
    const file = (await inner.get("a/data/__1.blp"))!;
    expect(file.length).toBeLessThan(WINDOW);
    const store = new CountingStore(inner);
    const a = await openCarray(store, "a");
    expect(await a.get(4096 + 17)).toBe(values[4096 + 17]);
    expect(store.gets).toEqual([]);
    expect(store.ranges.map((r) => [r.offset, r.got])).toEqual([[0, file.length]]);
    store.reset();
    expect(await a.get(4096 + 4000)).toBe(values[4096 + 4000]); // same chunk: decoded once, cached
    expect(store.ranges).toEqual([]);
  });

  it("reads the header and block starts once per chunk, then only the block holding the row", async () => {
    const C = 65536;
    const values = walk(3 * C, 1);
    const inner = new MemoryStore();
    // zstd at clevel 1 keeps blocks well below the 512 KiB chunk, and the chunk above the window.
    await (await createCarray(inner, "a", values, { dtype: "<f8", chunklen: C, cparams: { cname: "zstd", clevel: 1, shuffle: 1 } })).close();
    const file = (await inner.get("a/data/__1.blp"))!;
    expect(file.length).toBeGreaterThan(WINDOW);
    const { blocksize, bstarts, cbytes } = layout(file);
    expect(bstarts.length).toBeGreaterThan(2);
    const sorted = [...bstarts].sort((x, y) => x - y);
    const extent = (j: number): number => (sorted.find((s) => s > bstarts[j]!) ?? cbytes) - bstarts[j]!;

    const store = new CountingStore(inner);
    const a = await openCarray(store, "a");
    const last = bstarts.length - 1;
    const row = C + Math.floor((1 * blocksize) / 8) + 5; // chunk 1, block 1
    expect(await a.get(row)).toBe(values[row]);
    expect(store.gets).toEqual([]);
    expect(store.ranges.map((r) => r.got)).toEqual([WINDOW, extent(1)]);
    expect(store.ranges[1]!.offset).toBe(16 + bstarts[1]!);

    store.reset();
    const other = C + Math.floor((last * blocksize) / 8); // chunk 1, last block: the header is known
    expect(await a.get(other)).toBe(values[other]);
    expect(store.ranges.map((r) => [r.offset, r.got])).toEqual([[16 + bstarts[last]!, extent(last)]]);

    store.reset();
    expect(await a.get(row + 1)).toBe(values[row + 1]); // same block: from the cache
    expect(store.ranges).toEqual([]);
    expect(store.gets).toEqual([]);
  });

  it("reads just the row of a memcpyed chunk larger than the window", async () => {
    const C = 10000; // 80,000 bytes a chunk: more than the window
    const values = walk(2 * C + 500, 2);
    const inner = new MemoryStore();
    await (await createCarray(inner, "a", values, { dtype: "<f8", chunklen: C, cparams: { clevel: 0 } })).close();
    expect(layout((await inner.get("a/data/__0.blp"))!).flags & 2).toBe(2);
    const store = new CountingStore(inner);
    const a = await openCarray(store, "a");
    expect(await a.get(C + 10)).toBe(values[C + 10]);
    expect(store.ranges.map((r) => [r.offset, r.got])).toEqual([[0, WINDOW], [32 + 10 * 8, 8]]);
    store.reset();
    expect(await a.get(2 * C - 1)).toBe(values[2 * C - 1]);
    expect(store.ranges).toEqual([{ key: "a/data/__1.blp", offset: 32 + (C - 1) * 8, length: 8, got: 8 }]);
  });

  it("with the cache off, every get goes to the store again", async () => {
    const values = walk(1000, 3);
    const inner = new MemoryStore();
    await (await createCarray(inner, "a", values, { dtype: "<f8", chunklen: 400 })).close();
    const store = new CountingStore(inner, false);
    const a = await openCarray(store, "a", { cacheBytes: 0 });
    for (let k = 0; k < 3; k++) expect(await a.get(5)).toBe(values[5]);
    expect(store.gets).toEqual(["a/data/__0.blp", "a/data/__0.blp", "a/data/__0.blp"]);
    const cached = await openCarray(store, "a");
    store.reset();
    for (let k = 0; k < 3; k++) expect(await cached.get(5)).toBe(values[5]);
    expect(store.gets).toEqual(["a/data/__0.blp"]);
  });

  it("a truncated chunk file is TRUNCATED, naming the file", async () => {
    const values = walk(3 * 16384, 4);
    const inner = new MemoryStore();
    await (await createCarray(inner, "a", values, { dtype: "<f8", chunklen: 16384, cparams: { cname: "zstd", clevel: 1 } })).close();
    const file = (await inner.get("a/data/__0.blp"))!;
    await inner.put("a/data/__0.blp", file.subarray(0, file.length - 100));
    const a = await openCarray(inner, "a");
    const error = await a.get(16383).then(() => undefined, (e: unknown) => e);
    expect(error).toBeInstanceOf(BcolzError);
    expect([(error as BcolzError).code, (error as BcolzError).path]).toEqual(["TRUNCATED", "a/data/__0.blp"]);
  });
});

describe("take", () => {
  it("matches the model for any order, duplicates and negative indices", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 600 }),
        fc.integer({ min: 1, max: 70 }),
        fc.array(fc.integer({ min: -1_000_000, max: 1_000_000 }), { maxLength: 80 }),
        async (n, chunklen, raw) => {
          const values = new Int32Array(n).map((_, i) => i * 7 - 1000);
          const store = new MemoryStore();
          const a = await createCarray(store, "a", values, { dtype: "<i4", chunklen });
          await a.close();
          const indices = raw.map((x) => (((x % (2 * n)) + 2 * n) % (2 * n)) - n); // inside [-n, n)
          const got = Array.from((await a.take(indices)) as Int32Array);
          expect(got).toEqual(indices.map((i) => values[i < 0 ? i + n : i]));
        },
      ),
      { numRuns: 60 },
    );
  });

  it("gives each row's bytes for rows of 1, 2, 3, 4, 8 and 16 bytes, formats 1 and 2, in memory and on disk, call after call", async () => {
    // The model is readBytes (the sequential path); take gathers rows of whole 4-byte words or
    // byte by byte, from WebAssembly memory or a decoded copy, into input buffers a reader keeps
    // between calls (file stores): a second and third call on the same array must agree too.
    const dir = mkdtempSync(join(tmpdir(), "take-"));
    let made = 0;
    try {
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom("|u1", "<i2", "|S3", "<i4", "<f8", "<U4"),
          fc.integer({ min: 1, max: 400 }),
          fc.integer({ min: 1, max: 64 }),
          fc.constantFrom(1, 2),
          fc.boolean(),
          fc.array(fc.array(fc.nat(), { maxLength: 60 }), { minLength: 1, maxLength: 3 }),
          async (dtype, n, chunklen, formatVersion, onDisk, calls) => {
            const atom = { "|u1": 1, "<i2": 2, "|S3": 3, "<i4": 4, "<f8": 8, "<U4": 16 }[dtype];
            const text = (i: number): string => String.fromCharCode(97 + (i % 26), 97 + ((i >> 3) % 26), 99, 100).slice(0, dtype === "|S3" ? 3 : 4);
            const raw = new Uint8Array(n * atom).map((_, i) => (i * 151 + 7) & 255).buffer;
            const typed = { "|u1": () => new Uint8Array(raw), "<i2": () => new Int16Array(raw), "<i4": () => new Int32Array(raw), "<f8": () => new Float64Array(raw) };
            const data = dtype === "|S3" || dtype === "<U4" ? Array.from({ length: n }, (_, i) => text(i)) : typed[dtype]();
            const store = onDisk ? new FileSystemStore(join(dir, String(made++))) : new MemoryStore();
            const written = await createCarray(store, "a", data, { dtype, chunklen, formatVersion, ...(formatVersion === 2 ? { checksum: "crc32" } : {}) });
            await written.close();
            const a = await openCarray(store, "a", { cacheBytes: 0 });
            expect(a.length).toBe(n);
            const whole = await a.readBytes();
            for (const call of calls) {
              const indices = call.map((x) => x % n);
              const got = await a.takeBytes(indices);
              const want = new Uint8Array(indices.length * atom);
              indices.forEach((row, p) => want.set(whole.subarray(row * atom, (row + 1) * atom), p * atom));
              expect(got).toEqual(want);
            }
            await a.close();
          },
        ),
        { numRuns: 80, seed: 1627 },
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("reads and decodes each needed chunk once, whatever the number of indices in it", async () => {
    const inner = new MemoryStore();
    await (await createCarray(inner, "a", walk(5000, 5), { dtype: "<f8", chunklen: 500 })).close();
    const store = new CountingStore(inner, false);
    const a = await openCarray(store, "a", { cacheBytes: 0 });
    const indices = [4999, 10, 11, 10, -1, 2600, 12, 4998];
    await a.take(indices);
    expect([...store.gets].sort()).toEqual(["a/data/__0.blp", "a/data/__5.blp", "a/data/__9.blp"]);
  });

  it("refuses indices out of range and non-integers with the position", async () => {
    const a = await createCarray(new MemoryStore(), "a", new Int32Array(10), { dtype: "<i4" });
    await expect(a.take([0, 10])).rejects.toMatchObject({ code: "OUT_OF_RANGE", field: "indices[1]" });
    await expect(a.take([-11])).rejects.toMatchObject({ code: "OUT_OF_RANGE", field: "indices[0]" });
    await expect(a.take([1.5])).rejects.toMatchObject({ code: "INVALID_ARGUMENT", field: "indices[0]" });
    expect((await a.take([])).length).toBe(0);
    await a.close();
  });

  it("works on a ctable column open for writing, including rows in memory", async () => {
    const store = new MemoryStore();
    const t = await createCtable(store, "t", [{ name: "x", data: new Int32Array(25).map((_, i) => i), options: { dtype: "<i4", chunklen: 10 } }]);
    expect(Array.from((await t.column("x").take([24, -25, 13])) as Int32Array)).toEqual([24, 0, 13]);
    await t.close();
  });
});

describe("large results", () => {
  it("glibc's mapping for a rounded result is a whole number of 2 MiB pages, less than 2 MiB over the result", () => {
    // The model checked against glibc 2.36 (strace of Node's mmap calls): 80,000,000 bytes map 80,003,072.
    expect(glibcMappingBytes(80_000_000)).toBe(80_003_072);
    expect(glibcMappingBytes((2 << 20) * 20 - 33)).toBe((2 << 20) * 20);
    expect(glibcMappingBytes((2 << 20) * 20 - 23)).toBe((2 << 20) * 20 + 4096);
    fc.assert(
      fc.property(fc.integer({ min: ROUNDED_FROM_BYTES, max: 2 ** 31 - 1 }), (size) => {
        const mapped = glibcMappingBytes(resultBufferBytes(size));
        expect(mapped % (2 << 20)).toBe(0);
        expect(resultBufferBytes(size) - size).toBeLessThan(2 << 20);
        expect(resultBufferBytes(size) - size).toBeGreaterThanOrEqual(0);
        expect(resultBufferBytes(size) % 2).toBe(1);
      }),
      { seed: 2026, numRuns: 500 },
    );
    // Under the threshold, or where rounding would pass the caller's limit: exact.
    expect(resultBufferBytes(ROUNDED_FROM_BYTES - 1)).toBe(ROUNDED_FROM_BYTES - 1);
    expect(resultBufferBytes(ROUNDED_FROM_BYTES, ROUNDED_FROM_BYTES + 1000)).toBe(ROUNDED_FROM_BYTES);
    expect(resultBufferBytes(ROUNDED_FROM_BYTES, ROUNDED_FROM_BYTES + (2 << 20))).toBe(ROUNDED_FROM_BYTES + (2 << 20) - 33);
  });

  it("from 32 MiB on, are views of the start of a longer buffer with the same values; smaller ones fill theirs", async () => {
    const rows = ROUNDED_FROM_BYTES / 8;
    const values = Float64Array.from({ length: rows + 3 }, (_, i) => i * 0.5 - 7);
    for (const dtype of ["<f8", ">f8"]) {
      const a = await createCarray(new MemoryStore(), "", values, { dtype, chunklen: 1 << 16 });
      const whole = (await a.read()) as Float64Array;
      expect(whole.length).toBe(rows + 3);
      expect(Buffer.compare(Buffer.from(whole.buffer, whole.byteOffset, whole.byteLength), Buffer.from(values.buffer))).toBe(0);
      // Exactly 32 MiB is rounded; 8 bytes less is not.
      const exact = await a.readBytes(0, rows);
      expect(exact.byteOffset).toBe(0);
      expect(exact.buffer.byteLength).toBe(resultBufferBytes(exact.length));
      expect(new Uint8Array(exact.buffer, exact.length).every((b) => b === 0)).toBe(true);
      if (dtype === "<f8") expect(() => new Float64Array(exact.buffer)).toThrow(RangeError);
      const under = await a.readBytes(0, rows - 1);
      expect(under.buffer.byteLength).toBe(under.length);
      await a.close();
    }
    // A maxReadBytes between the result and its rounded size: an exact buffer.
    const store = new MemoryStore();
    await (await createCarray(store, "", values, { dtype: "<f8", chunklen: 1 << 16 })).close();
    const limited = await openCarray(store, "", { maxReadBytes: values.byteLength + 8 });
    const bytes = await limited.readBytes();
    expect(bytes.buffer.byteLength).toBe(values.byteLength);
    expect(Buffer.compare(Buffer.from(bytes), Buffer.from(values.buffer))).toBe(0);
  });
});

describe("readInto", () => {
  it("fills a caller's typed array with the same values as read, also for big-endian dtypes", async () => {
    const values = walk(2500, 6);
    for (const dtype of ["<f8", ">f8"]) {
      const a = await createCarray(new MemoryStore(), "a", values, { dtype, chunklen: 300 });
      await a.flush();
      const out = new Float64Array(1700);
      await a.readInto(out, 450, 2150);
      expect(Array.from(out)).toEqual(Array.from(values.subarray(450, 2150)));
      const whole = new Float64Array(2500);
      await a.readInto(whole);
      expect(Array.from(whole)).toEqual(Array.from(values));
      await a.close();
    }
  });

  it("gives typed errors for an out of the wrong class or size, and for dtypes without a typed array", async () => {
    const a = await createCarray(new MemoryStore(), "a", new Int32Array(100), { dtype: "<i4", chunklen: 30 });
    await expect(a.readInto(new Float64Array(10), 0, 10)).rejects.toMatchObject({ code: "INVALID_ARGUMENT", field: "out" });
    await expect(a.readInto(new Int32Array(9), 0, 10)).rejects.toMatchObject({ code: "INVALID_ARGUMENT", field: "out.length" });
    await expect(a.readInto(new Int32Array(11), 0, 10)).rejects.toMatchObject({ code: "INVALID_ARGUMENT", field: "out.length" });
    await expect(a.readInto(new Int32Array(10), 95, 105)).rejects.toMatchObject({ code: "OUT_OF_RANGE" });
    await a.close();
    const s = await createCarray(new MemoryStore(), "s", ["ab", "cd"], { dtype: "|S2" });
    await expect(s.readInto(new Uint8Array(4), 0, 2)).rejects.toMatchObject({ code: "INVALID_ARGUMENT", field: "dtype" });
    await s.close();
  });
});

describe("ctable reads into buffers and by index", () => {
  it("readColumnInto and takeRows give what readColumn and a model give", async () => {
    const store = new MemoryStore();
    const x = new Int32Array(57).map((_, i) => i * 3);
    const y = walk(57, 9);
    await (await createCtable(store, "t", [
      { name: "x", data: x, options: { dtype: "<i4", chunklen: 10 } },
      { name: "y", data: y, options: { dtype: "<f8", chunklen: 8 } },
    ])).close();
    const t = await openCtable(store, "t");
    const out = new Float64Array(20);
    await t.readColumnInto("y", out, 30, 50);
    expect(Array.from(out)).toEqual(Array.from(y.subarray(30, 50)));
    await expect(t.readColumnInto("x", new Float64Array(57))).rejects.toMatchObject({ code: "INVALID_ARGUMENT", field: "out" });
    const picked = await t.takeRows([56, -57, 13, 13]);
    expect(Array.from(picked["x"] as Int32Array)).toEqual([x[56], x[0], x[13], x[13]]);
    expect(Array.from(picked["y"] as Float64Array)).toEqual([y[56], y[0], y[13], y[13]]);
    expect(Object.keys(await t.takeRows([1], ["y"]))).toEqual(["y"]);
    await expect(t.takeRows([57])).rejects.toMatchObject({ code: "OUT_OF_RANGE" });
  });
});
