// zstd needs an asynchronous initialisation; before it, compress must refuse with a UsageError.
// (Vitest isolates test files, so this file starts with zstd not loaded.)
import { describe, expect, it } from "vitest";
import { UsageError } from "@fmt/errors";
import { readChunkHeader } from "@fmt/header";
import { compress, decompress, initZstd, isZstdReady } from "../src/index.js";

function frameContentSize(frame: Uint8Array): number | undefined {
  expect(Array.from(frame.subarray(0, 4))).toEqual([0x28, 0xb5, 0x2f, 0xfd]);
  const descriptor = frame[4]!;
  const fcsFlag = descriptor >> 6;
  const singleSegment = (descriptor >> 5) & 1;
  const dictIdBytes = [0, 1, 2, 4][descriptor & 3]!;
  const fcsBytes = fcsFlag === 0 ? singleSegment : [1, 2, 4, 8][fcsFlag]!;
  if (fcsBytes === 0) return undefined;
  let at = 5 + (singleSegment ? 0 : 1) + dictIdBytes;
  let size = 0;
  for (let k = 0; k < fcsBytes; k++) size += frame[at++]! * 2 ** (8 * k);
  return fcsBytes === 2 ? size + 256 : size;
}

describe("zstd compression", () => {
  it("throws UsageError before initZstd and works after it", async () => {
    const data = new Uint8Array(new Float64Array(5000).map((_, i) => Math.sqrt(i)).buffer);
    expect(isZstdReady()).toBe(false);
    expect(() => compress(data, { typesize: 8, clevel: 5, shuffle: 1, cname: "zstd" })).toThrow(UsageError);
    await initZstd();
    expect(isZstdReady()).toBe(true);
    const chunk = compress(data, { typesize: 8, clevel: 5, shuffle: 1, cname: "zstd" });
    const header = readChunkHeader(chunk);
    expect(header.codec).toBe("zstd");
    expect(header.dontSplit).toBe(true);
    expect(header.memcpyed).toBe(false);
    expect(Buffer.from(decompress(chunk)).equals(Buffer.from(data))).toBe(true);
  });

  it("writes one frame per block with the content size set", async () => {
    await initZstd();
    const data = new Uint8Array(new Int32Array(75_001).map((_, i) => (i * 7) >> 4).buffer);
    for (const clevel of [1, 5, 9]) {
      const chunk = compress(data, { typesize: 4, clevel, shuffle: 0, cname: "zstd" });
      const header = readChunkHeader(chunk);
      expect(header.memcpyed).toBe(false);
      const nblocks = Math.ceil(header.nbytes / header.blocksize);
      const view = new DataView(chunk.buffer, chunk.byteOffset, chunk.length);
      for (let j = 0; j < nblocks; j++) {
        const start = view.getInt32(16 + 4 * j, true);
        const csize = view.getInt32(start, true);
        const bsize = j === nblocks - 1 && header.nbytes % header.blocksize !== 0 ? header.nbytes % header.blocksize : header.blocksize;
        expect(csize).toBeLessThan(bsize);
        expect(frameContentSize(chunk.subarray(start + 4, start + 4 + csize))).toBe(bsize);
      }
      expect(Buffer.from(decompress(chunk)).equals(Buffer.from(data))).toBe(true);
    }
  });
});
