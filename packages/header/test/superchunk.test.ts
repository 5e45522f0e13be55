import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { FormatError, UsageError } from "@fmt/errors";
import {
  buildSuperchunk, checksumKind, checksumKindByName, computeChunkChecksum, chunkDataStart, readChunkByRanges, readOffsets,
  readSuperchunkChunk, readSuperchunkHeader, readSuperchunkMetadataText, slotCapacities, sniffBlpkVersion, spareRoom,
  verifyChunkChecksum, verifySuperchunk, walkChunkOffsets, writeChunkHeader, writeOffsets, writeSuperchunkHeader, CHECKSUM_KINDS,
  type ByteSpan, type SuperchunkHeader,
} from "../src/index.js";

const hexBytes = (s: string): Uint8Array => Uint8Array.from(s.replace(/\s+/g, "").match(/../g)!.map((h) => parseInt(h, 16)));
const text = (s: string): Uint8Array => new TextEncoder().encode(s);

function failure(fn: () => unknown): { code: string; field: string | undefined; error: FormatError } {
  try {
    fn();
  } catch (e) {
    if (e instanceof FormatError) return { code: e.code, field: e.field, error: e };
    throw e;
  }
  throw new Error("expected a FormatError, nothing was thrown");
}

/** A memcpyed Blosc chunk (flags 0x12: memcpyed, dont-split, blosclz) around `payload`. */
function memcpyChunk(payload: Uint8Array, typesize = 1): Uint8Array {
  const out = new Uint8Array(16 + payload.length);
  writeChunkHeader({ version: 2, versionlz: 1, flags: 0x12, typesize, nbytes: payload.length, blocksize: Math.max(1, payload.length), cbytes: 16 + payload.length }, out);
  out.set(payload, 16);
  return out;
}

// Header of spec/v2.md §8.1, written out by hand from its field table.
const EXAMPLE_HEADER = "62 6C 70 6B 02 03 01 04 08 00 00 00 04 00 00 00 02 00 00 00 00 00 00 00 28 00 00 00 00 00 00 00";

function withByte(hex: string, at: number, value: number): Uint8Array {
  const b = hexBytes(hex);
  b[at] = value;
  return b;
}
function withI32(hex: string, at: number, value: number): Uint8Array {
  const b = hexBytes(hex);
  new DataView(b.buffer).setInt32(at, value, true);
  return b;
}
function withI64(hex: string, at: number, value: bigint): Uint8Array {
  const b = hexBytes(hex);
  new DataView(b.buffer).setBigInt64(at, value, true);
  return b;
}

