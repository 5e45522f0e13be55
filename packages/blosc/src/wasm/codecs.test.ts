// The wasm LZ4 / BloscLZ kernels and the whole-block entry points, checked against hand-derived
// examples (format-facts 2.4, 1.15 D) and against real c-blosc 1.21.3 (Debian python3-blosc at
// /usr/bin/python3): c-blosc encodes and we decode; we encode and c-blosc decodes. All oracle work
// runs in one batched Python process per direction.
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { beforeAll, describe, expect, it } from "vitest";
import fc from "fast-check";
import { FormatError } from "@fmt/errors";
import { loadWasmKernels, sharedShift, type WasmCodecName } from "./index.js";

const kernels = loadWasmKernels()!;
const PYTHON = "/usr/bin/python3";

const ORACLE = String.raw`
import sys, json, base64, blosc
blosc.set_nthreads(1)
req = json.load(sys.stdin)
out = {"compressed": [], "decompressed": []}
for c in req.get("compress", []):
    data = base64.b64decode(c["data"])
    blosc.set_blocksize(c.get("blocksize", 0))
    out["compressed"].append(base64.b64encode(blosc.compress(data, typesize=c["typesize"], clevel=c["clevel"], shuffle=c["shuffle"], cname=c["cname"])).decode())
blosc.set_blocksize(0)
for d in req.get("decompress", []):
    try:
        out["decompressed"].append(base64.b64encode(blosc.decompress(base64.b64decode(d))).decode())
    except Exception as e:
        out["decompressed"].append({"error": str(e)})
json.dump(out, sys.stdout)
`;

interface CompressSpec { data: Uint8Array; typesize: number; clevel: number; shuffle: 0 | 1 | 2; cname: string; blocksize?: number }

function runOracle(compress: CompressSpec[], decompress: Uint8Array[]): { compressed: Uint8Array[]; decompressed: (Uint8Array | string)[] } {
  const b64 = (u: Uint8Array): string => Buffer.from(u).toString("base64");
  const request = JSON.stringify({
    compress: compress.map((c) => ({ ...c, data: b64(c.data) })),
    decompress: decompress.map(b64),
  });
  const r = spawnSync(PYTHON, ["-c", ORACLE], { input: request, maxBuffer: 1 << 30, encoding: "utf8" });
  if (r.status !== 0) throw new Error(`python oracle failed: ${r.stderr}`);
  const res = JSON.parse(r.stdout) as { compressed: string[]; decompressed: (string | { error: string })[] };
  return {
    compressed: res.compressed.map((s) => new Uint8Array(Buffer.from(s, "base64"))),
    decompressed: res.decompressed.map((d) => (typeof d === "string" ? new Uint8Array(Buffer.from(d, "base64")) : d.error)),
  };
}

function rng(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 4294967296;
  };
}

