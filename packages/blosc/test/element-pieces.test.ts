// A few bytes of a block from pieces of its streams (src/element-pieces.ts) against decompress of
// the whole chunk: random data, typesizes, filters, codecs and forced blocksizes; pieces cut
// shorter than planned (a prefix estimated too short) must be reported and, read whole, decode.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { blockStreams, compress, decodeBytePieces, decompress, planBytePieces, planChunk } from "../src/index.js";
import type { BytePiece } from "../src/index.js";

function data(kind: number, n: number, typesize: number, seed: number): Uint8Array {
  const out = new Uint8Array(n * typesize);
  let s = seed | 1;
  let walk = 0;
  for (let i = 0; i < n; i++) {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    walk += (s % 7) - 3;
    for (let b = 0; b < typesize; b++) {
      // 0: small integers (compressible high bytes), 1: noise, 2: runs
      out[i * typesize + b] = kind === 0 ? (b === 0 ? walk & 255 : b === 1 ? (walk >> 8) & 255 : 0) : kind === 1 ? (s >>> (b % 24)) & 255 : Math.floor(i / 50) & 255;
    }
  }
  return out;
}

const read = (chunk: Uint8Array, pieces: readonly BytePiece[]): Uint8Array[] => pieces.map((p) => chunk.slice(p.offset, p.offset + p.length));

describe("bytes of a block from pieces of its streams", () => {
  it("equal the same bytes of the decoded chunk, and short prefixes are reported, then decode whole (property)", () => {
    fc.assert(
      fc.property(
        fc.record({
          kind: fc.integer({ min: 0, max: 2 }),
          typesize: fc.constantFrom(1, 2, 4, 8, 16, 3),
          items: fc.integer({ min: 1, max: 40_000 }),
          shuffle: fc.constantFrom(0, 1, 2),
          cname: fc.constantFrom("lz4" as const, "blosclz" as const),
          clevel: fc.integer({ min: 1, max: 9 }),
          blocksize: fc.constantFrom(0, 8192, 65536),
          seed: fc.integer(),
        }),
        fc.nat(),
        fc.integer({ min: 1, max: 24 }),
        fc.nat(),
        (c, at, width, cut) => {
          const source = data(c.kind, c.items, c.typesize, c.seed);
          const chunk = compress(source, { typesize: c.typesize, clevel: c.clevel, shuffle: c.shuffle, cname: c.cname, blocksize: c.blocksize });
          const plan = planChunk(chunk);
          if (plan.header.memcpyed) return;
          const blocksize = plan.header.blocksize;
          const start = at % source.length;
          const j = Math.floor(start / blocksize);
          const end = Math.min(start + width, source.length, (j + 1) * blocksize);
          const streams = blockStreams(chunk, 0, plan, j);
          const pieces = planBytePieces(plan, streams, j, start, end);
          if (pieces === undefined) {
            // Only layouts that need the whole block are refused.
            expect(c.shuffle === 2 || (c.shuffle === 1 && c.typesize > 1 && streams.starts.length !== c.typesize)).toBe(true);
            return;
          }
          const expected = decompress(chunk).subarray(start, end);
          const out = new Uint8Array(end - start);
          // Cut one compressed piece short, as an estimate that fell short would be.
          const cutPieces = pieces.map((p, i) => (!p.raw && i === cut % pieces.length ? { ...p, length: Math.max(1, (cut % p.length) + 1) } : p));
          let asked: BytePiece[] = cutPieces;
          let short = decodeBytePieces(plan, streams, j, start, end, asked, read(chunk, asked), out);
          if (short.length > 0) {
            for (const s of short) expect(s.length).toBe(streams.sizes[s.stream]);
            asked = asked.map((p) => short.find((s) => s.stream === p.stream) ?? p);
            short = decodeBytePieces(plan, streams, j, start, end, asked, read(chunk, asked), out);
          }
          expect(short).toEqual([]);
          expect(out).toEqual(expected);
          // The pieces read stay a small part of the chunk for one element of a split, shuffled block.
          if (c.shuffle === 1 && streams.starts.length === c.typesize && width <= c.typesize) {
            const readBytes = pieces.reduce((n, p) => n + (p.raw ? p.length : 0), 0);
            expect(readBytes).toBeLessThanOrEqual(c.typesize * width);
          }
        },
      ),
      { numRuns: 400 },
    );
  });

  it("a raw piece cut short (a truncated file) is a TRUNCATED error, not wrong bytes", () => {
    // A float64 random walk: the low byte planes are stored raw, the high ones compressed.
    const walk = new Float64Array(65536);
    for (let i = 1; i < walk.length; i++) walk[i] = walk[i - 1]! + Math.sin(i * 12.9898) * 0.5;
    const source = new Uint8Array(walk.buffer);
    const chunk = compress(source, { typesize: 8, clevel: 5, shuffle: 1, cname: "lz4" });
    const plan = planChunk(chunk);
    const streams = blockStreams(chunk, 0, plan, 0);
    const pieces = planBytePieces(plan, streams, 0, 8000, 8008)!;
    expect(pieces.some((p) => p.raw) && pieces.some((p) => !p.raw)).toBe(true);
    const bytes = read(chunk, pieces).map((b, i) => (pieces[i]!.raw ? b.subarray(0, 0) : b));
    expect(() => decodeBytePieces(plan, streams, 0, 8000, 8008, pieces, bytes, new Uint8Array(8))).toThrow(expect.objectContaining({ code: "TRUNCATED" }));
  });

  it("a compressed stream that cannot decode, read whole, is CORRUPT_STREAM", () => {
    const source = data(0, 65536, 8, 9);
    const chunk = compress(source, { typesize: 8, clevel: 5, shuffle: 1, cname: "lz4" });
    const plan = planChunk(chunk);
    const streams = blockStreams(chunk, 0, plan, 0);
    const pieces = planBytePieces(plan, streams, 0, 8000, 8008)!;
    const compressed = pieces.findIndex((p) => !p.raw);
    expect(compressed).toBeGreaterThanOrEqual(0);
    const whole = pieces.map((p) => (p.raw ? p : { ...p, length: streams.sizes[p.stream]! }));
    const bytes = read(chunk, whole);
    bytes[compressed]!.fill(0xff);
    expect(() => decodeBytePieces(plan, streams, 0, 8000, 8008, whole, bytes, new Uint8Array(8))).toThrow(expect.objectContaining({ code: "CORRUPT_STREAM" }));
  });
});
