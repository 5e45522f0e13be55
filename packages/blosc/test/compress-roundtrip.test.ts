// Property tests of the writer: our decoder, real c-blosc 1.21.3 (batched Python process) and
// numcodecs' WebAssembly c-blosc all return the input, on both backends; chunks never exceed
// nbytes + 16; headers are consistent; BloscLZ streams never end in a match. compressInto writes
// the same chunk into a caller's (dirty, offset) buffer and nothing past nbytes + 16;
// compressTransient leaves it in the kernels' memory behind free headroom.
import { beforeAll, describe, expect, it } from "vitest";
import fc from "fast-check";
import { Blosc } from "./numcodecs-blosc.js";
import { readChunkHeader, splitCount, type CodecName } from "@fmt/header";
import { compress, compressInto, compressTransient, decompress, initZstd, setCodecBackend, type CodecBackend, type CompressOptions } from "../src/index.js";
import { CNAMES, prng, runCblosc, type DecompressJob } from "./compress-oracle.js";

const DATA_KINDS = ["random", "zeros", "f8-walk", "i4-small", "pattern", "runs", "low-entropy"] as const;

interface Case {
  kind: (typeof DATA_KINDS)[number];
  size: number;
  seed: number;
  typesize: number;
  cname: CodecName;
  shuffle: 0 | 1 | 2;
  clevel: number;
  blocksize: number;
  offset: number;
}

const caseArb: fc.Arbitrary<Case> = fc.record({
  kind: fc.constantFrom(...DATA_KINDS),
  size: fc.oneof(
    { weight: 2, arbitrary: fc.integer({ min: 0, max: 600 }) },
    { weight: 3, arbitrary: fc.integer({ min: 0, max: 40_000 }) },
    { weight: 2, arbitrary: fc.integer({ min: 0, max: 300_000 }) },
  ),
  seed: fc.integer({ min: 0, max: 2 ** 31 - 1 }),
  typesize: fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(1, 2, 4, 8, 16) },
    { weight: 3, arbitrary: fc.integer({ min: 1, max: 24 }) },
    { weight: 2, arbitrary: fc.integer({ min: 1, max: 300 }) },
  ),
  cname: fc.constantFrom(...CNAMES),
  shuffle: fc.constantFrom(0 as const, 1 as const, 2 as const),
  clevel: fc.integer({ min: 0, max: 9 }),
  blocksize: fc.oneof(
    { weight: 3, arbitrary: fc.constant(0) },
    { weight: 1, arbitrary: fc.integer({ min: 1, max: 70_000 }) },
  ),
  // Unaligned inputs exercise the byte-gather paths of the filters.
  offset: fc.constantFrom(0, 0, 1, 3),
});

function makeData(c: Case): Uint8Array {
  const rand = prng(c.seed);
  const buf = new Uint8Array(c.size + c.offset);
  const out = buf.subarray(c.offset);
  const n = c.size;
  switch (c.kind) {
    case "random":
      for (let i = 0; i < n; i++) out[i] = (rand() * 256) | 0;
      break;
    case "zeros":
      break;
    case "f8-walk": {
      const v = new DataView(out.buffer, out.byteOffset, n);
      let x = 0;
      for (let i = 0; i + 8 <= n; i += 8) {
        x += rand() - 0.5;
        v.setFloat64(i, x, true);
      }
      break;
    }
    case "i4-small": {
      const v = new DataView(out.buffer, out.byteOffset, n);
      for (let i = 0; i + 4 <= n; i += 4) v.setInt32(i, (rand() * 100) | 0, true);
      break;
    }
    case "pattern": {
      const period = 1 + ((rand() * 64) | 0);
      const pat = Array.from({ length: period }, () => (rand() * 256) | 0);
      for (let i = 0; i < n; i++) out[i] = pat[i % period]!;
      break;
    }
    case "runs":
      for (let i = 0; i < n; ) {
        const len = 1 + ((rand() * 3000) | 0);
        const literal = rand() < 0.5;
        const byte = (rand() * 256) | 0;
        for (let k = 0; k < len && i < n; k++, i++) out[i] = literal ? (rand() * 256) | 0 : byte;
      }
      break;
    case "low-entropy":
      for (let i = 0; i < n; i++) out[i] = (rand() * 4) | 0;
      break;
  }
  return out;
}

function optionsOf(c: Case): CompressOptions {
  return { typesize: c.typesize, clevel: c.clevel, shuffle: c.shuffle, cname: c.cname, blocksize: c.blocksize };
}

function readI32(bytes: Uint8Array, at: number): number {
  return bytes[at]! | (bytes[at + 1]! << 8) | (bytes[at + 2]! << 16) | (bytes[at + 3]! << 24);
}

/**
 * Walk every BloscLZ stream of a chunk with the grammar of format-facts 2.1 and return the
 * number of compressed (non-raw) streams; throws if one ends with a match or is malformed.
 */
