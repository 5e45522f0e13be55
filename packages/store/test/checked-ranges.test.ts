// Format-2 single-row reads through segment checksums (src/checked-ranges.ts): after a read has
// checked a chunk whole, later rows of it read only byte pieces, and only bytes whose segments
// have the checked sums are ever decoded.
import { crc32 as zlibCrc32, deflateSync } from "node:zlib";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { BcolzError } from "@fmt/errors";
import { MemoryStore } from "@fmt/fs-adapters";
import type { ByteRange, ReadableStore } from "@fmt/fs-adapters";
import { createCarray, openCarray } from "@fmt/store";
import { ChunkCache } from "../src/chunk-cache.js";
import { SEGMENT, chunkSumsOf, readCheckedRanges } from "../src/checked-ranges.js";
import { LayoutV2 } from "../src/layout-v2.js";

/** A store that records the ranges read from data files (no getRanges: one getRange per window). */
class RangeCountingStore implements ReadableStore {
  ranges: { key: string; offset: number; length: number }[] = [];
  wholeReads = 0;
  constructor(readonly inner: MemoryStore) {}
  async get(key: string): Promise<Uint8Array | undefined> {
    if (key.includes("/data/")) this.wholeReads++;
    return this.inner.get(key);
  }
  async getRange(key: string, range: ByteRange): Promise<Uint8Array | undefined> {
    const r = range as { offset: number; length: number };
    if (key.includes("/data/")) this.ranges.push({ key, offset: r.offset, length: r.length });
    return this.inner.getRange(key, range);
  }
  list(prefix: string): Promise<string[]> {
    return this.inner.list(prefix);
  }
}

/** Values near 10^6: after the byte shuffle, random low planes (stored raw) and compressible high ones. */
function near(n: number, seed: number): Float64Array {
  const out = new Float64Array(n);
  let s = seed;
  for (let i = 0; i < n; i++) {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0;
    out[i] = 1e6 + s / 2 ** 32;
  }
  return out;
}

const CHUNKLEN = 16384; // 128 KiB chunks: more than the 64 KiB cache below keeps
const OPTIONS = { dtype: "<f8", chunklen: CHUNKLEN, formatVersion: 2, checksum: "crc32", superchunksize: 8 } as const;

async function dataset(checksum: "crc32" | "adler32" = "crc32"): Promise<{ inner: MemoryStore; values: Float64Array }> {
  const values = near(10 * CHUNKLEN, 11);
  const inner = new MemoryStore();
  await (await createCarray(inner, "a", values, { ...OPTIONS, checksum })).close();
  return { inner, values };
}

/** zlib's own Adler-32 of `bytes`: the trailer of a zlib stream (RFC 1950), big-endian. */
function zlibAdler32(bytes: Uint8Array): number {
  const stream = deflateSync(bytes, { level: 0 });
  return new DataView(stream.buffer, stream.byteOffset + stream.length - 4, 4).getUint32(0, false);
}
const ORACLE = { adler32: zlibAdler32, crc32: (bytes: Uint8Array) => zlibCrc32(bytes) >>> 0 } as const;
const KINDS = ["adler32", "crc32"] as const;

describe("the segment checksum a format-2 file gets", () => {
  it("is Adler-32 where its chunks carry Adler-32, CRC-32 for CRC-32, a hash or none", () => {
    const layout = (checksumId: number) => new LayoutV2(new MemoryStore(), { path: "", chunklen: 2, atomSize: 8, length: () => 0 }, { superchunksize: 8, checksumId, spare: 10, typesize: 8, verify: true }, undefined);
    // Ids of spec/v2.md: 0 none, 1 adler32, 2 crc32, 3 md5 … 8 sha512.
    expect([0, 1, 2, 3, 6, 8].map((id) => layout(id).segmentSums)).toEqual(["crc32", "adler32", "crc32", "crc32", "crc32", "crc32"]);
  });
});

