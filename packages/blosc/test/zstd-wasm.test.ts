// The WebAssembly sequence kernel (src/zstd-wasm.ts, wasm/zstd_seq.c) against the TypeScript
// executor of src/zstd.ts, differentially: on streams libzstd wrote (every level, data with short
// and long matches, literals near the block's end) and on the same streams cut short or with bytes
// changed, both give the same bytes, or the same error (code, field, message, numbers), and the
// same count of sequences run.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { FormatError } from "@fmt/errors";
import { loadWasmKernels } from "../src/wasm/index.js";
import { decodeZstd, type ZstdWork } from "../src/zstd.js";
import { decodeHuffmanStream, type Fail, type HuffmanTable } from "../src/zstd-entropy.js";
import { decodeZstdWithKernels } from "../src/zstd-wasm.js";
import { loadZstdEncoder } from "../src/zstd-encode.js";
import { prng } from "./compress-oracle.js";

const kernels = loadWasmKernels()!;

function data(n: number, seed: number): Uint8Array {
  const out = new Uint8Array(n);
  const rand = prng(seed);
  for (let i = 0; i < n; ) {
    const kind = rand();
    const len = 1 + Math.floor(rand() * (kind < 0.1 ? 2000 : 60));
    for (let k = 0; k < len && i < n; k++, i++) {
      if (kind < 0.3) out[i] = Math.floor(rand() * 256);
      else if (kind < 0.45) out[i] = i > 0 ? out[i - 1]! : 0; // runs (offset 1)
      else if (kind < 0.7) out[i] = i >= 5 ? out[i - 5]! : 1; // short periods (offsets < 16)
      else out[i] = i >= 300 ? out[i - 300]! : 2; // far copies
    }
  }
  return out;
}

type Outcome = { ok: true; bytes: Uint8Array; sequences: number } | { ok: false; error: string; sequences: number };

function outcome(run: (dst: Uint8Array, work: ZstdWork) => void, n: number): Outcome {
  const dst = new Uint8Array(n);
  const work: ZstdWork = { sequences: 0 };
  try {
    run(dst, work);
    return { ok: true, bytes: dst, sequences: work.sequences };
  } catch (e) {
    if (!(e instanceof FormatError)) throw e;
    return { ok: false, error: JSON.stringify({ code: e.code, message: e.message, field: e.field, expected: e.expected, actual: e.actual }), sequences: work.sequences };
  }
}

function same(stream: Uint8Array, n: number): Outcome {
  const ts = outcome((dst, work) => decodeZstd(stream, dst, "x", work), n);
  const wasm = outcome((dst, work) => decodeZstdWithKernels(stream, dst, kernels, "x", work), n);
  expect(wasm).toEqual(ts);
  return ts;
}

