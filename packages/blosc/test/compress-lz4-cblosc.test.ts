// Blosc's lz4 codec comes out of compress() byte for byte as real c-blosc 1.21 writes it: both
// backends run the algorithm of LZ4's own fast compressor (LZ4_compress_fast, which c-blosc calls),
// a stream is kept only when it comes out shorter than its split and fits the room the chunk has
// left (the kernels ask for one byte less than the split, c-blosc for the split and then stores
// an equal-length stream raw: the same outcome), so the same splits are stored raw too. The
// stream encoders are also compared with liblz4 itself, at capacities around their output.
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { seedFrom } from "../../../tools/test-seed.js";
import { encodeLz4 } from "../src/codecs/lz4.js";
import { compress, setCodecBackend } from "../src/index.js";
import { loadWasmKernels } from "../src/wasm/index.js";
import { BENCH_KINDS, benchData, prng, runCblosc, type CompressJob, type Lz4Job } from "./compress-oracle.js";

const SEED = seedFrom("LZ4_CBLOSC_SEED");

/**
 * Random bytes where, at a share of the positions, a run of 4 to 35 bytes is copied from up to
 * `reach` bytes back (LZ4 can reach 65,535): matches of every length and distance, some too far.
 */
function mixedBytes(nbytes: number, seed: number, repeatShare: number, reach = 70_000): Uint8Array {
  const rand = prng(seed);
  const out = new Uint8Array(nbytes);
  let i = 0;
  while (i < nbytes) {
    if (i > 64 && rand() < repeatShare) {
      const from = i - 1 - Math.floor(rand() * Math.min(i - 1, reach));
      const end = Math.min(nbytes, i + 4 + Math.floor(rand() * 32));
      for (let p = from; i < end; ) out[i++] = out[p++]!;
    } else {
      out[i++] = Math.floor(rand() * 256);
    }
  }
  return out;
}

/** The chunk c-blosc returned for each job, compared with ours under both backends. */
function expectSameAsCblosc(jobs: CompressJob[], label: (i: number) => string): void {
  const { version, lz4, results } = runCblosc(jobs.map((job) => ({ ...job, full: true })));
  expect(version).toMatch(/^1\.21\./);
  const differing: string[] = [];
  for (const backend of ["wasm", "js"] as const) {
    setCodecBackend(backend);
    jobs.forEach((job, i) => {
      const theirs = Buffer.from(results[i]!.chunk!, "base64");
      const ours = Buffer.from(compress(job.data, job));
      if (!ours.equals(theirs)) differing.push(`${backend}: ${label(i)}: ours ${ours.length} B, c-blosc ${theirs.length} B`);
    });
  }
  expect(differing, `c-blosc ${version}: ${lz4}`).toEqual([]);
}

describe("lz4 chunks equal c-blosc 1.21's, byte for byte", () => {
  afterEach(() => setCodecBackend("auto"));

  it("benchmark-like data, every clevel and shuffle, automatic blocksize (16-64 KiB streams)", () => {
    const jobs: CompressJob[] = [];
    const labels: string[] = [];
    for (const kind of BENCH_KINDS) {
      const { data, typesize } = benchData(kind, 256 * 1024, 11);
      for (const shuffle of [0, 1, 2] as const) {
        for (let clevel = 1; clevel <= 9; clevel++) {
          jobs.push({ op: "compress", data, typesize, clevel, shuffle, cname: "lz4" });
          labels.push(`${kind} shuffle ${shuffle} clevel ${clevel}`);
        }
      }
    }
    expectSameAsCblosc(jobs, (i) => labels[i]!);
  });

  it("streams of 64 KiB + 11 bytes and more (LZ4's 5-byte hash), unsplit blocks up to 1 MiB", () => {
    const jobs: CompressJob[] = [];
    const labels: string[] = [];
    for (const [blocksize, share] of [[65536, 0.5], [65546, 0.6], [65547, 0.7], [131072, 0.9], [1 << 20, 0.6]] as const) {
      const data = mixedBytes(1 << 20, blocksize, share);
      for (const clevel of [1, 5, 9]) {
        // typesize 1: one stream per block, as long as the block.
        jobs.push({ op: "compress", data, typesize: 1, clevel, shuffle: 0, cname: "lz4", blocksize });
        labels.push(`blocksize ${blocksize} repeats ${share} clevel ${clevel}`);
      }
    }
    expectSameAsCblosc(jobs, (i) => labels[i]!);
  });

  it("streams that come out a few bytes either side of their split's size, and chunks c-blosc stores memcpyed", () => {
    // 128 KiB of typesize 1 in two 64 KiB blocks of one stream each. The first is random bytes
    // holding one run of `run` bytes copied from 300 bytes before `at`: its stream is about
    // 65,798 - run bytes long, so runs of 258..268 cross the split's size (stored raw) byte by
    // byte, and the places move the last literals' length through its 255-byte steps (an
    // encoder that wants one byte too many for them stores run 262 at 504 raw). The second block
    // compresses well, or not at all (then the chunk may be stored memcpyed).
    const jobs: CompressJob[] = [];
    const labels: string[] = [];
    const rand = prng(77);
    const random = Uint8Array.from({ length: 65536 }, () => Math.floor(rand() * 256));
    for (let at = 300; at < 300 + 255; at += 17) {
      for (let run = 258; run <= 268; run++) {
        for (const second of at === 300 ? (["zeros", "random"] as const) : (["zeros"] as const)) {
          const data = new Uint8Array(131072);
          data.set(random);
          data.copyWithin(at, at - 300, at - 300 + run);
          if (second === "random") data.set(random.slice().reverse(), 65536);
          jobs.push({ op: "compress", data, typesize: 1, clevel: 9, shuffle: 0, cname: "lz4", blocksize: 65536 });
          labels.push(`run ${run} at ${at}, second block ${second}`);
        }
      }
    }
    // The room the chunk has left, not the split, limits the last block's stream: an
    // incompressible first block (stored raw) leaves the second 65,520 bytes for its stream,
    // which runs of 270..290 bytes move across that limit.
    for (let run = 270; run <= 290; run++) {
      const data = new Uint8Array(131072);
      data.set(random);
      data.set(random.slice().reverse(), 65536);
      data.copyWithin(65536 + 474, 65536 + 474 - 300, 65536 + 474 - 300 + run);
      jobs.push({ op: "compress", data, typesize: 1, clevel: 9, shuffle: 0, cname: "lz4", blocksize: 65536 });
      labels.push(`second block's run ${run} at 474, first block random`);
    }
    expectSameAsCblosc(jobs, (i) => labels[i]!);
  });

  it("any data, typesize, shuffle, clevel and blocksize (property)", () => {
    const config = fc.record({
      nbytes: fc.integer({ min: 1, max: 300_000 }),
      seed: fc.integer({ min: 1, max: 1 << 30 }),
      repeatShare: fc.double({ min: 0, max: 1, noNaN: true }),
      typesize: fc.constantFrom(1, 2, 4, 8, 16, 3, 12),
      shuffle: fc.constantFrom(0 as const, 1 as const, 2 as const),
      clevel: fc.integer({ min: 1, max: 9 }),
      blocksize: fc.constantFrom(0, 0, 4096, 32768, 100_000, 262_144),
    });
    const cases = fc.sample(config, { seed: SEED, numRuns: 120 });
    const jobs = cases.map((c): CompressJob => ({
      op: "compress", data: mixedBytes(c.nbytes, c.seed, c.repeatShare), typesize: c.typesize, clevel: c.clevel, shuffle: c.shuffle, cname: "lz4", blocksize: c.blocksize,
    }));
    expectSameAsCblosc(jobs, (i) => JSON.stringify(cases[i]));
  });
});