describe("chunkSumsOf", () => {
  it.each(KINDS)("remembers zlib's %s of every segment, the last one short", (kind) => {
    fc.assert(
      // size "max": fast-check's default size keeps arrays to a dozen bytes, inside one segment.
      fc.property(fc.uint8Array({ minLength: 1, maxLength: 5 * SEGMENT + 7, size: "max" }), (chunk) => {
        const known = chunkSumsOf(chunk, kind);
        expect(known.kind).toBe(kind);
        expect(known.cbytes).toBe(chunk.length);
        expect([...known.sums]).toEqual(Array.from({ length: Math.ceil(chunk.length / SEGMENT) }, (_, k) => ORACLE[kind](chunk.subarray(k * SEGMENT, (k + 1) * SEGMENT))));
      }),
      { endOnFailure: true },
    );
  });
});

describe("readCheckedRanges", () => {
  it.each(KINDS)("gives the pieces of the checked bytes, and refuses bytes that differ (%s)", async (kind) => {
    await fc.assert(
      fc.asyncProperty(
        // Chunks of up to five segments (fast-check's default size stays inside one).
        fc.uint8Array({ minLength: 1, maxLength: 5 * SEGMENT, size: "max" }),
        fc.array(fc.tuple(fc.nat(), fc.integer({ min: 1, max: 3000 })), { minLength: 1, maxLength: 6 }),
        fc.nat(),
        fc.nat(),
        async (chunk, raw, flipAt, other) => {
          const known = chunkSumsOf(chunk, kind);
          const pieces = raw.map(([o, l]) => {
            const offset = o % chunk.length;
            return { offset, length: Math.min(l, chunk.length - offset) };
          });
          const read = (stored: Uint8Array) => async (windows: readonly { offset: number; length: number }[]) => windows.map((w) => stored.slice(w.offset, w.offset + w.length));
          {
            const got = await readCheckedRanges(known, pieces, read(chunk));
            expect(got).not.toBe("differ");
            (got as Uint8Array[]).forEach((bytes, n) => expect([...bytes]).toEqual([...chunk.subarray(pieces[n]!.offset, pieces[n]!.offset + pieces[n]!.length)]));
            // One byte changed anywhere in what a window reads (its piece rounded out to whole
            // segments, the chunk's short tail included): refused.
            const w = pieces[flipAt % pieces.length]!;
            const start = Math.floor(w.offset / SEGMENT) * SEGMENT;
            const end = Math.min(chunk.length, Math.ceil((w.offset + w.length) / SEGMENT) * SEGMENT);
            const at = start + (other % (end - start));
            const changed = chunk.slice();
            changed[at]! ^= 1 + (flipAt % 255);
            expect(await readCheckedRanges(known, pieces, read(changed))).toBe("differ");
            // Two different bytes of one segment swapped: refused too.
            const segment = Math.floor(at / SEGMENT) * SEGMENT;
            const partner = segment + ((at - segment + 1 + (flipAt % SEGMENT)) % Math.min(SEGMENT, chunk.length - segment));
            if (chunk[partner] !== chunk[at]) {
              const swapped = chunk.slice();
              swapped[at] = chunk[partner]!;
              swapped[partner] = chunk[at]!;
              expect(await readCheckedRanges(known, pieces, read(swapped))).toBe("differ");
            }
          }
        },
      ),
      // A failure is reported as found (seed and path replay it): shrinking chunks of several
      // kilobytes through an async property took minutes.
      { endOnFailure: true },
    );
  });

  it("refuses a short read, passes on a missing one, and leaves pieces outside the chunk alone", async () => {
    const chunk = new Uint8Array(3 * SEGMENT + 5).map((_, i) => i * 31);
    const known = chunkSumsOf(chunk, "adler32");
    const pieces = [{ offset: SEGMENT + 3, length: 10 }];
    expect(await readCheckedRanges(known, pieces, async (ws) => ws.map((w) => chunk.slice(w.offset, w.offset + w.length - 1)))).toBe("differ");
    expect(await readCheckedRanges(known, pieces, async () => undefined)).toBeUndefined();
    let asked = false;
    const outside = await readCheckedRanges(known, [{ offset: chunk.length - 2, length: 3 }], async () => {
      asked = true;
      return [];
    });
    expect(outside).toBeUndefined();
    expect(asked).toBe(false);
  });
});