/** Deterministic data of the shapes codecs care about. */
function makeData(kind: number, length: number, seed: number): Uint8Array {
  const rnd = rng(seed);
  const out = new Uint8Array(length);
  switch (kind % 6) {
    case 0: // incompressible
      for (let i = 0; i < length; i++) out[i] = (rnd() * 256) | 0;
      break;
    case 1: // runs
      for (let i = 0; i < length; ) {
        const v = (rnd() * 256) | 0;
        const n = 1 + ((rnd() * rnd() * 700) | 0);
        for (let k = 0; k < n && i < length; k++) out[i++] = v;
      }
      break;
    case 2: // small alphabet plus copies of earlier text, near and far
      for (let i = 0; i < length; ) {
        if (i > 16 && rnd() < 0.6) {
          const d = 1 + ((rnd() * Math.min(i - 1, rnd() < 0.3 ? 80000 : 300)) | 0);
          const n = 3 + ((rnd() * rnd() * 300) | 0);
          for (let k = 0; k < n && i < length; k++, i++) out[i] = out[i - d]!;
        } else {
          out[i++] = 97 + ((rnd() * 6) | 0);
        }
      }
      break;
    case 3: { // float64 random walk
      const n = Math.floor(length / 8);
      const f = new Float64Array(n);
      let x = 100;
      for (let i = 0; i < n; i++) f[i] = x += rnd() - 0.5;
      out.set(new Uint8Array(f.buffer));
      break;
    }
    case 4: // zeros with a little noise
      for (let i = 0; i < length; i++) if (rnd() < 0.001) out[i] = (rnd() * 256) | 0;
      break;
    default: { // int32 counter
      const v = new DataView(out.buffer);
      for (let i = 0; i + 4 <= length; i += 4) v.setInt32(i, (i / 4) * 3 + seed, true);
    }
  }
  return out;
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function encodeStream(codec: WasmCodecName, data: Uint8Array, level: number, maxOutput?: number): Uint8Array | undefined {
  return kernels.encodeStream(codec, data, level, maxOutput);
}

function decodeStream(codec: WasmCodecName, stream: Uint8Array, length: number): Uint8Array {
  const out = new Uint8Array(length);
  if (codec === "blosclz") kernels.decodeBlosclz(stream, out);
  else kernels.decodeLz4(stream, out);
  return out;
}

/** One-block, one-stream chunk around a codec stream (format-facts 1.1-1.3), typesize 1. */
function wrapStream(stream: Uint8Array, nbytes: number, formatCode: number): Uint8Array {
  const chunk = new Uint8Array(24 + stream.length);
  const v = new DataView(chunk.buffer);
  chunk.set([2, 1, (formatCode << 5) | 0x10, 1]);
  v.setInt32(4, nbytes, true);
  v.setInt32(8, nbytes, true);
  v.setInt32(12, chunk.length, true);
  v.setInt32(16, 20, true);
  v.setInt32(20, stream.length, true);
  chunk.set(stream, 24);
  return chunk;
}

/** A multi-block chunk built with encodeBlock, split per the c-blosc 1.14+ rules (1.6). */
function buildChunk(data: Uint8Array, typesize: number, shuffle: 0 | 1 | 2, codec: WasmCodecName, clevel: number, wantedBlocksize: number): Uint8Array {
  const nbytes = data.length;
  // Like c-blosc's compute_blocksize: never larger than the data (the decoder rejects that).
  let blocksize = Math.min(wantedBlocksize, nbytes);
  if (blocksize > typesize) blocksize -= blocksize % typesize;
  const nblocks = Math.ceil(nbytes / blocksize);
  const leftover = nbytes % blocksize;
  const dontSplit = !(typesize <= 16 && Math.floor(blocksize / typesize) >= 128);
  const formatCode = codec === "blosclz" ? 0 : 1;
  const flags = (shuffle === 1 ? 1 : 0) | (shuffle === 2 ? 4 : 0) | (dontSplit ? 0x10 : 0) | (formatCode << 5);
  const bodies: Uint8Array[] = [];
  for (let j = 0; j < nblocks; j++) {
    const isLeftover = leftover !== 0 && j === nblocks - 1;
    const block = data.subarray(j * blocksize, isLeftover ? nbytes : (j + 1) * blocksize);
    const nsplits = !dontSplit && !isLeftover && Math.floor(block.length / typesize) >= 128 ? typesize : 1;
    bodies.push(kernels.encodeBlock(block, { typesize, nsplits, codec, shuffle, clevel }));
  }
  const total = 16 + 4 * nblocks + bodies.reduce((a, b) => a + b.length, 0);
  const chunk = new Uint8Array(total);
  const v = new DataView(chunk.buffer);
  chunk.set([2, 1, flags, typesize]);
  v.setInt32(4, nbytes, true);
  v.setInt32(8, blocksize, true);
  v.setInt32(12, total, true);
  let pos = 16 + 4 * nblocks;
  bodies.forEach((b, j) => {
    v.setInt32(16 + 4 * j, pos, true);
    chunk.set(b, pos);
    pos += b.length;
  });
  return chunk;
}

const CODECS: WasmCodecName[] = ["blosclz", "lz4", "lz4hc"];

describe("wasm stream codecs: hand-derived examples", () => {
  it("decodes the BloscLZ example of format-facts 2.4", () => {
    expect(decodeStream("blosclz", new Uint8Array([0x20, 0x00, 0xe0, 0xf5, 0x00, 0x00, 0x00]), 256)).toEqual(new Uint8Array(256));
  });

  it("decodes BloscLZ near and far distances of 2.4 (61 2B, 9F FF 03 28, FF 0B FF 07 10)", () => {
    // 300 literal bytes, then a length-5 match at distance 300, then a final literal.
    const lits = makeData(0, 300, 3);
    const parts: number[] = [];
    for (let i = 0; i < 300; i += 30) parts.push(29, ...lits.subarray(i, i + 30));
    parts.push(0x61, 0x2b, 0, 0x55);
    const out = decodeStream("blosclz", new Uint8Array(parts), 306);
    expect(out.subarray(0, 300)).toEqual(lits);
    expect(out.subarray(300, 305)).toEqual(lits.subarray(0, 5));
    expect(out[305]).toBe(0x55);
    // 10000 literal bytes, a far length-6 match at 9000 and a far length-20 match at 10000.
    const big = makeData(0, 10000, 4);
    const p2: number[] = [];
    for (let i = 0; i < 10000; i += 32) {
      const run = big.subarray(i, Math.min(i + 32, 10000));
      p2.push(run.length - 1, ...run);
    }
    p2.push(0x9f, 0xff, 0x03, 0x28, 0xff, 0x0b, 0xff, 0x07, 0x10, 0, 0x11);
    const out2 = decodeStream("blosclz", new Uint8Array(p2), 10027);
    expect(out2.subarray(10000, 10006)).toEqual(big.subarray(1000, 1006));
    expect(out2.subarray(10006, 10026)).toEqual(out2.subarray(6, 26));
    expect(out2[10026]).toBe(0x11);
  });

  it("accepts a BloscLZ stream ending in a match, like c-blosc 1.14", () => {
    expect(decodeStream("blosclz", new Uint8Array([0x00, 0x07, 0x20, 0x00]), 4)).toEqual(new Uint8Array([7, 7, 7, 7]));
  });

  it("decodes the LZ4 example of format-facts 1.15 D", () => {
    const stream = new Uint8Array([0x3c, 0x61, 0x62, 0x63, 0x03, 0x00, 0x50, 0x62, 0x63, 0x61, 0x62, 0x63]);
    expect(new TextDecoder().decode(decodeStream("lz4", stream, 24))).toBe("abc".repeat(8));
  });

  it("rejects wrong output lengths, zero distances and truncation with FormatError CORRUPT_STREAM", () => {
    const lz4 = new Uint8Array([0x3c, 0x61, 0x62, 0x63, 0x03, 0x00, 0x50, 0x62, 0x63, 0x61, 0x62, 0x63]);
    for (const [stream, length] of [
      [lz4, 23],
      [lz4, 25],
      [lz4.subarray(0, 11), 24],
      [new Uint8Array([0x3c, 0x61, 0x62, 0x63, 0x00, 0x00, 0x50, 0x62, 0x63, 0x61, 0x62, 0x63]), 24],
      [new Uint8Array([0x3c, 0x61, 0x62, 0x63, 0x03, 0x00]), 19],
      [new Uint8Array([]), 1],
    ] as const) {
      expect(() => decodeStream("lz4", stream, length)).toThrow(FormatError);
      try {
        decodeStream("lz4", stream, length);
      } catch (e) {
        expect((e as FormatError).code).toBe("CORRUPT_STREAM");
      }
    }
    expect(() => decodeStream("blosclz", new Uint8Array([0x20, 0x00, 0x20, 0x01, 0x00, 0x00]), 6)).toThrow(FormatError); // distance 2 > 1 produced
    expect(() => decodeStream("blosclz", new Uint8Array([0x21, 0x00]), 2)).toThrow(FormatError); // literal run past the input
  });
});

describe("wasm stream codecs: round trip", () => {
  it("every encoder's stream decodes back to its input", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...CODECS),
        fc.integer({ min: 0, max: 5 }),
        fc.oneof(fc.integer({ min: 1, max: 300 }), fc.integer({ min: 1, max: 100_000 })),
        fc.integer(),
        fc.integer({ min: 1, max: 9 }),
        (codec, kind, length, seed, level) => {
          const data = makeData(kind, length, seed);
          const stream = encodeStream(codec, data, level, data.length + Math.ceil(data.length / 32) + 16);
          expect(stream).toBeDefined();
          expect(sameBytes(decodeStream(codec, stream!, length), data)).toBe(true);
        },
      ),
      { numRuns: 200 },
    );
  });

  it("returns undefined when the stream would not fit the limit", () => {
    const noise = makeData(0, 5000, 1);
    for (const codec of CODECS) expect(encodeStream(codec, noise, 5)).toBeUndefined();
    for (const codec of CODECS) expect(encodeStream(codec, new Uint8Array(5000), 5, 10)).toBeUndefined();
  });
});

