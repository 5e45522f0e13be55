import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { BcolzError, FormatError, UsageError } from "@fmt/errors";
import {
  adler32, blockLayout, chunkFlags, codecFormatCode, codecFormatFromCode, codecFormatOf, crc32,
  readBlpkV1Header, readBstarts, readChunkHeader, splitCount, writeBlpkV1Header, writeChunkHeader,
  BLOSC_MAX_BLOCKSIZE, BLOSC_MAX_BUFFERSIZE,
} from "./index.js";

const hexBytes = (s: string): Uint8Array => Uint8Array.from(s.replace(/\s+/g, "").match(/../g)!.map((h) => parseInt(h, 16)));
const text = (s: string): Uint8Array => new TextEncoder().encode(s);

function expectFormatError(fn: () => unknown, code: string, field: string): void {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(FormatError);
    expect((e as FormatError).code).toBe(code);
    expect((e as FormatError).field).toBe(field);
    return;
  }
  throw new Error(`expected FormatError ${code} ${field}, nothing was thrown`);
}

describe("checksums (hand-known values)", () => {
  it("adler32", () => {
    expect(adler32(text("abc"))).toBe(0x024d0127);
    expect(adler32(new Uint8Array(0))).toBe(1);
    expect(adler32(text("Wikipedia"))).toBe(0x11e60398);
    // 1 MiB of 0xFF exercises the deferred modulo: a = 1 + 255·n mod 65521, b = n + 255·n(n+1)/2 mod 65521.
    const n = 1 << 20;
    const a = (1 + 255 * n) % 65521;
    const b = Number((BigInt(n) + 255n * BigInt(n) * BigInt(n + 1) / 2n) % 65521n);
    expect(adler32(new Uint8Array(n).fill(255))).toBe(((b << 16) | a) >>> 0);
  });
  it("crc32", () => {
    expect(crc32(text("123456789"))).toBe(0xcbf43926);
    expect(crc32(new Uint8Array(0))).toBe(0);
    expect(crc32(text("The quick brown fox jumps over the lazy dog"))).toBe(0x414fa339);
  });
  it("continuation equals one-shot", () => {
    fc.assert(fc.property(fc.uint8Array({ maxLength: 20000 }), fc.nat(), (data, cut0) => {
      const cut = data.length === 0 ? 0 : cut0 % data.length;
      expect(adler32(data.subarray(cut), adler32(data.subarray(0, cut)))).toBe(adler32(data));
      expect(crc32(data.subarray(cut), crc32(data.subarray(0, cut)))).toBe(crc32(data));
    }));
  });
});

describe("blpk v1 header", () => {
  it("writes exactly what bcolz writes", () => {
    expect(writeBlpkV1Header()).toEqual(hexBytes("626C706B 01000000 01000000 00000000"));
    expect(writeBlpkV1Header(-1n)).toEqual(hexBytes("626C706B 01000000 FFFFFFFF FFFFFFFF"));
  });
  it("reads it back and tolerates reserved bytes", () => {
    expect(readBlpkV1Header(hexBytes("626C706B 01000000 01000000 00000000"))).toEqual({ version: 1, nchunks: 1n });
    // Reserved bytes are ignored and trailing bytes tolerated, but the chunk count must be 1.
    expect(readBlpkV1Header(hexBytes("626C706B 01ABCDEF 01000000 00000000 FFFF"))).toEqual({ version: 1, nchunks: 1n });
    expect(() => readBlpkV1Header(hexBytes("626C706B 01000000 05000000 00000000"))).toThrow(expect.objectContaining({ code: "BAD_HEADER", field: "blpk.nchunks" }));
  });
  it("rejects bad input with the right code and field", () => {
    expectFormatError(() => readBlpkV1Header(hexBytes("626C706B 01")), "TRUNCATED", "blpk.header");
    expectFormatError(() => readBlpkV1Header(hexBytes("626C706C 01000000 01000000 00000000")), "BAD_MAGIC", "blpk.magic");
    expectFormatError(() => readBlpkV1Header(hexBytes("626C706B 02000000 01000000 00000000")), "UNSUPPORTED_VERSION", "blpk.version");
    try {
      readBlpkV1Header(new Uint8Array(3), "data/__7.blp");
    } catch (e) {
      expect((e as FormatError).path).toBe("data/__7.blp");
    }
  });
  it("writes any i64 count, reads back only the count 1 that version 1 allows", () => {
    fc.assert(fc.property(fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }), (n) => {
      const bytes = writeBlpkV1Header(n);
      expect(new DataView(bytes.buffer).getBigInt64(8, true)).toBe(n);
      if (n === 1n) expect(readBlpkV1Header(bytes).nchunks).toBe(1n);
      else expect(() => readBlpkV1Header(bytes)).toThrow(expect.objectContaining({ code: "BAD_HEADER", field: "blpk.nchunks" }));
    }));
    expect(() => writeBlpkV1Header(2n ** 63n)).toThrow(UsageError);
  });
});