describe("superchunk header: reader rules of spec/v2.md §4.3, in order", () => {
  it("reads the example header", () => {
    expect(readSuperchunkHeader(hexBytes(EXAMPLE_HEADER))).toMatchObject({ checksumId: 1, chunkSize: 8, lastChunk: 4, nchunks: 2, metaSize: 40 });
  });
  it.each([
    ["shorter than 16 bytes", hexBytes(EXAMPLE_HEADER).subarray(0, 15), "TRUNCATED", "blpk.header"],
    ["bad magic", withByte(EXAMPLE_HEADER, 0, 0x63), "BAD_MAGIC", "blpk.magic"],
    ["version 1", withByte(EXAMPLE_HEADER, 4, 1), "UNSUPPORTED_VERSION", "blpk.version"],
    ["version 3", withByte(EXAMPLE_HEADER, 4, 3), "UNSUPPORTED_VERSION", "blpk.version"],
    ["version 9", withByte(EXAMPLE_HEADER, 4, 9), "UNSUPPORTED_VERSION", "blpk.version"],
    ["shorter than 32 bytes", hexBytes(EXAMPLE_HEADER).subarray(0, 31), "TRUNCATED", "blpk.header"],
    ["option bit 2", withByte(EXAMPLE_HEADER, 5, 0x07), "BAD_HEADER", "blpk.options"],
    ["checksum id 9", withByte(EXAMPLE_HEADER, 6, 9), "BAD_HEADER", "blpk.checksum"],
    ["chunk-size 0", withI32(EXAMPLE_HEADER, 8, 0), "BAD_HEADER", "blpk.chunk_size"],
    ["chunk-size -2", withI32(EXAMPLE_HEADER, 8, -2), "BAD_HEADER", "blpk.chunk_size"],
    ["chunk-size above the Blosc limit", withI32(EXAMPLE_HEADER, 8, 2147483632), "SIZE_LIMIT", "blpk.chunk_size"],
    ["nchunks -2", withI64(EXAMPLE_HEADER, 16, -2n), "BAD_HEADER", "blpk.nchunks"],
    ["nchunks 2^53", withI64(EXAMPLE_HEADER, 16, 2n ** 53n), "SIZE_LIMIT", "blpk.nchunks"],
    ["nchunks -1 with offsets", withI64(EXAMPLE_HEADER, 16, -1n), "BAD_HEADER", "blpk.nchunks"],
    ["last-chunk -2", withI32(EXAMPLE_HEADER, 12, -2), "BAD_HEADER", "blpk.last_chunk"],
    ["last-chunk above chunk-size", withI32(EXAMPLE_HEADER, 12, 9), "BAD_HEADER", "blpk.last_chunk"],
    ["meta-size -1", withI32(EXAMPLE_HEADER, 24, -1), "BAD_HEADER", "blpk.meta_size"],
    ["meta-size 1 with metadata", withI32(EXAMPLE_HEADER, 24, 1), "BAD_HEADER", "blpk.meta_size"],
    ["meta-size without metadata bit", withByte(EXAMPLE_HEADER, 5, 0x01), "BAD_HEADER", "blpk.meta_size"],
    ["reserved byte 31", withByte(EXAMPLE_HEADER, 31, 1), "BAD_HEADER", "blpk.reserved"],
  ])("%s → %s %s", (_name, bytes, code, field) => {
    expect(failure(() => readSuperchunkHeader(bytes, "data/__1__.bin"))).toMatchObject({ code, field });
    expect(failure(() => readSuperchunkHeader(bytes, "data/__1__.bin")).error.path).toBe("data/__1__.bin");
  });
  it("nchunks 0 needs last-chunk 0 or -1", () => {
    const b = withI64(EXAMPLE_HEADER, 16, 0n);
    expect(failure(() => readSuperchunkHeader(b))).toMatchObject({ code: "BAD_HEADER", field: "blpk.last_chunk" });
    new DataView(b.buffer).setInt32(12, 0, true);
    expect(readSuperchunkHeader(b).nchunks).toBe(0);
  });
  it("stand-alone files may say -1 (unknown) for sizes and, without offsets, for nchunks", () => {
    let b = withByte(EXAMPLE_HEADER, 5, 0x00);
    new DataView(b.buffer).setInt32(24, 0, true);
    b = Uint8Array.from(b);
    const view = new DataView(b.buffer);
    view.setInt32(8, -1, true);
    view.setInt32(12, -1, true);
    view.setBigInt64(16, -1n, true);
    expect(readSuperchunkHeader(b)).toMatchObject({ chunkSize: -1, lastChunk: -1, nchunks: -1, hasOffsets: false, hasMetadata: false });
  });
  it("sniffBlpkVersion reports 1, 2, 3 and refuses the rest", () => {
    expect(sniffBlpkVersion(withByte(EXAMPLE_HEADER, 4, 1))).toBe(1);
    expect(sniffBlpkVersion(hexBytes(EXAMPLE_HEADER))).toBe(2);
    expect(sniffBlpkVersion(withByte(EXAMPLE_HEADER, 4, 3))).toBe(3);
    expect(failure(() => sniffBlpkVersion(withByte(EXAMPLE_HEADER, 4, 0)))).toMatchObject({ code: "UNSUPPORTED_VERSION", field: "blpk.version" });
  });
  it("writeSuperchunkHeader writes the example bytes and refuses what the reader would refuse", () => {
    expect(writeSuperchunkHeader({ hasOffsets: true, hasMetadata: true, checksumId: 1, typesize: 4, chunkSize: 8, lastChunk: 4, nchunks: 2, metaSize: 40 })).toEqual(hexBytes(EXAMPLE_HEADER));
    const ok = { hasOffsets: true, hasMetadata: true, checksumId: 1, typesize: 4, chunkSize: 8, lastChunk: 4, nchunks: 2, metaSize: 40 };
    for (const bad of [{ checksumId: 9 }, { checksumId: 265 }, { typesize: 256 }, { chunkSize: 0 }, { lastChunk: 9 }, { nchunks: -1 }, { metaSize: 0 }, { chunkSize: 2 ** 31 }]) {
      expect(() => writeSuperchunkHeader({ ...ok, ...bad })).toThrow(UsageError);
    }
  });
});