describe("the lz4 stream encoders equal liblz4's LZ4_compress_fast", () => {
  it("every length 0..300 and around 64 KiB + 11, runs 65,534..65,537 bytes back, at capacities around the output and LZ4's bound", () => {
    const kernels = loadWasmKernels()!;
    const inputs: { data: Uint8Array; acceleration: number; label: string }[] = [];
    for (let n = 0; n <= 300; n++) inputs.push({ data: mixedBytes(n, SEED + n, 0.3, 40), acceleration: 1 + (n % 3), label: `n ${n}` });
    for (let n = 65540; n <= 65552; n++) inputs.push({ data: mixedBytes(n, SEED + n, 0.5), acceleration: 1, label: `n ${n}` });
    for (const distance of [65534, 65535, 65536, 65537]) {
      // Zeros, 64 random bytes at 1,000 (a match of zeros ends there, so LZ4 enters 1,000 in its
      // table), zeros, and the same 64 bytes `distance` later: found only up to 65,535.
      const rand = prng(SEED + distance);
      const data = new Uint8Array(1000 + distance + 64 + 1000);
      for (let i = 0; i < 64; i++) data[1000 + i] = 1 + Math.floor(rand() * 255);
      data.copyWithin(1000 + distance, 1000, 1064);
      inputs.push({ data, acceleration: 1, label: `a run ${distance} back` });
    }
    const jobs: Lz4Job[] = [];
    const labels: string[] = [];
    const atBoundJob = new Map<string, number>();
    for (const { data, acceleration, label } of inputs) {
      const bound = data.length + Math.floor(data.length / 255) + 16;
      const full = encodeLz4(data, new Uint8Array(bound), acceleration);
      for (const capacity of new Set([full - 2, full - 1, full, full + 1, bound - 1, bound].filter((c) => c >= 0))) {
        if (capacity === bound) atBoundJob.set(label, jobs.length);
        jobs.push({ op: "lz4", data, acceleration, capacity });
        labels.push(`${label}, acceleration ${acceleration}, capacity ${capacity}`);
      }
    }
    const { lz4, results } = runCblosc(jobs);
    const differing: string[] = [];
    jobs.forEach((job, i) => {
      const theirs = Buffer.from(results[i]!.stream, "base64");
      const room = new Uint8Array(job.capacity);
      const jsLength = encodeLz4(job.data, room, job.acceleration);
      const jsStream = Buffer.from(room.subarray(0, jsLength));
      // undefined: the block did not fit, where LZ4 returns 0 (an empty stream here).
      const wasmStream = Buffer.from(kernels.encodeStream("lz4", job.data, job.acceleration, job.capacity) ?? new Uint8Array(0));
      if (!jsStream.equals(theirs)) differing.push(`js: ${labels[i]}: ${jsStream.length} B, liblz4 ${theirs.length} B`);
      if (!wasmStream.equals(theirs)) differing.push(`wasm: ${labels[i]}: ${wasmStream.length} B, liblz4 ${theirs.length} B`);
    });
    expect(differing, lz4).toEqual([]);
    // The far runs really test the reach: liblz4 itself matches the run 65,535 back, not 65,536.
    const atBound = (label: string): number => Buffer.from(results[atBoundJob.get(label)!]!.stream, "base64").length;
    expect(atBound("a run 65535 back")).toBeLessThan(atBound("a run 65536 back"));
  });
});