describe("chunk header", () => {
  it("example A (memcpyed) and B (empty) from format-facts 1.15", () => {
    const a = hexBytes("02011304 20000000 20000000 30000000").slice();
    const chunkA = new Uint8Array(48);
    chunkA.set(a);
    const h = readChunkHeader(chunkA);
    expect(h).toEqual({
      version: 2, versionlz: 1, flags: 0x13, typesize: 4, nbytes: 32, blocksize: 32, cbytes: 48,
      shuffle: 1, memcpyed: true, dontSplit: true, codec: "blosclz", codecCode: 0,
    });
    expect(blockLayout(h)).toEqual({ nblocks: 1, leftover: 0 });
    expect(readBstarts(chunkA, h)).toEqual(new Int32Array(0));
    const b = hexBytes("02011304 00000000 01000000 10000000");
    expect(readChunkHeader(b)).toMatchObject({ nbytes: 0, blocksize: 1, cbytes: 16, typesize: 4 });
    expect(blockLayout(readChunkHeader(b))).toEqual({ nblocks: 0, leftover: 0 });
  });
  it("example C header, bstarts and split rule", () => {
    const c = new Uint8Array(291);
    c.set(hexBytes("02010102 00020000 00020000 23010000 14000000"));
    const h = readChunkHeader(c);
    expect(h).toMatchObject({ shuffle: 1, memcpyed: false, dontSplit: false, codec: "blosclz", typesize: 2 });
    expect(Array.from(readBstarts(c, h))).toEqual([20]);
    expect(splitCount(h, 512, false)).toBe(2);
  });
  it("flags and codec codes (format-facts 1.2, 1.15)", () => {
    expect(chunkFlags({ shuffle: 1, memcpyed: true, dontSplit: true, codec: "blosclz" })).toBe(0x13);
    expect(chunkFlags({ shuffle: 1, memcpyed: true, dontSplit: true, codec: "lz4" })).toBe(0x33);
    expect(chunkFlags({ shuffle: 0, memcpyed: true, dontSplit: true, codec: "zstd" })).toBe(0x92);
    expect(chunkFlags({ shuffle: 2, memcpyed: false, dontSplit: false, codec: "lz4hc" })).toBe(0x24);
    expect(chunkFlags({ shuffle: 1, memcpyed: false, dontSplit: false, codec: "zlib" })).toBe(0x61);
    expect(chunkFlags({ shuffle: 0, memcpyed: false, dontSplit: true, codec: "snappy" })).toBe(0x50);
    expect([codecFormatCode("lz4hc"), codecFormatOf("lz4hc"), codecFormatFromCode(3), codecFormatFromCode(5)]).toEqual([1, "lz4", "zlib", undefined]);
    expect(readChunkHeader(hexBytes("02010502 00000000 01000000 10000000")).shuffle).toBe(1); // both bits: bit 0 wins
    expect(readChunkHeader(hexBytes("02010402 00000000 01000000 10000000")).shuffle).toBe(2);
  });
  it("split rule (format-facts 1.6)", () => {
    const h = { dontSplit: false, typesize: 4 };
    expect(splitCount(h, 512, false)).toBe(4);
    expect(splitCount(h, 511, false)).toBe(1); // 127 elements
    expect(splitCount(h, 512, true)).toBe(1); // leftover block
    expect(splitCount({ dontSplit: true, typesize: 4 }, 1 << 20, false)).toBe(1);
    expect(splitCount({ dontSplit: false, typesize: 16 }, 2048, false)).toBe(16);
    expect(splitCount({ dontSplit: false, typesize: 17 }, 1 << 20, false)).toBe(1);
    expect(splitCount({ dontSplit: false, typesize: 1 }, 1 << 20, false)).toBe(1);
  });
  it("block layout", () => {
    expect(blockLayout({ nbytes: 100, blocksize: 32 })).toEqual({ nblocks: 4, leftover: 4 });
    expect(blockLayout({ nbytes: 96, blocksize: 32 })).toEqual({ nblocks: 3, leftover: 0 });
    expect(blockLayout({ nbytes: 3, blocksize: 1 })).toEqual({ nblocks: 3, leftover: 0 });
  });

  const base = (patch: (b: Uint8Array, v: DataView) => void, length = 64): Uint8Array => {
    // valid non-memcpyed lz4 chunk: nbytes 100, blocksize 50, typesize 1, 2 blocks, cbytes 64
    const b = new Uint8Array(length);
    b.set(hexBytes("02013001 64000000 32000000 40000000 18000000 20000000"));
    const v = new DataView(b.buffer);
    patch(b, v);
    return b;
  };
  it("accepts the base chunk", () => {
    const c = base(() => {});
    const h = readChunkHeader(c);
    expect(Array.from(readBstarts(c, h))).toEqual([24, 32]);
  });
  it("every 1.13 header check, with code and field", () => {
    expectFormatError(() => readChunkHeader(new Uint8Array(15)), "TRUNCATED", "blosc.header");
    expectFormatError(() => readChunkHeader(base((b) => (b[0] = 3))), "UNSUPPORTED_VERSION", "blosc.version");
    expectFormatError(() => readChunkHeader(base((b) => (b[2] = 0x38))), "BAD_HEADER", "blosc.flags");
    expectFormatError(() => readChunkHeader(base((b) => (b[2] = 0xa0))), "UNKNOWN_CODEC", "blosc.flags");
    expectFormatError(() => readChunkHeader(base((b) => (b[1] = 2))), "UNSUPPORTED_VERSION", "blosc.versionlz");
    expectFormatError(() => readChunkHeader(base((b) => (b[3] = 0))), "BAD_HEADER", "blosc.typesize");
    expectFormatError(() => readChunkHeader(base((_, v) => v.setInt32(4, -5, true))), "BAD_HEADER", "blosc.nbytes");
    expectFormatError(() => readChunkHeader(base((_, v) => v.setInt32(4, BLOSC_MAX_BUFFERSIZE + 1, true))), "SIZE_LIMIT", "blosc.nbytes");
    expectFormatError(() => readChunkHeader(base((_, v) => v.setInt32(8, 0, true))), "BAD_HEADER", "blosc.blocksize");
    expectFormatError(() => readChunkHeader(base((_, v) => v.setInt32(8, 101, true))), "BAD_HEADER", "blosc.blocksize");
    expectFormatError(() => readChunkHeader(base((_, v) => { v.setInt32(4, BLOSC_MAX_BUFFERSIZE, true); v.setInt32(8, BLOSC_MAX_BLOCKSIZE + 1, true); })), "SIZE_LIMIT", "blosc.blocksize");
    expectFormatError(() => readChunkHeader(base((_, v) => v.setInt32(12, 15, true))), "BAD_HEADER", "blosc.cbytes");
    expectFormatError(() => readChunkHeader(base((_, v) => v.setInt32(12, 65, true))), "TRUNCATED", "blosc.cbytes");
    expectFormatError(() => readChunkHeader(base((_, v) => v.setInt32(12, 17, true))), "BAD_HEADER", "blosc.bstarts");
    expectFormatError(() => readChunkHeader(base((b) => (b[2] = 0x32))), "BAD_HEADER", "blosc.cbytes"); // memcpyed: 64 != 116
    // the same check catches the "2 GB in 100 bytes" lie when blocks are of an ordinary size
    expectFormatError(() => readChunkHeader(base((_, v) => { v.setInt32(4, 2 ** 31 - 20, true); v.setInt32(8, 65536, true); })), "BAD_HEADER", "blosc.bstarts");
  });
  it("bstarts outside [16+4n, cbytes-4] name the block", () => {
    expectFormatError(() => { const c = base((_, v) => v.setInt32(20, 61, true)); readBstarts(c, readChunkHeader(c)); }, "BAD_HEADER", "blosc.bstarts[1]");
    expectFormatError(() => { const c = base((_, v) => v.setInt32(16, 23, true)); readBstarts(c, readChunkHeader(c)); }, "BAD_HEADER", "blosc.bstarts[0]");
    const c = base((_, v) => { v.setInt32(16, 60, true); v.setInt32(20, 24, true); }); // unordered is fine
    expect(Array.from(readBstarts(c, readChunkHeader(c)))).toEqual([60, 24]);
  });
  it("paths are carried into errors", () => {
    try {
      readChunkHeader(new Uint8Array(4), "x/data/__3.blp");
      throw new Error("no error");
    } catch (e) {
      expect(e).toBeInstanceOf(FormatError);
      expect((e as FormatError).path).toBe("x/data/__3.blp");
    }
  });
  it("write/read round trip (property)", () => {
    const arb = fc.record({
      typesize: fc.integer({ min: 1, max: 255 }),
      nbytes: fc.integer({ min: 1, max: BLOSC_MAX_BUFFERSIZE }),
      blockFrac: fc.double({ min: 0, max: 1, noNaN: true }),
      shuffle: fc.constantFrom(0 as const, 1 as const, 2 as const),
      dontSplit: fc.boolean(),
      codec: fc.constantFrom("blosclz" as const, "lz4" as const, "lz4hc" as const, "snappy" as const, "zlib" as const, "zstd" as const),
    });
    fc.assert(fc.property(arb, (r) => {
      const blocksize = Math.max(1, Math.min(BLOSC_MAX_BLOCKSIZE, Math.floor(r.nbytes * r.blockFrac)));
      const flags = chunkFlags({ shuffle: r.shuffle, memcpyed: true, dontSplit: r.dontSplit, codec: r.codec });
      const fields = { version: 2, versionlz: 1, flags, typesize: r.typesize, nbytes: r.nbytes, blocksize, cbytes: r.nbytes + 16 };
      const bytes = writeChunkHeader(fields);
      // readChunkHeader needs the cbytes bytes to exist; a fake length-only view avoids a 2 GB allocation
      const h = readChunkHeader(new Proxy(bytes, { get: (t, p) => (p === "length" ? fields.cbytes : (Reflect.get(t, p) as unknown)) }));
      expect(h).toMatchObject({ ...fields, shuffle: r.shuffle, memcpyed: true, dontSplit: r.dontSplit, codec: codecFormatOf(r.codec) });
    }));
  });
  it("random header bytes: either a header or a FormatError (property)", () => {
    fc.assert(fc.property(fc.uint8Array({ minLength: 0, maxLength: 80 }), fc.boolean(), (bytes, forceV2) => {
      if (forceV2 && bytes.length > 0) bytes[0] = 2;
      try {
        const h = readChunkHeader(bytes);
        expect(h.cbytes).toBeLessThanOrEqual(bytes.length);
        const starts = readBstarts(bytes, h);
        for (const s of starts) expect(s + 4).toBeLessThanOrEqual(h.cbytes);
      } catch (e) {
        expect(e).toBeInstanceOf(BcolzError);
        expect(e).toBeInstanceOf(FormatError);
      }
    }), { numRuns: 5000 });
  });
  it("writeChunkHeader rejects out-of-range fields", () => {
    expect(() => writeChunkHeader({ version: 2, versionlz: 1, flags: 256, typesize: 1, nbytes: 0, blocksize: 1, cbytes: 16 })).toThrow(UsageError);
    expect(() => writeChunkHeader({ version: 2, versionlz: 1, flags: 0, typesize: 1, nbytes: 2 ** 31, blocksize: 1, cbytes: 16 })).toThrow(UsageError);
    expect(() => writeChunkHeader({ version: 2, versionlz: 1, flags: 0, typesize: 1, nbytes: 0, blocksize: 1, cbytes: 16 }, new Uint8Array(15))).toThrow(UsageError);
  });
});
