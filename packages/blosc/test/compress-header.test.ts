// The header we write (version, versionlz, flags, typesize, nbytes, blocksize) must equal the one
// real c-blosc 1.21.3 writes for the same call. Inputs are compressible (zeros) so neither side
// falls back to memcpy except where c-blosc must (bstarts do not fit).
import { beforeAll, describe, expect, it } from "vitest";
import fc from "fast-check";
import type { CodecName } from "@fmt/header";
import { compress, computeBlocksize, initZstd } from "../src/index.js";
import { CNAMES, runCblosc, type CompressJob } from "./compress-oracle.js";

const zerosBySize = new Map<number, Uint8Array>();
function zeros(n: number): Uint8Array {
  let z = zerosBySize.get(n);
  if (z === undefined) zerosBySize.set(n, (z = new Uint8Array(n)));
  return z;
}

function hex(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString("hex");
}

function compareWithCblosc(jobs: CompressJob[]): void {
  const { version, results } = runCblosc(jobs);
  expect(version).toMatch(/^1\.21\./);
  const mismatches: unknown[] = [];
  jobs.forEach((job, i) => {
    const chunk = compress(job.data, job);
    const theirs = results[i]!.header.slice(0, 24); // everything but cbytes
    const ours = hex(chunk.subarray(0, 12));
    const blocksize = computeBlocksize(job.data.length, job);
    const theirBlocksize = Buffer.from(results[i]!.header, "hex").readInt32LE(8);
    if (ours !== theirs || blocksize !== theirBlocksize) {
      mismatches.push({ nbytes: job.data.length, typesize: job.typesize, clevel: job.clevel, cname: job.cname, shuffle: job.shuffle, blocksize: job.blocksize, ours, theirs });
    }
  });
  expect(mismatches.slice(0, 10)).toEqual([]);
}

describe("chunk header versus c-blosc 1.21", () => {
  beforeAll(async () => {
    await initZstd();
  });

  it("matches on a grid of sizes, typesizes, clevels and codecs (automatic blocksize)", () => {
    const sizes = [0, 3, 100, 127, 128, 129, 1000, 32767, 32768, 100_000, 262_144, (1 << 20) + 12_345];
    const typesizes = [1, 2, 4, 8, 16, 17, 255, 256, 300];
    const jobs: CompressJob[] = [];
    for (const n of sizes) for (const typesize of typesizes) for (let clevel = 0; clevel <= 9; clevel++) for (const cname of CNAMES) {
      jobs.push({ op: "compress", data: zeros(n), zeros: true, typesize, clevel, shuffle: ((n + typesize + clevel) % 3) as 0 | 1 | 2, cname });
    }
    compareWithCblosc(jobs);
  }, 600_000);

  it("matches for random parameters including forced blocksizes (property)", () => {
    const arb = fc.record({
      n: fc.oneof(fc.integer({ min: 0, max: 5000 }), fc.integer({ min: 0, max: 1_200_000 })),
      typesize: fc.oneof(fc.integer({ min: 1, max: 20 }), fc.integer({ min: 1, max: 400 })),
      clevel: fc.integer({ min: 0, max: 9 }),
      cname: fc.constantFrom<CodecName>(...CNAMES),
      shuffle: fc.constantFrom(0 as const, 1 as const, 2 as const),
      blocksize: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 300 }), fc.integer({ min: 1, max: 2_000_000 })),
    });
    const jobs: CompressJob[] = fc.sample(arb, { numRuns: 400, seed: 42 }).map((p) => ({ op: "compress", data: new Uint8Array(p.n), zeros: true, ...p }));
    compareWithCblosc(jobs);
  }, 600_000);

  it("matches the hand-checked examples of format-facts 1.15 A/B and the 1.9 table", () => {
    const ints = new Uint8Array(new Int32Array([1, 2, 3, 4, 5, 6, 7, 8]).buffer);
    expect(hex(compress(ints, { typesize: 4, clevel: 5, shuffle: 1, cname: "blosclz" }))).toBe(
      "02011304200000002000000030000000" + hex(ints),
    );
    expect(compress(ints, { typesize: 4, clevel: 5, shuffle: 1, cname: "lz4" })[2]).toBe(0x33);
    expect(compress(ints, { typesize: 4, clevel: 0, shuffle: 0, cname: "zstd" })[2]).toBe(0x92);
    expect(hex(compress(new Uint8Array(0), { typesize: 4, clevel: 5, shuffle: 1, cname: "blosclz" }))).toBe("02011304000000000100000010000000");
    // Table of 1.9 (nbytes >= 1 MiB).
    const big = 4 << 20;
    expect(computeBlocksize(big, { typesize: 1, clevel: 5, cname: "lz4" })).toBe(128 << 10);
    expect(computeBlocksize(big, { typesize: 4, clevel: 3, cname: "blosclz" })).toBe(256 << 10);
    expect(computeBlocksize(big, { typesize: 8, clevel: 1, cname: "zlib" })).toBe(256 << 10);
    expect(computeBlocksize(big, { typesize: 8, clevel: 9, cname: "zstd" })).toBe(1 << 20);
    expect(computeBlocksize(big, { typesize: 17, clevel: 2, cname: "lz4" })).toBe(32759);
    expect(computeBlocksize(big, { typesize: 255, clevel: 0, cname: "snappy" })).toBe(8160);
    expect(computeBlocksize(100_000, { typesize: 4, clevel: 5, cname: "lz4" })).toBe(100_000);
  });
});