describe("wasm chunk encoder", () => {
  it("encodeChunkTransient lays out the blocks buildChunk assembles from encodeBlock, behind its headroom; undefined past nbytes + 16 (property)", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...CODECS),
        fc.integer({ min: 0, max: 5 }),
        fc.oneof(fc.integer({ min: 1, max: 2000 }), fc.integer({ min: 1, max: 200_000 })),
        fc.integer(),
        fc.constantFrom(1, 2, 4, 8, 3, 16, 24),
        fc.constantFrom<0 | 1 | 2>(0, 1, 2),
        fc.oneof(fc.constant(128), fc.integer({ min: 64, max: 70_000 })),
        fc.integer({ min: 0, max: 64 }),
        (codec, kind, length, seed, typesize, shuffle, wantedBlocksize, headroom) => {
          const data = makeData(kind, length, seed);
          const expected = buildChunk(data, typesize, shuffle, codec, 5, wantedBlocksize);
          const blocksize = expected[8]! | (expected[9]! << 8) | (expected[10]! << 16) | (expected[11]! << 24);
          const dontSplit = (expected[2]! & 0x10) !== 0;
          const region = kernels.encodeChunkTransient(data, { blocksize, typesize, nsplits: dontSplit ? 1 : typesize, codec, shuffle, clevel: 5 }, headroom);
          if (expected.length > data.length + 16) {
            expect(region).toBeUndefined();
            return;
          }
          expect(region).toBeDefined();
          expect(region!.length).toBe(headroom + expected.length);
          // The header is the caller's; everything after it is the chunk's.
          expect(sameBytes(region!.subarray(headroom + 16), expected.subarray(16))).toBe(true);
        },
      ),
      { numRuns: 300, seed: 20261129 },
    );
  });
});

