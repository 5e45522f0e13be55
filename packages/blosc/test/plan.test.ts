// One validated plan per chunk: whole-chunk and block-by-block decoding through a plan give the
// bytes the data was compressed from, for every codec and filter; a plan made from only the head
// of a chunk decodes single blocks from windows; decoders refuse plans they did not make.
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import {
  blockExtent, chunkHeadLength, compress, decodeBlockInto, decompressPlannedInto, decompressRangePlannedInto,
  initCompression, planChunk, planChunkHead, readChunkHeader, setDecodeBackend,
} from "@fmt/blosc";
import type { ChunkPlan } from "@fmt/blosc";

const CODECS = ["blosclz", "lz4", "lz4hc", "snappy", "zlib", "zstd"] as const;

function data(n: number, seed: number): Uint8Array {
  const out = new Uint8Array(n);
  let s = seed;
  for (let i = 0; i < n; i++) {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0;
    out[i] = i % 7 === 0 ? s >>> 24 : (i >> 3) & 0xff;
  }
  return out;
}

describe("ChunkPlan decoding", () => {
  beforeAll(async () => {
    await initCompression();
  });

  for (const backend of ["js", "auto"] as const) {
    it(`whole chunk, ranges and single blocks from windows match the input (${backend})`, () => {
      setDecodeBackend(backend);
      try {
        fc.assert(
          fc.property(
            fc.constantFrom(...CODECS), fc.constantFrom(0, 1, 2), fc.constantFrom(1, 2, 4, 8), fc.integer({ min: 1, max: 5 }),
            fc.integer({ min: 0, max: 24_000 }), fc.integer({ min: 1, max: 1000 }),
            (cname, shuffle, typesize, clevel, n, seed) => {
              const input = data(n - (n % typesize), seed);
              const chunk = compress(input, { cname, shuffle: shuffle, typesize, clevel, blocksize: 4096 });
              const plan = planChunk(chunk);
              const out = new Uint8Array(input.length);
              expect(decompressPlannedInto(chunk, plan, out)).toBe(input.length);
              expect(out).toEqual(input);
              const a = Math.floor(input.length / 3);
              const b = Math.floor((2 * input.length) / 3);
              const part = new Uint8Array(b - a);
              decompressRangePlannedInto(chunk, plan, a, b, part);
              expect(part).toEqual(input.subarray(a, b));
              if (plan.header.memcpyed || plan.nblocks === 0) return;
              const head = planChunkHead(chunk.subarray(0, chunkHeadLength(readChunkHeader(chunk))), chunk.length);
              for (let j = 0; j < head.nblocks; j++) {
                const { start, end } = blockExtent(head, j);
                const block = new Uint8Array(plan.header.blocksize);
                const size = decodeBlockInto(head, j, chunk.slice(start, end), start, block);
                expect(block.subarray(0, size)).toEqual(input.subarray(j * plan.header.blocksize, j * plan.header.blocksize + size));
              }
            },
          ),
          { numRuns: 40 },
        );
      } finally {
        setDecodeBackend("auto");
      }
    });
  }

  it("decodes single blocks of large lz4, lz4hc and blosclz chunks from windows, on both backends", () => {
    const input = data(300_000, 5);
    for (const cname of ["lz4", "lz4hc", "blosclz"] as const) {
      // Split blocks grow to blocksize × typesize, at least 64 KiB: 64 KiB blocks here.
      const chunk = compress(input, { cname, shuffle: 1, typesize: 2, clevel: 3, blocksize: 32768 });
      const head = planChunkHead(chunk.subarray(0, chunkHeadLength(readChunkHeader(chunk))), chunk.length);
      expect(head.nblocks).toBeGreaterThan(2);
      for (const backend of ["js", "auto"] as const) {
        setDecodeBackend(backend);
        try {
          for (let j = 0; j < head.nblocks; j++) {
            const { start, end } = blockExtent(head, j);
            const block = new Uint8Array(head.header.blocksize);
            const size = decodeBlockInto(head, j, chunk.slice(start, end), start, block);
            expect(block.subarray(0, size)).toEqual(input.subarray(j * head.header.blocksize, j * head.header.blocksize + size));
          }
        } finally {
          setDecodeBackend("auto");
        }
      }
    }
  });

  it("refuses plans it did not make, and windows that end inside a block", () => {
    // zstd keeps a forced 8 KiB blocksize (other codecs raise it to at least 64 KiB here).
    const chunk = compress(data(40_000, 3), { cname: "zstd", shuffle: 1, typesize: 4, clevel: 1, blocksize: 8192 });
    const plan = planChunk(chunk);
    expect(plan.nblocks).toBe(5);
    const forged: ChunkPlan = { ...plan };
    expect(() => decompressPlannedInto(chunk, forged, new Uint8Array(40_000))).toThrow(expect.objectContaining({ code: "INVALID_ARGUMENT", field: "plan" }));
    expect(() => decompressPlannedInto(chunk, plan, new Uint8Array(39_999))).toThrow(expect.objectContaining({ code: "INVALID_ARGUMENT", field: "out" }));
    const { start, end } = blockExtent(plan, 1);
    expect(() => decodeBlockInto(plan, 1, chunk.slice(start, end - 10), start, new Uint8Array(8192))).toThrow(expect.objectContaining({ code: "TRUNCATED" }));
  });

  it("runs the caller's header check before looking at block starts", () => {
    const chunk = compress(data(40_000, 4), { cname: "lz4", shuffle: 1, typesize: 4, clevel: 5, blocksize: 8192 });
    const broken = chunk.slice();
    broken.fill(0xff, 16, 24); // first two block starts
    const seen: number[] = [];
    expect(() => planChunk(broken, { checkHeader: (h) => void seen.push(h.nbytes) })).toThrow(expect.objectContaining({ code: "BAD_HEADER" }));
    expect(seen).toEqual([40_000]);
    expect(() => planChunk(broken, { checkHeader: () => { throw new RangeError("mine first"); } })).toThrow("mine first");
  });
});