function checkBlosclzStreams(chunk: Uint8Array): number {
  const header = readChunkHeader(chunk);
  if (header.memcpyed || header.nbytes === 0 || header.codec !== "blosclz") return 0;
  const nblocks = Math.ceil(header.nbytes / header.blocksize);
  const leftover = header.nbytes % header.blocksize;
  let streams = 0;
  for (let j = 0; j < nblocks; j++) {
    const isLeftover = j === nblocks - 1 && leftover > 0;
    const bsize = isLeftover ? leftover : header.blocksize;
    const nsplits = splitCount(header, bsize, isLeftover);
    const neblock = Math.floor(bsize / nsplits);
    let pos = readI32(chunk, 16 + 4 * j);
    for (let s = 0; s < nsplits; s++) {
      const csize = readI32(chunk, pos);
      pos += 4;
      if (csize !== neblock) {
        const stream = chunk.subarray(pos, pos + csize);
        let ip = 1;
        let ctrl = stream[0]! & 31;
        for (;;) {
          if (ctrl < 32) {
            ip += ctrl + 1;
            if (ip > stream.length) throw new Error(`literal run past the stream end (block ${j}, split ${s})`);
            if (ip === stream.length) break;
          } else {
            if (ctrl >> 5 === 7) {
              let e: number;
              do e = stream[ip++]!;
              while (e === 255);
            }
            const d = stream[ip++]!;
            if ((ctrl & 31) === 31 && d === 255) ip += 2;
            if (ip >= stream.length) throw new Error(`stream ends with a match (block ${j}, split ${s})`);
          }
          ctrl = stream[ip++]!;
        }
        streams++;
      }
      pos += csize;
    }
  }
  return streams;
}

function checkChunk(chunk: Uint8Array, data: Uint8Array, c: Case): void {
  expect(chunk.length).toBeLessThanOrEqual(data.length + 16);
  const header = readChunkHeader(chunk);
  expect(header.nbytes).toBe(data.length);
  expect(header.cbytes).toBe(chunk.length);
  expect(header.typesize).toBe(c.typesize > 255 ? 1 : c.typesize);
  expect(header.shuffle).toBe(c.shuffle);
  if (c.clevel === 0 || data.length < 128) expect(header.memcpyed).toBe(true);
  const back = decompress(chunk);
  expect(back.length).toBe(data.length);
  expect(Buffer.from(back).equals(Buffer.from(data))).toBe(true);
  checkBlosclzStreams(chunk);
}