describe("wasm kernels against real c-blosc 1.21.3", () => {
  interface Case { data: Uint8Array; typesize: number; clevel: number; shuffle: 0 | 1 | 2; cname: string; blocksize?: number }
  const streamCases: Case[] = [];
  const chunkCases: Case[] = [];
  let fromCblosc: Uint8Array[] = [];
  beforeAll(() => {
    const rnd = rng(2024);
    for (const cname of ["blosclz", "lz4", "lz4hc"]) {
      for (let k = 0; k < 40; k++) {
        const length = 128 + ((rnd() * rnd() * 40000) | 0);
        streamCases.push({ data: makeData(k, length, k * 31 + 5), typesize: 1, clevel: 1 + (k % 9), shuffle: 0, cname });
      }
      for (let k = 0; k < 24; k++) {
        const typesize = [1, 2, 4, 8, 16, 3, 12, 24, 40][k % 9]!;
        const length = typesize * ((rnd() * 60000) | 0) + (k % 3 === 0 ? (k % typesize) : 0);
        const blocksize = k % 2 === 0 ? typesize * 512 : 0;
        chunkCases.push({ data: makeData(k + 2, length, k), typesize, clevel: 1 + (k % 9), shuffle: (k % 3) as 0 | 1 | 2, cname, blocksize });
      }
    }
    for (const cname of ["zlib", "zstd"]) chunkCases.push({ data: makeData(3, 50000, 9), typesize: 8, clevel: 5, shuffle: 1, cname });
    fromCblosc = runOracle([...streamCases, ...chunkCases], []).compressed;
  });

  it("decodes single streams c-blosc wrote (typesize 1, no shuffle, one block)", () => {
    let decoded = 0;
    streamCases.forEach((c, i) => {
      const chunk = fromCblosc[i]!;
      const v = new DataView(chunk.buffer, chunk.byteOffset);
      if (chunk[2]! & 0x02) return; // memcpyed: nothing to decode
      expect(v.getInt32(8, true)).toBe(c.data.length); // one block
      const bstart = v.getInt32(16, true);
      const csize = v.getInt32(bstart, true);
      if (csize === c.data.length) return; // stored raw
      const stream = chunk.subarray(bstart + 4, bstart + 4 + csize);
      const out = decodeStream(c.cname === "blosclz" ? "blosclz" : "lz4", stream, c.data.length);
      expect(sameBytes(out, c.data)).toBe(true);
      decoded++;
    });
    expect(decoded).toBeGreaterThan(60);
  });

  it("decodes whole c-blosc chunks (shuffle, bitshuffle, splits, leftovers) with decodeChunk", () => {
    chunkCases.forEach((c, k) => {
      const chunk = fromCblosc[streamCases.length + k]!;
      const got = kernels.decodeChunk(chunk);
      if (c.cname === "zlib" || c.cname === "zstd") {
        expect(got).toBeUndefined();
        return;
      }
      expect(got).toBeDefined();
      expect(sameBytes(got!, c.data)).toBe(true);
      // A range of blocks decodes to the matching slice.
      const v = new DataView(chunk.buffer, chunk.byteOffset);
      const blocksize = v.getInt32(8, true);
      const nblocks = Math.ceil(c.data.length / blocksize);
      if (nblocks > 2) {
        const part = kernels.decodeChunk(chunk, { firstBlock: 1, endBlock: nblocks })!;
        expect(sameBytes(part, c.data.subarray(blocksize))).toBe(true);
      }
    });
  });

  it("c-blosc decodes our streams and our encodeBlock chunks", () => {
    const rnd = rng(77);
    const expected: Uint8Array[] = [];
    const chunks: Uint8Array[] = [];
    const labels: string[] = [];
    for (const codec of CODECS) {
      for (let k = 0; k < 40; k++) {
        const length = 1 + ((rnd() * rnd() * 70000) | 0);
        const data = makeData(k, length, k * 7 + 1);
        const stream = encodeStream(codec, data, 1 + (k % 9));
        if (stream === undefined) continue;
        chunks.push(wrapStream(stream, length, codec === "blosclz" ? 0 : 1));
        expected.push(data);
        labels.push(`${codec} stream kind ${k} length ${length}`);
      }
      for (let k = 0; k < 18; k++) {
        const typesize = [1, 2, 4, 8, 16, 3, 7, 20, 33][k % 9]!;
        const length = typesize * (1 + ((rnd() * 50000) | 0)) + (k % 4 === 1 ? typesize - 1 : 0);
        const data = makeData(k + 1, length, k);
        const blocksize = typesize * (k % 2 === 0 ? 1024 : 4000);
        chunks.push(buildChunk(data, typesize, (k % 3) as 0 | 1 | 2, codec, 1 + (k % 9), blocksize));
        expected.push(data);
        labels.push(`${codec} chunk ${k} typesize ${typesize} length ${length}`);
      }
    }
    const { decompressed } = runOracle([], chunks);
    expect(decompressed.length).toBe(chunks.length);
    decompressed.forEach((d, i) => {
      expect(typeof d === "string" ? d : "ok", labels[i]).toBe("ok");
      expect(sameBytes(d as Uint8Array, expected[i]!)).toBe(true);
    });
    // And our own decoder agrees on the same chunks.
    chunks.forEach((chunk, i) => expect(sameBytes(kernels.decodeChunk(chunk)!, expected[i]!)).toBe(true));
  });
});

