// zstd frames written by hand from RFC 8878 that ask for more work or output than their frame
// declares (issue 9, item 1). The decoder writes into a fixed-size destination and checks the room
// before every write, so it must refuse at the first excess byte; the work counter proves how far
// it got. The Blosc chunks are kept in conformance/corpus/regressions/blosc/ (replayed by
// regressions.test.ts) and must equal what the builders here produce.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { FormatError } from "@fmt/errors";
import { decompress } from "../src/index.js";
import { decodeZstd, type ZstdWork } from "../src/zstd.js";

const CORPUS = fileURLToPath(new URL("../../../conformance/corpus/regressions/blosc/", import.meta.url));

/** Block header: 3 bytes little-endian, `size << 3 | type << 1 | last`. */
function blockHeader(size: number, type: number, last: boolean): number[] {
  const v = (size << 3) | (type << 1) | (last ? 1 : 0);
  return [v & 0xff, (v >> 8) & 0xff, v >> 16];
}

function sequenceCount(n: number): number[] {
  if (n < 128) return [n];
  if (n < 0x7f00) return [128 + (n >> 8), n & 0xff];
  return [255, (n - 0x7f00) & 0xff, (n - 0x7f00) >> 8];
}

/**
 * A single-segment frame declaring `contentSize` bytes: an optional raw block of `prefix` bytes,
 * then one compressed block with no literals and `nbSeq` sequences whose three codes are fixed
 * by RLE mode (literal length code 0, offset code `ofCode`, match length code `mlCode`), so that
 * no sequence reads a single bit: the bit stream is only its end marker.
 */
function rleSequenceFrame(contentSize: number, prefix: number, nbSeq: number, ofCode: number, mlCode: number): Uint8Array {
  const body = [0x00, ...sequenceCount(nbSeq), 0x54, 0, ofCode, mlCode, 0x01];
  const bytes = [0x28, 0xb5, 0x2f, 0xfd, 0xa0, ...[0, 1, 2, 3].map((i) => (contentSize >>> (8 * i)) & 0xff)];
  if (prefix > 0) bytes.push(...blockHeader(prefix, 0, false), ...new Array<number>(prefix).fill(0x61));
  bytes.push(...blockHeader(body.length, 2, true), ...body);
  return Uint8Array.from(bytes);
}

/** One unshuffled Blosc chunk (typesize 1, one block) holding a single zstd stream. */
function bloscChunk(nbytes: number, stream: Uint8Array): Uint8Array {
  const chunk = new Uint8Array(24 + stream.length);
  const view = new DataView(chunk.buffer);
  chunk.set([2, 1, 0x90, 1]); // version 2, versionlz 1, zstd + dont-split, typesize 1
  view.setUint32(4, nbytes, true);
  view.setUint32(8, nbytes, true);
  view.setUint32(12, chunk.length, true);
  view.setUint32(16, 20, true); // bstarts[0]
  view.setUint32(20, stream.length, true);
  chunk.set(stream, 24);
  return chunk;
}

function corruptCode(run: () => unknown): string {
  try {
    run();
  } catch (e) {
    if (e instanceof FormatError) return e.code;
    throw e;
  }
  return "decoded";
}

const CASES = [
  // 16,000 three-byte matches after a 4-byte raw block: 48,004 bytes for a frame of 8,000.
  { file: "zstd-bomb-16000-rle-sequences.bin", frame: rleSequenceFrame(8000, 4, 16_000, 0, 0), contentSize: 8000 },
  // 2,000 thirteen-byte matches: the count fits the block, the output does not.
  { file: "zstd-bomb-2000-sequences-overflow.bin", frame: rleSequenceFrame(8000, 4, 2000, 0, 10), contentSize: 8000 },
  // 100 three-byte matches: 304 bytes for a frame declaring 8,000.
  { file: "zstd-short-100-sequences.bin", frame: rleSequenceFrame(8000, 4, 100, 0, 0), contentSize: 8000 },
  // offset code 2 with no extra bits is offset 1 — before any byte has been written.
  { file: "zstd-offset-before-frame-start.bin", frame: rleSequenceFrame(300, 0, 100, 2, 0), contentSize: 300 },
] as const;

describe("zstd bombs and lying sequence sections", () => {
  for (const { file, frame, contentSize } of CASES) {
    it(`${file}: CORRUPT_STREAM from decodeZstd and from decompress; the corpus holds these bytes`, () => {
      expect(corruptCode(() => decodeZstd(frame, new Uint8Array(contentSize)))).toBe("CORRUPT_STREAM");
      const chunk = bloscChunk(contentSize, frame);
      expect(corruptCode(() => decompress(chunk))).toBe("CORRUPT_STREAM");
      expect(Buffer.from(readFileSync(CORPUS + file)).equals(Buffer.from(chunk))).toBe(true);
    });
  }

  it("a sequence count the block cannot hold is refused before any sequence runs", () => {
    const work: ZstdWork = { sequences: 0 };
    expect(corruptCode(() => decodeZstd(CASES[0].frame, new Uint8Array(8000), undefined, work))).toBe("CORRUPT_STREAM");
    expect(work.sequences).toBe(0);
  });

  it("output past the frame's size stops at the first sequence that would not fit", () => {
    const work: ZstdWork = { sequences: 0 };
    expect(corruptCode(() => decodeZstd(CASES[1].frame, new Uint8Array(8000), undefined, work))).toBe("CORRUPT_STREAM");
    // 4 raw bytes, then 13 bytes per sequence: 615 fit in 8,000, the 616th does not
    expect(work.sequences).toBe(Math.floor((8000 - 4) / 13));
  });

  it("the same sequence section with room enough decodes to the bytes the format defines", () => {
    // 4 'a's, then matches at offsets alternating 4 and 1 (repeat offsets 2 and 1 with literal
    // length 0), each copying 'a's: 4 + 100·3 bytes of 'a'.
    const frame = rleSequenceFrame(304, 4, 100, 0, 0);
    const out = new Uint8Array(304);
    const work: ZstdWork = { sequences: 0 };
    decodeZstd(frame, out, undefined, work);
    expect(work.sequences).toBe(100);
    expect(out.every((b) => b === 0x61)).toBe(true);
  });

  it("a destination shorter than the declared content size is refused before decoding", () => {
    const work: ZstdWork = { sequences: 0 };
    const frame = rleSequenceFrame(304, 4, 100, 0, 0);
    expect(corruptCode(() => decodeZstd(frame, new Uint8Array(303), undefined, work))).toBe("CORRUPT_STREAM");
    expect(work.sequences).toBe(0);
  });
});