describe("checksums (spec/v2.md §6)", () => {
  it("ids, names and sizes are bloscpack's", () => {
    expect(CHECKSUM_KINDS.map((k) => [k.id, k.name, k.size])).toEqual([
      [0, "none", 0], [1, "adler32", 4], [2, "crc32", 4], [3, "md5", 16], [4, "sha1", 20], [5, "sha224", 28], [6, "sha256", 32], [7, "sha384", 48], [8, "sha512", 64],
    ]);
    expect(checksumKindByName("sha384").id).toBe(7);
    expect(() => checksumKind(9)).toThrow(UsageError);
    expect(() => checksumKindByName("xxhash")).toThrow(UsageError);
  });
  it("known values: adler32/crc32 little-endian, hashes as raw digests", () => {
    const abc = text("abc");
    expect([...computeChunkChecksum(0, abc)]).toEqual([]);
    expect(computeChunkChecksum(1, abc)).toEqual(hexBytes("27 01 4D 02"));
    expect(computeChunkChecksum(1, new Uint8Array(0))).toEqual(hexBytes("01 00 00 00"));
    expect(computeChunkChecksum(2, text("123456789"))).toEqual(hexBytes("26 39 F4 CB"));
    // Published test vectors (RFC 1321, FIPS 180 examples) for "abc".
    expect(computeChunkChecksum(3, abc)).toEqual(hexBytes("900150983cd24fb0d6963f7d28e17f72"));
    expect(computeChunkChecksum(4, abc)).toEqual(hexBytes("a9993e364706816aba3e25717850c26c9cd0d89d"));
    expect(computeChunkChecksum(5, abc)).toEqual(hexBytes("23097d223405d8228642a477bda255b32aadbce4bda0b3f7e36c9da7"));
    expect(computeChunkChecksum(6, abc)).toEqual(hexBytes("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"));
    expect(computeChunkChecksum(7, abc)).toEqual(hexBytes("cb00753f45a35e8bb5a03d699ac65007272c32ab0eded1631a8b605a43ff5bed8086072ba1e7cc2358baeca134c825a7"));
    expect(computeChunkChecksum(8, abc)).toEqual(hexBytes("ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f"));
  });
  it("a mismatch names the file, the chunk index and both values", () => {
    const f = failure(() => verifyChunkChecksum(1, text("abc"), hexBytes("27 01 4D 03"), { path: "data/__2__.bin", index: 5 }));
    expect(f).toMatchObject({ code: "CHECKSUM_MISMATCH", field: "chunk[5].checksum" });
    expect(f.error.path).toBe("data/__2__.bin");
    expect(f.error.expected).toBe("27014d03");
    expect(f.error.actual).toBe("27014d02");
  });
});