describe("compress round trips", () => {
  beforeAll(async () => {
    await initZstd();
  });

  for (const backend of ["wasm", "js"] as const satisfies readonly CodecBackend[]) {
    it(`our decoder returns the input (${backend} backend, property)`, () => {
      setCodecBackend(backend);
      try {
        fc.assert(
          fc.property(caseArb, (c) => {
            const data = makeData(c);
            checkChunk(compress(data, optionsOf(c)), data, c);
          }),
          { numRuns: 250 },
        );
      } finally {
        setCodecBackend("auto");
      }
    }, 300_000);
  }

  it("real c-blosc 1.21.3 decodes >= 500 chunks from both backends", () => {
    const cases = fc.sample(caseArb, { numRuns: 300, seed: 0x5eed });
    const jobs: DecompressJob[] = [];
    let blosclzStreams = 0;
    for (const backend of ["wasm", "js"] as const) {
      setCodecBackend(backend);
      for (const c of cases) {
        const data = makeData(c);
        const chunk = compress(data, optionsOf(c));
        checkChunk(chunk, data, c);
        blosclzStreams += checkBlosclzStreams(chunk);
        jobs.push({ op: "decompress", chunk, expected: data });
      }
    }
    setCodecBackend("auto");
    expect(jobs.length).toBeGreaterThanOrEqual(500);
    expect(blosclzStreams).toBeGreaterThan(0);
    const { version, results } = runCblosc(jobs);
    expect(version).toMatch(/^1\.21\./);
    const failed = results.filter((r) => !r.ok).map((r) => ({ ...r, case: cases[r.id % cases.length] }));
    expect(failed).toEqual([]);
    expect(results.length).toBe(jobs.length);
  }, 600_000);

  it("numcodecs' WebAssembly c-blosc decodes our chunks (property)", async () => {
    const codec = new Blosc(5, "lz4", 1, 0);
    await fc.assert(
      fc.asyncProperty(caseArb, fc.constantFrom<CodecBackend>("wasm", "js"), async (c, backend) => {
        setCodecBackend(backend);
        const data = makeData(c);
        const chunk = compress(data, optionsOf(c));
        setCodecBackend("auto");
        const back = await codec.decode(chunk);
        expect(back.length).toBe(data.length);
        expect(Buffer.from(back).equals(Buffer.from(data))).toBe(true);
      }),
      { numRuns: 200 },
    );
  }, 300_000);

  it("compressInto writes compress's chunk into a reused buffer, which c-blosc decodes; nothing past nbytes + 16 (property)", async () => {
    const codec = new Blosc(5, "lz4", 1, 0);
    // One dirty buffer for every case, as a writer reuses it; the chunk lands at an offset in it.
    const arena = new Uint8Array(300_000 + 16 + 64).fill(0xa5);
    await fc.assert(
      fc.asyncProperty(caseArb, fc.constantFrom<CodecBackend>("wasm", "js"), fc.integer({ min: 0, max: 40 }), async (c, backend, at) => {
        setCodecBackend(backend);
        const data = makeData(c);
        let chunk: Uint8Array;
        let expected: Uint8Array;
        const room = arena.subarray(at, at + data.length + 16 + 8);
        room.fill(0x5a, data.length + 16);
        try {
          expected = compress(data, optionsOf(c));
          const cbytes = compressInto(data, optionsOf(c), room);
          chunk = room.subarray(0, cbytes);
        } finally {
          setCodecBackend("auto");
        }
        expect(chunk.length).toBeLessThanOrEqual(data.length + 16);
        expect(Buffer.from(chunk).equals(Buffer.from(expected))).toBe(true);
        expect(room.subarray(data.length + 16).every((b) => b === 0x5a)).toBe(true);
        const back = await codec.decode(chunk.slice());
        expect(Buffer.from(back).equals(Buffer.from(data))).toBe(true);
      }),
      { numRuns: 200, seed: 20261127 },
    );
  }, 300_000);

  it("compressTransient gives compress's chunk behind free headroom, undefined exactly where the kernels do not make it (property)", async () => {
    const codec = new Blosc(5, "lz4", 1, 0);
    await fc.assert(
      fc.asyncProperty(caseArb, fc.constantFrom<CodecBackend>("wasm", "js", "auto"), fc.integer({ min: 0, max: 40 }), async (c, backend, headroom) => {
        setCodecBackend(backend);
        const data = makeData(c);
        let expected: Uint8Array;
        let got: Uint8Array | undefined;
        try {
          expected = compress(data, optionsOf(c));
          const chunk = compressTransient(data, optionsOf(c), headroom);
          if (chunk !== undefined) {
            // The headroom is the caller's: writing it leaves the chunk as it was.
            new Uint8Array(chunk.buffer, chunk.byteOffset - headroom, headroom).fill(0xee);
            got = chunk.slice();
          }
        } finally {
          setCodecBackend("auto");
        }
        const memcpyed = (expected[2]! & 0x02) !== 0;
        const inKernels = backend !== "js" && (c.cname === "blosclz" || c.cname === "lz4" || (c.cname === "lz4hc" && backend === "wasm"));
        expect(got !== undefined).toBe(inKernels && !memcpyed);
        if (got === undefined) return;
        expect(Buffer.from(got).equals(Buffer.from(expected))).toBe(true);
        const back = await codec.decode(got);
        expect(Buffer.from(back).equals(Buffer.from(data))).toBe(true);
      }),
      { numRuns: 200, seed: 20261129 },
    );
  }, 300_000);

  it("compressTransient refuses a headroom that is negative, fractional or over 64 KiB", () => {
    const data = new Uint8Array(1000).map((_, i) => i % 7);
    for (const headroom of [-1, 1.5, Number.NaN, 65537, 2 ** 31]) {
      expect(() => compressTransient(data, { typesize: 1, clevel: 5, shuffle: 1, cname: "lz4" }, headroom)).toThrow(/headroom must be an integer in 0\.\.65536/);
    }
  });

  it("a chunk over 4 MiB is encoded block by block in the kernels: same bytes as compressInto, c-blosc decodes it, no transient chunk", async () => {
    const data = makeData({ kind: "f8-walk", size: 5 * 1024 * 1024 + 24, seed: 5, typesize: 8, cname: "lz4", shuffle: 1, clevel: 5, blocksize: 0, offset: 0 });
    const options: CompressOptions = { typesize: 8, clevel: 5, shuffle: 1, cname: "lz4" };
    const chunk = compress(data, options);
    const room = new Uint8Array(data.length + 16);
    expect(Buffer.from(room.subarray(0, compressInto(data, options, room))).equals(Buffer.from(chunk))).toBe(true);
    expect(chunk.length).toBeLessThan(data.length);
    expect(compressTransient(data, options)).toBeUndefined();
    const back = await new Blosc(5, "lz4", 1, 0).decode(chunk);
    expect(Buffer.from(back).equals(Buffer.from(data))).toBe(true);
  });

  it("compressInto refuses a buffer shorter than nbytes + 16 and leaves it alone", () => {
    const data = new Uint8Array(1000).map((_, i) => i % 7);
    const room = new Uint8Array(1015).fill(9);
    expect(() => compressInto(data, { typesize: 1, clevel: 5, shuffle: 1, cname: "lz4" }, room)).toThrow(/out must hold data.length \+ 16 bytes/);
    expect(room.every((b) => b === 9)).toBe(true);
  });
});
