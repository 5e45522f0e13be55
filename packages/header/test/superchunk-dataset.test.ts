import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { FormatError, UsageError } from "@fmt/errors";
import {
  checkDatasetSuperchunk, checkRequiredChunkSize, journalChunkFileName, locateChunk, requiredChunks, superchunkFileName, type SuperchunkHeader,
} from "../src/index.js";

// The header of spec/v2.md §8.1 as decoded by hand from its field table.
const EXAMPLE: SuperchunkHeader = { version: 2, hasOffsets: true, hasMetadata: true, checksumId: 1, typesize: 4, chunkSize: 8, lastChunk: 4, nchunks: 2, metaSize: 40 };
const EXPECT = { s: 1, required: 2, chunklen: 2, atomsize: 4, superchunksize: 4 };

function failure(fn: () => unknown): { code: string; field: string | undefined } {
  try {
    fn();
  } catch (e) {
    if (e instanceof FormatError) return { code: e.code, field: e.field };
    throw e;
  }
  throw new Error("expected a FormatError, nothing was thrown");
}

describe("names and positions (spec/v2.md §3.2, §10.3, §13.4)", () => {
  it("file names", () => {
    expect(superchunkFileName(1)).toBe("data/__1__.bin");
    expect(superchunkFileName(1030)).toBe("data/__1030__.bin");
    expect(() => superchunkFileName(0)).toThrow(UsageError);
    expect(journalChunkFileName(2, 0)).toBe("data/__2__.bin.0.next");
  });
  it("locateChunk: 1-based superchunks, 0-based local indexes", () => {
    expect(locateChunk(0, 4)).toEqual({ superchunk: 1, local: 0 });
    expect(locateChunk(3, 4)).toEqual({ superchunk: 1, local: 3 });
    expect(locateChunk(4, 4)).toEqual({ superchunk: 2, local: 0 });
    expect(locateChunk(70, 64)).toEqual({ superchunk: 2, local: 6 });
    fc.assert(fc.property(fc.nat(10 ** 9), fc.integer({ min: 1, max: 65536 }), (g, S) => {
      const { superchunk, local } = locateChunk(g, S);
      expect((superchunk - 1) * S + local).toBe(g);
      expect(local).toBeLessThan(S);
    }));
  });
  it("requiredChunks: the §8.1 dataset and the general shape", () => {
    expect(requiredChunks(3, 2, 4)).toEqual({ nchunks: 2, rest: 1, superchunks: [2] });
    expect(requiredChunks(0, 2, 4)).toEqual({ nchunks: 0, rest: 0, superchunks: [] });
    expect(requiredChunks(8, 2, 4)).toEqual({ nchunks: 4, rest: 0, superchunks: [4] });
    expect(requiredChunks(9, 2, 4)).toEqual({ nchunks: 5, rest: 1, superchunks: [4, 1] });
    fc.assert(fc.property(fc.nat(10 ** 6), fc.integer({ min: 1, max: 5000 }), fc.integer({ min: 1, max: 300 }), (len, chunklen, S) => {
      const r = requiredChunks(len, chunklen, S);
      expect(r.superchunks.reduce((a, b) => a + b, 0)).toBe(r.nchunks);
      r.superchunks.slice(0, -1).forEach((n) => expect(n).toBe(S));
      expect(r.nchunks * chunklen).toBeGreaterThanOrEqual(len);
      expect((r.nchunks - 1) * chunklen).toBeLessThan(Math.max(len, 1));
    }));
  });
});

describe("checkDatasetSuperchunk (§10.4 table, in order)", () => {
  it("accepts the §8.1 superchunk, and more live chunks than required", () => {
    expect(() => checkDatasetSuperchunk(EXAMPLE, { capacity: 4, firstChunk: 0 }, EXPECT)).not.toThrow();
    expect(() => checkDatasetSuperchunk({ ...EXAMPLE, nchunks: 3 }, { capacity: 4, firstChunk: 0 }, EXPECT)).not.toThrow();
  });
  it.each([
    ["no offsets", { ...EXAMPLE, hasOffsets: false }, { capacity: 4, firstChunk: 0 }, EXPECT, "BAD_HEADER", "blpk.options"],
    ["no metadata", { ...EXAMPLE, hasMetadata: false }, { capacity: 4, firstChunk: 0 }, EXPECT, "BAD_HEADER", "blpk.options"],
    ["chunk-size", { ...EXAMPLE, chunkSize: 16 }, { capacity: 4, firstChunk: 0 }, EXPECT, "INCONSISTENT", "blpk.chunk_size"],
    ["too few chunks", { ...EXAMPLE, nchunks: 1 }, { capacity: 4, firstChunk: 0 }, EXPECT, "INCONSISTENT", "blpk.nchunks"],
    ["capacity", EXAMPLE, { capacity: 8, firstChunk: 0 }, EXPECT, "INCONSISTENT", "superchunk.meta/capacity"],
    ["capacity absent", EXAMPLE, { firstChunk: 0 }, EXPECT, "INCONSISTENT", "superchunk.meta/capacity"],
    ["first_chunk", EXAMPLE, { capacity: 4, firstChunk: 4 }, EXPECT, "INCONSISTENT", "superchunk.meta/first_chunk"],
    ["first_chunk of superchunk 2", EXAMPLE, { capacity: 4, firstChunk: 0 }, { ...EXPECT, s: 2 }, "INCONSISTENT", "superchunk.meta/first_chunk"],
  ])("%s", (_name, header, meta, expected, code, field) => {
    expect(failure(() => checkDatasetSuperchunk(header, meta, expected, "data/__1__.bin"))).toEqual({ code, field });
  });
});

describe("checkRequiredChunkSize (§10.4)", () => {
  const dims = { chunklen: 2, atomsize: 4 };
  it("full chunks hold exactly chunklen rows", () => {
    expect(() => checkRequiredChunkSize(8, 2, dims)).not.toThrow();
    expect(failure(() => checkRequiredChunkSize(4, 2, dims))).toEqual({ code: "INCONSISTENT", field: "blosc.nbytes" });
  });
  it("the partial last chunk may hold more rows than needed (an interrupted write), never fewer, never a broken row", () => {
    expect(() => checkRequiredChunkSize(4, 1, dims)).not.toThrow();
    expect(() => checkRequiredChunkSize(8, 1, dims)).not.toThrow();
    expect(failure(() => checkRequiredChunkSize(0, 1, dims))).toEqual({ code: "INCONSISTENT", field: "blosc.nbytes" });
    expect(failure(() => checkRequiredChunkSize(6, 1, dims))).toEqual({ code: "INCONSISTENT", field: "blosc.nbytes" });
    expect(failure(() => checkRequiredChunkSize(12, 1, dims))).toEqual({ code: "INCONSISTENT", field: "blosc.nbytes" });
  });
});