describe("wasm kernels on corrupt input", () => {
  const samples = CODECS.flatMap((codec) =>
    [0, 1, 2, 3, 5].map((kind) => {
      const data = makeData(kind, 3000, kind + 11);
      return { codec, data, stream: encodeStream(codec, data, 9, 4000)! };
    }),
  );

  it("mutated or truncated streams either decode or throw FormatError, never crash or hang", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: samples.length - 1 }),
        fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 8 }),
        fc.nat(),
        fc.integer({ min: 0, max: 2 }),
        (which, edits, cut, lengthDelta) => {
          const { codec, data, stream } = samples[which]!;
          const bad = stream.slice(0, stream.length - (cut % 4 === 0 ? cut % stream.length : 0));
          for (const [pos, value] of edits) if (bad.length > 0) bad[pos % bad.length] = value;
          try {
            const out = decodeStream(codec, bad, data.length + lengthDelta - 1);
            expect(out.length).toBe(data.length + lengthDelta - 1);
          } catch (e) {
            expect(e).toBeInstanceOf(FormatError);
          }
        },
      ),
      { numRuns: 3000 },
    );
  });

  it("mutated chunks either decode or throw FormatError from decodeChunk", () => {
    const data = makeData(3, 40000, 5);
    const chunks = CODECS.map((codec, i) => buildChunk(data, 8, (i % 3) as 0 | 1 | 2, codec, 5, 8192));
    fc.assert(
      fc.property(fc.integer({ min: 0, max: chunks.length - 1 }), fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 6 }), (which, edits) => {
        const bad = chunks[which]!.slice();
        // Keep nbytes/blocksize sane so allocations stay small; everything else may be garbage.
        for (const [pos, value] of edits) {
          const p = pos % bad.length;
          if (p >= 4 && p < 12) continue;
          bad[p] = value;
        }
        try {
          const out = kernels.decodeChunk(bad);
          if (out !== undefined) expect(out.length).toBeLessThanOrEqual(40000);
        } catch (e) {
          expect(e).toBeInstanceOf(FormatError);
        }
      }),
      { numRuns: 1500 },
    );
  });
});

