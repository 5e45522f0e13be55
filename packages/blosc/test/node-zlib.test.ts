// Node's zlib handed to compress/decompress per call (`@fmt/blosc/node`): chunks it writes decode
// in real c-blosc and in the fflate path, chunks c-blosc writes decode with it, and damaged or
// oversized streams fail with CORRUPT_STREAM after bounded work.
import { deflateSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { FormatError } from "@fmt/errors";
import { compress, decompress, decompressRange } from "../src/index.js";
import { nodeZlib } from "../src/node.js";
import { decodeZlib, zlibDecoderOf } from "../src/zlib.js";
import { benchData, runCblosc, type CompressJob } from "./compress-oracle.js";

function codeOf(run: () => unknown): string {
  try {
    run();
  } catch (e) {
    if (e instanceof FormatError) return e.code;
    throw e;
  }
  return "decoded";
}

describe("nodeZlib", () => {
  const inputs = [benchData("f8-walk", 1 << 18, 1), benchData("i4-0..99", 100_000, 2), benchData("f8-uniform", 70_000, 3)];

  it("writes chunks that real c-blosc decodes to the input, with c-blosc's headers", () => {
    const jobs: CompressJob[] = [];
    const ours: Uint8Array[] = [];
    for (const { data, typesize } of inputs) {
      for (const clevel of [1, 5, 9]) {
        for (const shuffle of [0, 1, 2] as const) {
          jobs.push({ op: "compress", data, typesize, clevel, shuffle, cname: "zlib" });
          ours.push(compress(data, { typesize, clevel, shuffle, cname: "zlib", zlib: nodeZlib }));
        }
      }
    }
    const native = runCblosc(jobs).results;
    const check = runCblosc(ours.map((chunk, i) => ({ op: "decompress" as const, chunk, expected: jobs[i]!.data }))).results;
    ours.forEach((chunk, i) => {
      expect(check[i]!.ok).toBe(true);
      expect(Buffer.from(chunk.subarray(0, 12)).toString("hex")).toBe(native[i]!.header.slice(0, 24));
      expect(decompress(chunk)).toEqual(jobs[i]!.data);
    });
  });

  it("decodes chunks written by c-blosc, whole and by range, like the fflate path", () => {
    for (const { data, typesize } of inputs) {
      for (const clevel of [1, 9]) {
        const chunk = compress(data, { typesize, clevel, shuffle: 1, cname: "zlib" });
        expect(decompress(chunk, { zlib: nodeZlib })).toEqual(data);
        expect(decompressRange(chunk, 1000, 5000, { zlib: nodeZlib })).toEqual(data.subarray(1000, 5000));
      }
    }
  });

  it("refuses a stream that inflates past the destination after at most the destination's worth of output", () => {
    // 64 MiB of zeros deflate to ~64 KiB; a 1000-byte destination must stop inflation early
    const bomb = new Uint8Array(deflateSync(new Uint8Array(64 << 20), { level: 9 }));
    const decode = zlibDecoderOf(nodeZlib);
    expect(codeOf(() => decode(bomb, new Uint8Array(1000)))).toBe("CORRUPT_STREAM");
    expect(codeOf(() => decode(bomb, new Uint8Array(0)))).toBe("CORRUPT_STREAM");
  });

  it("refuses what decodeZlib refuses: short output, bad Adler-32, truncation", () => {
    const data = benchData("i4-0..99", 4000, 4).data;
    const stream = new Uint8Array(deflateSync(data, { level: 5 }));
    const decode = zlibDecoderOf(nodeZlib);
    const badAdler = stream.slice();
    badAdler[badAdler.length - 1]! ^= 1;
    for (const [bytes, size] of [[stream, data.length + 1], [badAdler, data.length], [stream.subarray(0, stream.length - 5), data.length]] as const) {
      expect(codeOf(() => decode(bytes, new Uint8Array(size)))).toBe("CORRUPT_STREAM");
      expect(codeOf(() => decodeZlib(bytes, new Uint8Array(size)))).toBe("CORRUPT_STREAM");
    }
    const out = new Uint8Array(data.length);
    expect(decode(stream, out)).toBe(data.length);
    expect(out).toEqual(data);
  });
});