describe("zstd sequences in WebAssembly", () => {
  it("decode libzstd's streams exactly as the TypeScript executor (property)", async () => {
    const encoder = await loadZstdEncoder();
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 120_000 }), fc.integer(), fc.integer({ min: 1, max: 12 }), (n, seed, level) => {
        const source = data(n, seed);
        const result = same(encoder.compress(source, level), n);
        expect(result.ok && Buffer.from(result.bytes).equals(Buffer.from(source))).toBe(true);
      }),
      { numRuns: 40 },
    );
  });

  it("fail where and as the TypeScript executor fails, on cut and changed streams (property)", async () => {
    const encoder = await loadZstdEncoder();
    const streams = [1, 3, 9, 19].map((level, k) => {
      const source = data(6000 + 3000 * k, 100 + k);
      return { source, stream: encoder.compress(source, level) };
    });
    const seen = new Set<string>();
    fc.assert(
      fc.property(fc.nat(), fc.nat(), fc.integer({ min: 1, max: 255 }), fc.integer({ min: 0, max: 7 }), (which, at, flip, mode) => {
        const cut = mode === 0;
        const { source, stream } = streams[which % streams.length]!;
        const bad = cut ? stream.subarray(0, at % stream.length) : stream.slice();
        // Half of the changes fall in the last tenth of the stream, where the last block's
        // sequence bit stream lies (a sequence section ends its block).
        const where = mode >= 4 ? bad.length - 1 - (at % Math.ceil(bad.length / 10)) : at % bad.length;
        if (!cut) bad[where]! ^= flip;
        const result = same(bad, source.length);
        seen.add(result.ok ? "ok" : (JSON.parse(result.error) as { message: string }).message.replace(/\(.*\)/, ""));
      }),
      { numRuns: 800 },
    );
    // The mutations reach the sequence checks, not only the frame and table parsing.
    // The changes reach the kernel's own checks, not only the frame and table parsing.
    const kernelChecks = ["sequence bit stream ends early", "sequence uses more literals", "sequence writes past the block's room", "match offset reaches before", "not consumed exactly"];
    expect(kernelChecks.filter((reason) => [...seen].some((m) => m.includes(reason))).length).toBeGreaterThanOrEqual(2);
  });

  it("decode Huffman literal streams exactly as decodeHuffmanStream, whole and changed (property)", async () => {
    // Literal-heavy data: bytes with a skewed distribution and few repeats, so that libzstd codes
    // them as Huffman literals, in four streams once a block's literals pass 1 KiB.
    const encoder = await loadZstdEncoder();
    const skewed = (n: number, seed: number): Uint8Array => {
      const rand = prng(seed);
      return Uint8Array.from({ length: n }, () => Math.floor(256 * rand() ** 3));
    };
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 60_000 }), fc.integer(), fc.integer({ min: 1, max: 12 }), (n, seed, level) => {
        const source = skewed(n, seed);
        const result = same(encoder.compress(source, level), n);
        expect(result.ok && Buffer.from(result.bytes).equals(Buffer.from(source))).toBe(true);
      }),
      { numRuns: 30 },
    );
    const streams = [1, 5, 9].map((level, k) => {
      const source = skewed(10_000 + 15_000 * k, 300 + k);
      return { source, stream: encoder.compress(source, level) };
    });
    const seen = new Set<string>();
    fc.assert(
      fc.property(fc.nat(), fc.nat(), fc.integer({ min: 1, max: 255 }), (which, at, flip) => {
        const { source, stream } = streams[which % streams.length]!;
        const bad = stream.slice();
        // Past the frame header, where the literals sections (most of these streams) lie.
        bad[8 + (at % (bad.length - 8))]! ^= flip;
        const result = same(bad, source.length);
        seen.add(result.ok ? "ok" : (JSON.parse(result.error) as { message: string }).message.replace(/\(.*\)/, ""));
      }),
      { numRuns: 300 },
    );
    expect([...seen].some((m) => m.includes("Huffman literal stream not consumed exactly"))).toBe(true);
  });

  it("the literal kernels write the bytes and leave the bits decodeHuffmanStream does, stream by stream, valid or not (property)", () => {
    // Tables and streams made up directly, so that every stream can end with bits left over or
    // missing, alone or with the others, and literal counts need not divide by four: what a
    // corrupt section can hold. Compared: every output byte (also of failing streams) and each
    // stream's bits left.
    const table = fc.integer({ min: 1, max: 11 }).chain((maxBits) =>
      fc.record({
        maxBits: fc.constant(maxBits),
        symbol: fc.uint8Array({ minLength: 1 << maxBits, maxLength: 1 << maxBits }),
        bits: fc.array(fc.integer({ min: 1, max: maxBits }), { minLength: 1 << maxBits, maxLength: 1 << maxBits }).map((b) => Uint8Array.from(b)),
      }),
    );
    const stream = fc.uint8Array({ minLength: 1, maxLength: 600, size: "max" }).map((b) => {
      if (b[b.length - 1] === 0) b[b.length - 1] = 1 + (b.length % 255); // an end marker
      return b;
    });
    const bitsLeft = (src: Uint8Array, start: number, end: number, t: HuffmanTable, out: Uint8Array, from: number, to: number): number => {
      let left = 0;
      const record = ((_field: string, _reason: string, _expected?: unknown, actual?: unknown) => {
        left = actual as number;
      }) as unknown as Fail;
      decodeHuffmanStream(src, start, end, t, out, from, to, record);
      return left;
    };
    fc.assert(
      fc.property(table, fc.array(stream, { minLength: 4, maxLength: 4 }), fc.integer({ min: 0, max: 800 }), fc.nat(3), fc.nat(40), (t, parts, segment, short, at) => {
        const src = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
        const bounds = [0];
        let offset = 0;
        for (const p of parts) {
          src.set(p, offset);
          offset += p.length;
          bounds.push(offset);
        }
        const base = at;
        const end = base + 4 * segment - Math.min(short, segment);
        const dstLength = end + 8;
        const expected = new Uint8Array(dstLength);
        const expectedLeft = [0, 1, 2, 3].map((k) => bitsLeft(src, bounds[k]!, bounds[k + 1]!, t, expected, base + k * segment, k === 3 ? end : base + (k + 1) * segment));
        const arena = kernels.zstdArena(src, dstLength);
        expect(arena.huffman4(bounds, t, base, segment, end)).toEqual(expectedLeft);
        expect(Buffer.from(arena.dst.subarray(base, end)).equals(Buffer.from(expected.subarray(base, end)))).toBe(true);
        // The one-stream kernel on stream 0 alone.
        const single = kernels.zstdArena(src, dstLength);
        const alone = new Uint8Array(dstLength);
        expect(single.huffman(bounds[0]!, bounds[1]!, t, base, base + segment)).toBe(bitsLeft(src, bounds[0]!, bounds[1]!, t, alone, base, base + segment));
        expect(Buffer.from(single.dst.subarray(base, base + segment)).equals(Buffer.from(alone.subarray(base, base + segment)))).toBe(true);
      }),
      { seed: 20261129, numRuns: 3000 },
    );
  });
});