describe("wasm kernels: saved regressions", () => {
  // Inputs fast-check once found; each must decode or fail with FormatError (never UsageError,
  // never a trap). conformance/corpus/regressions/wasm-blosc/*.bin are Blosc chunks.
  const dir = new URL("../../../../conformance/corpus/regressions/wasm-blosc/", import.meta.url);
  const files = readdirSync(dir).filter((f) => f.endsWith(".bin"));
  it("has saved inputs", () => expect(files.length).toBeGreaterThan(0));
  for (const file of files) {
    it(`replays ${file}`, () => {
      const chunk = new Uint8Array(readFileSync(new URL(file, dir)));
      let outcome = "decoded";
      try {
        kernels.decodeChunk(chunk);
      } catch (e) {
        expect(e).toBeInstanceOf(FormatError);
        outcome = "FormatError";
      }
      expect(["decoded", "FormatError"]).toContain(outcome);
    });
  }
});

describe("decodeStreamPrefix's window and the shared-memory placement", () => {
  it("returns exactly bytes [from, want) of the stream, and refuses a window outside the prefix (property)", () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 1, maxLength: 4096 }), fc.nat(), fc.nat(), (raw, a, b) => {
        // Runs of repeats, so that the stream has matches as well as literals.
        const data = raw.map((v, i) => (i % 7 < 5 ? i & 3 : v));
        const stream = kernels.encodeStream("lz4", data, 1, data.length * 2);
        fc.pre(stream !== undefined); // not shorter than the data: stored raw, not an lz4 stream
        const want = 1 + (a % data.length);
        const from = b % want;
        expect(Array.from(kernels.decodeStreamPrefix(1, stream, data.length, want, "s", true, from)!)).toEqual(Array.from(data.subarray(from, want)));
        expect(() => kernels.decodeStreamPrefix(1, stream, data.length, want, "s", true, want)).toThrow(/first wanted byte/);
      }),
      { numRuns: 300, seed: 16 },
    );
  });

  it("places copies at the shared side's offset modulo 8, and ordinary memory anywhere", () => {
    const shared = new SharedArrayBuffer(64);
    for (let offset = 0; offset < 24; offset++) {
      expect(sharedShift(new Uint8Array(shared, offset), 0)).toBe(offset % 8);
      expect(sharedShift(new Uint8Array(shared, offset), 3)).toBe((offset - 3) & 7);
      expect(sharedShift(new Uint8Array(new ArrayBuffer(64), offset), 0)).toBe(0);
    }
  });
});