describe("offsets, slots, spare room", () => {
  it("writeOffsets pads with -1 and readOffsets ignores the free entries whatever they hold", () => {
    const table = writeOffsets([104, 132], 4);
    expect(table).toEqual(hexBytes("68 00 00 00 00 00 00 00 84 00 00 00 00 00 00 00" + " FF".repeat(16)));
    const file = buildSuperchunk({ chunks: [memcpyChunk(text("ab")), memcpyChunk(text("c"))], checksumId: 1, typesize: 1, chunkSize: 2, metadata: '{"capacity": 4}', capacity: 4 });
    const h = readSuperchunkHeader(file);
    const start = chunkDataStart(h, 4) - 32;
    new DataView(file.buffer).setBigInt64(start + 16, 12345n, true); // a stale entry left by an interrupted append
    expect(readOffsets(file, h, { capacity: 4, fileLength: file.length })).toEqual([chunkDataStart(h, 4), chunkDataStart(h, 4) + 18 + 4]);
  });
  it("live entries out of range are BAD_HEADER offsets[i]; a short table is TRUNCATED", () => {
    const file = buildSuperchunk({ chunks: [memcpyChunk(text("ab")), memcpyChunk(text("c"))], checksumId: 0, typesize: 1, chunkSize: 2, metadata: '{"capacity": 2}', capacity: 2 });
    const h = readSuperchunkHeader(file);
    const at = 32 + h.metaSize;
    for (const bad of [-1n, BigInt(at + 15), BigInt(file.length - 15)]) {
      const copy = file.slice();
      new DataView(copy.buffer).setBigInt64(at + 8, bad, true);
      expect(failure(() => readOffsets(copy, h, { capacity: 2, fileLength: copy.length }))).toMatchObject({ code: "BAD_HEADER", field: "offsets[1]" });
    }
    expect(failure(() => readOffsets(file.subarray(0, at + 12), h, { capacity: 2 }))).toMatchObject({ code: "TRUNCATED", field: "offsets" });
    expect(failure(() => readOffsets(file, h, { capacity: 1 }))).toMatchObject({ code: "BAD_METADATA", field: "superchunk.meta/capacity" });
  });
  it("slot capacity runs to the next higher live offset, whatever the table order", () => {
    expect(slotCapacities([100, 150, 300], 400)).toEqual([50, 150, 100]);
    expect(slotCapacities([300, 100, 150], 400)).toEqual([100, 50, 150]);
  });
  it("spare room: a percentage of cbytes capped at the largest possible growth", () => {
    expect(spareRoom(1000, 65536, 10)).toBe(100);
    expect(spareRoom(1001, 65536, 10)).toBe(101); // ceil
    expect(spareRoom(65552, 65536, 10)).toBe(0); // an incompressible full chunk cannot grow
    expect(spareRoom(20, 8, 100)).toBe(4);
    expect(spareRoom(500, 65536, 0)).toBe(0);
    expect(() => spareRoom(10, 10, 101)).toThrow(UsageError);
  });
  it("readSuperchunkChunk enforces the chunk-size rule and the index range", () => {
    const file = buildSuperchunk({ chunks: [memcpyChunk(text("ab")), memcpyChunk(text("c"))], checksumId: 2, typesize: 1, chunkSize: 2, metadata: '{"capacity": 2}', capacity: 2 });
    const h = readSuperchunkHeader(file);
    const [o0, o1] = readOffsets(file, h, { capacity: 2 }) as [number, number];
    // Chunk 1 read as if it were not the last: it must then hold exactly chunk-size bytes.
    expect(failure(() => readSuperchunkChunk(file.subarray(o1), { ...h, nchunks: 3 }, 1))).toMatchObject({ code: "BAD_HEADER", field: "chunk[1].nbytes" });
    expect(failure(() => readSuperchunkChunk(file.subarray(o0), { ...h, chunkSize: 1 }, 1))).toMatchObject({ code: "BAD_HEADER", field: "chunk[1].nbytes" });
    expect(() => readSuperchunkChunk(file.subarray(o0), h, 2)).toThrow(UsageError);
    expect(failure(() => readSuperchunkChunk(file.subarray(o1, file.length - 1), h, 1))).toMatchObject({ code: "TRUNCATED", field: "chunk[1].checksum" });
  });
  it("metadata text must be UTF-8 and present", () => {
    const file = buildSuperchunk({ chunks: [memcpyChunk(text("ab"))], checksumId: 0, typesize: 1, chunkSize: 2, metadata: '{"n": "\u00e9"}' });
    const h = readSuperchunkHeader(file);
    expect(readSuperchunkMetadataText(file, h).trimEnd()).toBe('{"n": "\u00e9"}');
    expect(failure(() => readSuperchunkMetadataText(file.subarray(0, 34), h))).toMatchObject({ code: "TRUNCATED", field: "superchunk.meta" });
    const broken = file.slice();
    broken[40] = 0xff;
    expect(failure(() => readSuperchunkMetadataText(broken, h))).toMatchObject({ code: "BAD_JSON", field: "superchunk.meta" });
  });
  it("a relocated chunk is read through its new offset and the old slot becomes dead space", () => {
    const c0 = memcpyChunk(text("abcd")), c1 = memcpyChunk(text("efgh")), c0b = memcpyChunk(text("WXYZ"));
    const file = buildSuperchunk({ chunks: [c0, c1], checksumId: 1, typesize: 1, chunkSize: 4, metadata: '{"capacity": 2}', capacity: 2 });
    const h = readSuperchunkHeader(file);
    const grown = new Uint8Array(file.length + c0b.length + 4);
    grown.set(file);
    grown.set(c0b, file.length);
    grown.set(computeChunkChecksum(1, c0b), file.length + c0b.length);
    new DataView(grown.buffer).setBigInt64(32 + h.metaSize, BigInt(file.length), true);
    const offsets = readOffsets(grown, h, { capacity: 2, fileLength: grown.length });
    expect(offsets[0]).toBe(file.length);
    expect(readSuperchunkChunk(grown.subarray(offsets[0]), h, 0).chunk).toEqual(c0b);
    expect(readSuperchunkChunk(grown.subarray(offsets[1]), h, 1).chunk).toEqual(c1);
    // Chunk 1's slot now runs up to the relocated chunk 0 at the old end of the file.
    expect(slotCapacities(offsets, grown.length)).toEqual([24, file.length - offsets[1]!]);
  });
});