describe("ChunkCache segment checksums", () => {
  it("are kept in a quarter of the budget, the oldest forgotten first, and dropped with their chunk", () => {
    const cache = new ChunkCache(4096); // 1,024 bytes of checksums
    const sums = (n: number) => ({ cbytes: n * SEGMENT, kind: "crc32" as const, sums: new Uint32Array(n) }); // 4n + 128 bytes
    cache.putChunkSums(0, sums(100)); // 528
    cache.putChunkSums(1, sums(100)); // 1,056 in all: chunk 0 goes
    expect(cache.chunkSums(0)).toBeUndefined();
    expect(cache.chunkSums(1)).toBeDefined();
    cache.putChunkSums(2, sums(300)); // 1,328 alone: not kept
    expect(cache.chunkSums(2)).toBeUndefined();
    expect(cache.chunkSums(1)).toBeDefined();
    cache.invalidate(1);
    expect(cache.chunkSums(1)).toBeUndefined();
    cache.putChunkSums(3, sums(10));
    cache.putChunkSums(5, sums(10));
    cache.invalidateFrom(4);
    expect(cache.chunkSums(3)).toBeDefined();
    expect(cache.chunkSums(5)).toBeUndefined();
    expect(new ChunkCache(0).chunkSums(0)).toBeUndefined();
    const off = new ChunkCache(0);
    off.putChunkSums(0, sums(1));
    expect(off.chunkSums(0)).toBeUndefined();
  });
});

