/**
 * zstd streams decoded with the WebAssembly kernels of wasm/zstd_seq.c: the stream and its output
 * live in the kernels' memory, src/zstd.ts parses frames, literals headers and tables as always,
 * and each block's sequences run in the sequence kernel instead of `executeSequences`, each
 * Huffman literal stream in the literals kernel instead of `decodeHuffmanStream` (literal-heavy
 * streams, such as byte planes of random floats, spent nine tenths of their time there). The
 * kernels make the same checks in the same order; their errors become the same `CORRUPT_STREAM`
 * errors, with the same fields and numbers.
 *
 * @example
 * ```ts
 * decodeZstdWithKernels(stream, out.subarray(0, neblock), kernels, "data/__0.blp");
 * ```
 * @module
 */
import type { WasmKernels } from "./wasm/index.js";
import { BackwardBits, decodeHuffmanStream } from "./zstd-entropy.js";
import { decodeZstd } from "./zstd.js";
import type { LiteralDecoder, SequenceExecutor, ZstdWork } from "./zstd.js";

/** Largest table accuracy the kernel's table room holds (2^9 entries; zstd allows at most 9). */
const MAX_ACCURACY = 9;

/**
 * {@link decodeZstd} with the sequences run in WebAssembly. Same result and errors. With
 * `unshuffleTypesize` the decoded bytes are byte-unshuffled (elements of that size) on their way
 * out, in module memory.
 *
 * @returns `dst.length`.
 * @example
 * ```ts
 * decodeZstdWithKernels(stream, out, kernels);
 * decodeZstdWithKernels(stream, block, kernels, path, undefined, 8); // a shuffled float64 block
 * ```
 */
export function decodeZstdWithKernels(src: Uint8Array, dst: Uint8Array, kernels: WasmKernels, path?: string, work?: ZstdWork, unshuffleTypesize?: number): number {
  const arena = kernels.zstdArena(src, dst.length, unshuffleTypesize === undefined ? 0 : dst.length);
  const run: SequenceExecutor = (s, start, end, nbSeq, ll, of, ml, literals, _dst, frameStart, blockStart, blockEnd, state, fail, counters) => {
    // The stream's own checks (empty, no end marker), as executeSequences makes them first.
    new BackwardBits(s, start, end, fail);
    if (ll.accuracy > MAX_ACCURACY || of.accuracy > MAX_ACCURACY || ml.accuracy > MAX_ACCURACY) {
      fail("zstd.sequences", "table accuracy above 9", "<= 9", Math.max(ll.accuracy, of.accuracy, ml.accuracy));
    }
    const r = arena.run(start, end, nbSeq, [ll, of, ml], literals, frameStart, blockStart, blockEnd, state.rep);
    if (counters !== undefined) counters.sequences += r.done;
    switch (r.code) {
      case 0:
        return { out: r.out, lit: r.lit };
      case 1:
        return fail("zstd.sequences", "sequence bit stream ends early", r.a, r.b);
      case 2:
        return fail("zstd.sequences", "sequence uses more literals than the block has", r.a, r.b);
      case 3:
        return fail("zstd.length", "sequence writes past the block's room", r.a, r.b);
      case 4:
        return fail("zstd.sequences", "match offset reaches before the frame's first byte", `1..${r.a}`, r.b);
      default:
        return fail("zstd.sequences", "sequence bit stream not consumed exactly", 0, r.b);
    }
  };
  const one: LiteralDecoder["one"] = (s, start, end, table, out, from, to, fail) => {
    // The kernel writes into the arena's output, which is what decodeZstd decodes into below.
    if (out !== arena.dst) return decodeHuffmanStream(s, start, end, table, out, from, to, fail);
    // The stream's own checks (empty, no end marker), as decodeHuffmanStream makes them first.
    new BackwardBits(s, start, end, fail);
    const left = arena.huffman(start, end, table, from, to);
    if (left !== 0) fail("zstd.literals", "Huffman literal stream not consumed exactly", 0, left);
  };
  const four: LiteralDecoder["four"] = (s, bounds, table, out, base, segment, end, fail) => {
    const streams = [0, 1, 2, 3].map((k) => ({ start: bounds[k]!, end: bounds[k + 1]!, from: base + k * segment, to: k === 3 ? end : base + (k + 1) * segment }));
    // Side by side only when no stream fails its own checks; otherwise one by one, so that the
    // first failure in stream order is the one reported, as decodeHuffmanStream's would be.
    if (out !== arena.dst || streams.some((t) => t.end <= t.start || s[t.end - 1] === 0)) {
      for (const t of streams) one(s, t.start, t.end, table, out, t.from, t.to, fail);
      return;
    }
    const left = arena.huffman4(bounds, table, base, segment, end);
    for (const bits of left) if (bits !== 0) fail("zstd.literals", "Huffman literal stream not consumed exactly", 0, bits);
  };
  const n = decodeZstd(arena.src, arena.dst, path, work, run, { one, four });
  if (unshuffleTypesize === undefined) dst.set(arena.dst);
  else arena.unshuffleInto(unshuffleTypesize, dst);
  return n;
}