const chunkSetArb = fc
  .record({
    chunkSize: fc.integer({ min: 1, max: 64 }),
    count: fc.integer({ min: 0, max: 6 }),
    checksumId: fc.integer({ min: 0, max: 8 }),
    offsets: fc.boolean(),
    metadata: fc.option(fc.dictionary(fc.string({ maxLength: 6 }), fc.integer(), { maxKeys: 3 }), { nil: undefined }),
    extraCapacity: fc.integer({ min: 0, max: 5 }),
    sparePercent: fc.integer({ min: 0, max: 100 }),
    seed: fc.uint8Array({ minLength: 64, maxLength: 64 }),
    lastFraction: fc.integer({ min: 0, max: 64 }),
  })
  .map((r) => {
    const chunks: Uint8Array[] = [];
    for (let k = 0; k < r.count; k++) {
      const size = k === r.count - 1 ? Math.max(1, Math.min(r.chunkSize, r.lastFraction)) : r.chunkSize;
      chunks.push(memcpyChunk(Uint8Array.from({ length: size }, (_, j) => r.seed[(j + k) % 64]! ^ k)));
    }
    const capacity = r.count + r.extraCapacity;
    const metadata = r.metadata === undefined ? undefined : JSON.stringify({ capacity, ...r.metadata });
    return { ...r, chunks, capacity, metadata, sparePercent: r.offsets ? r.sparePercent : 0 };
  });

type ChunkSet = typeof chunkSetArb extends fc.Arbitrary<infer T> ? T : never;

function build(r: ChunkSet): Uint8Array {
  return buildSuperchunk({ chunks: r.chunks, checksumId: r.checksumId, typesize: 1, chunkSize: r.chunkSize, metadata: r.metadata, capacity: r.metadata === undefined ? undefined : r.capacity, offsets: r.offsets, sparePercent: r.sparePercent });
}

function locate(file: Uint8Array, h: SuperchunkHeader, capacity: number | undefined): number[] {
  return h.hasOffsets ? readOffsets(file, h, { capacity, fileLength: file.length }) : walkChunkOffsets(file, h);
}

describe("properties", () => {
  it("round trip: every chunk comes back byte for byte, slots hold chunk + checksum and do not overlap", () => {
    fc.assert(
      fc.property(chunkSetArb, (r) => {
        const file = build(r);
        const h = readSuperchunkHeader(file);
        expect(h).toMatchObject({ hasOffsets: r.offsets, hasMetadata: r.metadata !== undefined, checksumId: r.checksumId, chunkSize: r.chunkSize, nchunks: r.count });
        if (r.metadata !== undefined) {
          const text = readSuperchunkMetadataText(file, h);
          expect(JSON.parse(text)).toEqual(JSON.parse(r.metadata));
          if (r.offsets) expect((32 + h.metaSize) % 8).toBe(0);
        }
        const capacity = r.metadata === undefined ? undefined : r.capacity;
        const offsets = locate(file, h, capacity);
        expect(offsets).toHaveLength(r.count);
        offsets.forEach((o, i) => expect(readSuperchunkChunk(file.subarray(o), h, i).chunk).toEqual(r.chunks[i]));
        const size = checksumKind(r.checksumId).size;
        const caps = h.hasOffsets ? slotCapacities(offsets, file.length) : [];
        caps.forEach((c, i) => expect(c).toBeGreaterThanOrEqual(r.chunks[i]!.length + size));
        const spans = offsets.map((o, i) => [o, o + r.chunks[i]!.length + size] as const).sort((a, b) => a[0] - b[0]);
        for (let i = 1; i < spans.length; i++) expect(spans[i]![0]).toBeGreaterThanOrEqual(spans[i - 1]![1]);
      }),
    );
  });

  it("every single-bit flip inside a checksummed chunk or its checksum is detected", () => {
    fc.assert(
      fc.property(chunkSetArb.filter((r) => r.count > 0 && r.checksumId !== 0), fc.nat(), fc.nat(), (r, pickChunk, pickBit) => {
        const file = build(r);
        const h = readSuperchunkHeader(file);
        const capacity = r.metadata === undefined ? undefined : r.capacity;
        const offsets = locate(file, h, capacity);
        const i = pickChunk % r.count;
        const covered = (r.chunks[i]!.length + checksumKind(r.checksumId).size) * 8;
        const bit = pickBit % covered;
        const flipped = file.slice();
        flipped[offsets[i]! + (bit >> 3)]! ^= 1 << (bit & 7);
        const f = failure(() => readSuperchunkChunk(flipped.subarray(offsets[i]), h, i));
        // Outside the 16-byte Blosc header the chunk still parses, so the checksum must catch it.
        if (bit >= 16 * 8) expect(f).toMatchObject({ code: "CHECKSUM_MISMATCH", field: `chunk[${i}].checksum` });
      }),
    );
  });

  it("a chunk is read with three range requests and no more bytes than its slot bound", async () => {
    await fc.assert(
      fc.asyncProperty(chunkSetArb.filter((r) => r.count > 0 && r.offsets), fc.nat(), async (r, pick) => {
        const file = build(r);
        const i = pick % r.count;
        const requests: ByteSpan[] = [];
        const getRange = async (span: ByteSpan): Promise<Uint8Array> => {
          requests.push(span);
          return file.slice(span.offset, span.offset + span.length);
        };
        const { chunk } = await readChunkByRanges(getRange, i, { path: "x" });
        expect(chunk).toEqual(r.chunks[i]);
        expect(requests).toHaveLength(3);
        const size = checksumKind(r.checksumId).size;
        expect(requests[0]).toEqual({ offset: 0, length: 32 });
        expect(requests[1]!.length).toBe(i + 1 < r.count ? 16 : 8);
        expect(requests[2]!.length).toBeLessThanOrEqual(r.chunkSize + 16 + size);
        expect(requests[2]!.length).toBeGreaterThanOrEqual(r.chunks[i]!.length + size);
      }),
    );
  });
});