describe("format 2: single rows of a checked chunk", () => {
  it.each(KINDS)("read a few segments instead of the chunk, and give the stored values (%s file)", async (checksum) => {
    const { inner, values } = await dataset(checksum);
    const store = new RangeCountingStore(inner);
    const a = await openCarray(store, "a", { cacheBytes: 64 * 1024 });
    const k = 3;
    expect(await a.get(k * CHUNKLEN + 5)).toBe(values[k * CHUNKLEN + 5]); // the chunk, checked whole
    const whole = store.ranges.at(-1)!;
    expect(whole.length).toBeGreaterThan(32 * 1024);
    store.ranges = [];
    const row = k * CHUNKLEN + 700; // early in the chunk: short prefixes of the compressed planes
    expect(await a.get(row)).toBe(values[row]);
    expect(store.ranges.length).toBeGreaterThan(0);
    const read = store.ranges.reduce((sum, r) => sum + r.length, 0);
    expect(read).toBeLessThan(whole.length / 2);
    for (const r of store.ranges) {
      expect(r.key).toBe("a/data/__1__.bin");
      expect(r.offset).toBeGreaterThanOrEqual(whole.offset);
      expect(r.offset + r.length).toBeLessThanOrEqual(whole.offset + whole.length);
      expect((r.offset - whole.offset) % SEGMENT).toBe(0); // whole segments
    }
    // Random rows all over the array: every value as stored, whichever way it was read.
    let s = 7;
    for (let n = 0; n < 400; n++) {
      s = (Math.imul(s, 1103515245) + 12345) >>> 0;
      const i = s % values.length;
      expect(await a.get(i)).toBe(values[i]);
    }
  });

  it.each(KINDS)("never decode bytes changed after the check: the chunk is checked whole again (%s file)", async (checksum) => {
    const { inner, values } = await dataset(checksum);
    const store = new RangeCountingStore(inner);
    const a = await openCarray(store, "a", { cacheBytes: 64 * 1024 });
    const row = 9000;
    expect(await a.get(5)).toBe(values[5]);
    store.ranges = [];
    expect(await a.get(row)).toBe(values[row]); // pieces of chunk 0
    const pieces = store.ranges.slice();
    expect(pieces.length).toBeGreaterThan(0);
    // Rows of four other chunks, each read twice: chunk 0 is no longer "read a moment ago".
    for (let c = 1; c <= 4; c++) {
      expect(await a.get(c * CHUNKLEN + 1)).toBe(values[c * CHUNKLEN + 1]);
      expect(await a.get(c * CHUNKLEN + 9001)).toBe(values[c * CHUNKLEN + 9001]);
    }
    // Bit rot inside the first piece the row reads.
    const file = (await inner.get("a/data/__1__.bin"))!.slice();
    file[pieces[0]!.offset + Math.min(3, pieces[0]!.length - 1)]! ^= 0x10;
    await inner.put("a/data/__1__.bin", file);
    store.ranges = [];
    const error = await a.get(row).then(() => undefined, (e: unknown) => e);
    expect(error).toBeInstanceOf(BcolzError);
    expect((error as BcolzError).code).toBe("CHECKSUM_MISMATCH");
    expect((error as BcolzError).path).toBe("a/data/__1__.bin");
    // The pieces were read first and refused; the refusal came from the whole chunk, read after.
    expect(store.ranges.length).toBeGreaterThan(1);
    expect(store.ranges[0]!.length).toBeLessThan(32 * 1024);
    expect(store.ranges.at(-1)!.length).toBeGreaterThan(32 * 1024);
  });

  it("are read whole by a handle that writes, with the values it wrote", async () => {
    const { inner, values } = await dataset();
    const ranges: number[] = [];
    // The same store, with its data range reads noted (a Proxy keeps every other member as is).
    const store = new Proxy(inner, {
      get(target, name) {
        if (name === "getRange") {
          return (key: string, range: ByteRange) => {
            if (key.includes("/data/")) ranges.push((range as { length: number }).length);
            return target.getRange(key, range);
          };
        }
        const value: unknown = Reflect.get(target, name, target);
        return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    });
    const a = await openCarray(store, "a", { mode: "a", cacheBytes: 64 * 1024 });
    await a.append(near(CHUNKLEN, 3));
    await a.set(2 * CHUNKLEN + 100, 0.5);
    ranges.length = 0;
    for (const i of [5, 9000, 2 * CHUNKLEN + 100, 2 * CHUNKLEN + 7, 9001, 2 * CHUNKLEN + 100, 7 * CHUNKLEN + 3, 9002]) {
      expect(await a.get(i)).toBe(i === 2 * CHUNKLEN + 100 ? 0.5 : values[i]);
    }
    expect(ranges.filter((length) => length <= 32 * 1024)).toEqual([]); // whole chunks only
    await a.close();
  });

  it("follow a chunk another handle rewrote: new values, never its old stream layout", async () => {
    const { inner, values } = await dataset();
    const store = new RangeCountingStore(inner);
    const r = await openCarray(store, "a", { cacheBytes: 64 * 1024 });
    const others = async (): Promise<void> => {
      for (let c = 1; c <= 4; c++) {
        await r.get(c * CHUNKLEN + 1);
        await r.get(c * CHUNKLEN + 9001);
      }
    };
    expect(await r.get(700)).toBe(values[700]);
    await others();
    expect(await r.get(701)).toBe(values[701]); // pieces of chunk 0
    // Another handle rewrites most of chunk 0 with values that compress worse: it grows.
    const before = (await inner.get("a/data/__1__.bin"))!.length;
    const w = await openCarray(inner, "a", { mode: "a" });
    const n = 12_000;
    const fresh = near(n, 99).map((x) => 1e6 + (x - 1e6) * 1.5);
    await w.set(Array.from({ length: n }, (_, i) => i), fresh);
    await w.close();
    void before;
    values.set(fresh);
    for (let i = 0; i < CHUNKLEN; i += 389) {
      await others();
      expect(await r.get(i)).toBe(values[i]);
    }
  });

  it("learnt again after their checksums were forgotten for room, from the chunk as it is now", async () => {
    const { inner, values } = await dataset();
    // Room for the segment checksums of one chunk at a time; stream layouts are kept apart.
    const r = await openCarray(inner, "a", { cacheBytes: 1536 });
    expect(await r.get(700)).toBe(values[700]); // chunk 0 checked whole: checksums and streams
    expect(await r.get(CHUNKLEN + 1)).toBe(values[CHUNKLEN + 1]); // chunk 1's checksums push chunk 0's out
    const w = await openCarray(inner, "a", { mode: "a" });
    const fresh = near(12_000, 99).map((x) => 1e6 + (x - 1e6) * 1.5);
    await w.set(Array.from({ length: fresh.length }, (_, i) => i), fresh);
    await w.close();
    values.set(fresh);
    // Chunk 0 is read and checked whole again (no checksums); the rows after that come from pieces.
    for (let i = 701; i < CHUNKLEN; i += 211) expect(await r.get(i)).toBe(values[i]);
  });

  it("pair checksums and stream layouts from one read, whichever version of the chunk it saw", async () => {
    // 1 MiB chunks at clevel 1: several Blosc blocks per chunk, so a row in a block whose streams
    // are not known yet reads the chunk whole even while its checksums are kept.
    const chunklen = 131_072;
    const values = near(5 * chunklen, 11);
    const original = values.slice();
    const inner = new MemoryStore();
    const options = { dtype: "<f8", chunklen, formatVersion: 2, checksum: "crc32", superchunksize: 8, cparams: { clevel: 1, shuffle: 1, cname: "blosclz" } } as const;
    await (await createCarray(inner, "a", values, options)).close();
    const r = await openCarray(inner, "a", { cacheBytes: 64 * 1024 });
    const others = async (): Promise<void> => {
      for (let c = 1; c <= 4; c++) {
        await r.get(c * chunklen + 1);
        await r.get(c * chunklen + 9001);
      }
    };
    const rewrite = async (rows: Float64Array): Promise<void> => {
      const w = await openCarray(inner, "a", { mode: "a" });
      await w.set(Array.from({ length: rows.length }, (_, i) => i), rows);
      await w.close();
    };
    expect(await r.get(700)).toBe(values[700]); // version 1 checked: its checksums and block 0's streams
    const fresh = near(12_000, 99).map((x) => 1e6 + Math.round((x - 1e6) * 16) / 16);
    await rewrite(fresh); // version 2
    values.set(fresh);
    await others();
    expect(await r.get(130_000)).toBe(values[130_000]); // the last block: version 2 read and checked whole
    await rewrite(original.subarray(0, 12_000)); // version 1's bytes again: they match its checksums
    values.set(original.subarray(0, 12_000));
    await others();
    for (const i of [129_999, 129_998, 700, 701]) expect(await r.get(i)).toBe(values[i]);
  });

  it("are not used without checked whole reads or without a cache", async () => {
    for (const [options, openOptions] of [
      [OPTIONS, { cacheBytes: 0 }],
      [OPTIONS, { cacheBytes: 64 * 1024, verifyChecksums: false }],
      [{ ...OPTIONS, checksum: "none" }, { cacheBytes: 64 * 1024 }],
    ] as const) {
      const values = near(6 * CHUNKLEN, 5);
      const inner = new MemoryStore();
      await (await createCarray(inner, "a", values, options)).close();
      const store = new RangeCountingStore(inner);
      const a = await openCarray(store, "a", openOptions);
      for (const i of [5, CHUNKLEN + 3, 2 * CHUNKLEN + 4, 3 * CHUNKLEN + 5, 4 * CHUNKLEN + 6, 700, 701, 5 * CHUNKLEN + 7]) expect(await a.get(i)).toBe(values[i]);
      // Only the superchunk's index (at offset 0) and whole slots are read.
      expect(store.ranges.filter((r) => r.offset > 0 && r.length <= 32 * 1024)).toEqual([]);
    }
  });
});