describe("verifySuperchunk (spec/v2.md §15)", () => {
  const chunks = [memcpyChunk(text("abcd")), memcpyChunk(text("efgh")), memcpyChunk(text("ij"))];
  const file = buildSuperchunk({ chunks, checksumId: 2, typesize: 1, chunkSize: 4, metadata: '{"capacity": 3}', capacity: 3 });
  const h = readSuperchunkHeader(file);
  const offsets = readOffsets(file, h, { capacity: 3 });

  it("a clean file has no problems", () => {
    expect(verifySuperchunk(file, { capacity: 3 })).toMatchObject({ offsets, problems: [] });
  });
  it("reports every bad chunk by index, not only the first", () => {
    const bad = file.slice();
    bad[offsets[0]! + 17]! ^= 0x01;
    bad[offsets[2]! + 16]! ^= 0x80;
    const { problems } = verifySuperchunk(bad, { capacity: 3, path: "data/__1__.bin" });
    expect(problems.map((p) => [p.code, p.field, p.path])).toEqual([
      ["CHECKSUM_MISMATCH", "chunk[0].checksum", "data/__1__.bin"],
      ["CHECKSUM_MISMATCH", "chunk[2].checksum", "data/__1__.bin"],
    ]);
    expect(verifySuperchunk(bad, { capacity: 3, chunks: 1 }).problems).toHaveLength(1);
  });
  it("a chunk read through another index's offsets entry fails its bound checksum (§6)", () => {
    const misplaced = file.slice();
    new DataView(misplaced.buffer).setBigInt64(32 + h.metaSize + 16, BigInt(offsets[1]!), true);
    const { problems } = verifySuperchunk(misplaced, { capacity: 3 });
    expect(problems.map((p) => [p.code, p.field])).toEqual([["CHECKSUM_MISMATCH", "chunk[2].checksum"]]);
  });
  it("reports overlapping live chunks", () => {
    // Without a metadata section checksums are not bound (bloscpack's files), so only the overlap check sees it.
    const plain = buildSuperchunk({ chunks, checksumId: 2, typesize: 1, chunkSize: 4, capacity: 3 });
    const ph = readSuperchunkHeader(plain);
    const po = readOffsets(plain, ph, { capacity: 3, fileLength: plain.length });
    const overlapping = plain.slice();
    // Entry 2 points at chunk 1: both read fine (a 4-byte last chunk is allowed), but they share bytes.
    new DataView(overlapping.buffer).setBigInt64(32 + ph.metaSize + 16, BigInt(po[1]!), true);
    const { problems } = verifySuperchunk(overlapping, { capacity: 3 });
    expect(problems.map((p) => [p.code, p.field])).toEqual([["BAD_HEADER", "offsets[2]"]]);
  });
});
