/**
 * Blosc 1.x chunk decoding (format-facts 1.3–1.13): memcpyed chunks, blocks located through
 * `bstarts`, split and unsplit blocks, raw streams, the five codecs, byte and bit unshuffle,
 * whole-chunk and partial (block-range) decoding.
 *
 * Everything that depends on the CPU (unshuffle kernels, codec stream decoders) goes through one
 * `BloscKernels` object so that a WebAssembly implementation can replace it without touching the
 * container logic.
 *
 * @example
 * ```ts
 * import { decompress } from "./decompress.js";
 * const values = new Float64Array(decompress(chunk, { maxBytes: 8 * chunklen }).buffer);
 * ```
 * @module
 */
import { BcolzError, FormatError, UsageError } from "@fmt/errors";
import { BLOSC_FLAGS, BLOSC_HEADER_SIZE, splitCount } from "@fmt/header";
import type { ChunkHeader, CodecFormat } from "@fmt/header";
import { checkStreams, planChunk, planChunkLazily, readI32, requirePlan } from "./plan.js";
import type { ChunkPlan, DecompressOptions } from "./plan.js";
import { decodeBlosclz } from "./codecs/blosclz.js";
import { decodeLz4 } from "./codecs/lz4.js";
import { decodeSnappy } from "./codecs/snappy.js";
import { bitunshuffle } from "./bitshuffle.js";
import { unshuffle } from "./shuffle.js";
import { decodeZlib, zlibDecoderOf, type ZlibCodec } from "./zlib.js";
import { decodeZstd } from "./zstd.js";
import { decodeZstdWithKernels } from "./zstd-wasm.js";
import { initWasmKernels, loadWasmKernels } from "./wasm/index.js";
import type { WasmKernels } from "./wasm/index.js";

/**
 * Decode one codec stream into exactly `dst.length` bytes; returns the count written and throws
 * `FormatError` CORRUPT_STREAM otherwise.
 *
 * @example
 * ```ts
 * const decode: StreamDecoder = decodeLz4;
 * ```
 */
export type StreamDecoder = (src: Uint8Array, dst: Uint8Array, path?: string) => number;

/**
 * The replaceable compute kernels of the decoder.
 *
 * @example
 * ```ts
 * setKernels({ ...getKernels(), unshuffle: wasmUnshuffle });
 * ```
 */
export interface BloscKernels {
  /** Undo the byte shuffle of a `size`-byte block from `src` into `dst` (no overlap). */
  unshuffle(src: Uint8Array, dst: Uint8Array, typesize: number, size: number): void;
  /** Undo the bit shuffle of a `size`-byte block from `src` into `dst` (no overlap). */
  bitunshuffle(src: Uint8Array, dst: Uint8Array, typesize: number, size: number): void;
  /** Stream decoder per codec format. */
  codecs: { readonly [K in CodecFormat]: StreamDecoder };
  /**
   * A block stored as one stream of `codec`, decoded and byte-unshuffled into `dst` in one go,
   * or `undefined` (then decode, then unshuffle). Returns the decoded length, as a decoder does.
   */
  decodeUnshuffled?: (codec: CodecFormat, src: Uint8Array, dst: Uint8Array, typesize: number, path: string | undefined) => number | undefined;
}

const JS_KERNELS: BloscKernels = {
  unshuffle,
  bitunshuffle,
  codecs: { blosclz: decodeBlosclz, lz4: decodeLz4, snappy: decodeSnappy, zlib: decodeZlib, zstd: decodeZstd },
};

let kernels: BloscKernels = JS_KERNELS;

/**
 * Replace the compute kernels (e.g. with WebAssembly ones); pass nothing to restore the
 * portable JavaScript kernels.
 *
 * @example
 * ```ts
 * setKernels(await loadWasmKernels());
 * ```
 */
export function setKernels(next?: BloscKernels): void {
  kernels = next ?? JS_KERNELS;
}

/**
 * The kernels in use.
 *
 * @example
 * ```ts
 * const { unshuffle } = getKernels();
 * ```
 */
export function getKernels(): BloscKernels {
  return kernels;
}

/**
 * Which implementation decodes chunks: `"wasm"` (the WebAssembly SIMD kernels), `"js"` (portable
 * TypeScript) or `"auto"` (WebAssembly when the runtime supports SIMD, TypeScript otherwise).
 *
 * @example
 * ```ts
 * const backend: DecodeBackend = "auto";
 * ```
 */
export type DecodeBackend = "wasm" | "js" | "auto";

let backendMode: DecodeBackend = "auto";
// null: not tried yet; undefined: tried, unavailable (no SIMD, or a browser main thread that refuses
// synchronous compilation until initBlosc() ran).
let wasmInstance: WasmKernels | undefined | null = null;
let wasmFilterKernels: BloscKernels | undefined;

function activeWasm(): WasmKernels | undefined {
  if (backendMode === "js" || kernels !== JS_KERNELS) return undefined;
  if (wasmInstance === null) wasmInstance = loadWasmKernels();
  return wasmInstance;
}

/**
 * The stream-prefix decoder of a block's pieces (see element-pieces.ts). @internal
 *
 * @example
 * ```ts
 * const head = streamPrefixDecoder()?.decodeStreamPrefix(1, stream, 65536, 101);
 * const last = streamPrefixDecoder()?.decodeStreamPrefix(1, stream, 65536, 101, undefined, true, 100); // byte 100 only
 * ```
 */
export interface StreamPrefixDecoder {
  /** Decoded bytes `[from, want)` of an lz4 (1) or BloscLZ (0) stream; see WasmKernels.decodeStreamPrefix. */
  decodeStreamPrefix(codecFormat: number, src: Uint8Array, neblock: number, want: number, path?: string, whole?: boolean, from?: number): Uint8Array | undefined;
}

/**
 * The WebAssembly kernels' stream-prefix decoder when the decoding backend uses WebAssembly, typed
 * without WebAssembly's own types (this module's declarations must not need them). @internal
 *
 * @example
 * ```ts
 * if (streamPrefixDecoder() === undefined) decodeWholeBlock();
 * ```
 */
export function streamPrefixDecoder(): StreamPrefixDecoder | undefined {
  return activeWasm();
}

/**
 * Choose the decoding implementation for every later call (module-wide). `"auto"` (the default)
 * uses WebAssembly when it is available; `"wasm"` insists on it; `"js"` never uses it. Kernels set
 * with `setKernels` take precedence over WebAssembly.
 *
 * @throws UsageError INVALID_ARGUMENT when `"wasm"` is asked for and WebAssembly SIMD cannot be
 * instantiated synchronously here (on a browser main thread, `await initBlosc()` first).
 * @example
 * ```ts
 * setDecodeBackend("js");   // e.g. to compare both implementations
 * setDecodeBackend("auto");
 * ```
 */
export function setDecodeBackend(backend: DecodeBackend): void {
  if (backend !== "wasm" && backend !== "js" && backend !== "auto") {
    throw new UsageError("INVALID_ARGUMENT", "decode backend must be \"wasm\", \"js\" or \"auto\"", { field: "backend", expected: "wasm | js | auto", actual: String(backend) });
  }
  if (backend === "wasm") {
    if (wasmInstance === null || wasmInstance === undefined) wasmInstance = loadWasmKernels();
    if (wasmInstance === undefined) {
      throw new UsageError("INVALID_ARGUMENT", "WebAssembly SIMD kernels are not available in this runtime", { field: "backend", expected: "a runtime with WebAssembly SIMD", actual: backend });
    }
  }
  backendMode = backend;
}

/**
 * The implementation the next decode will use: `"wasm"` or `"js"` (resolving `"auto"`, which may
 * instantiate the WebAssembly module).
 *
 * @example
 * ```ts
 * console.log(getDecodeBackend()); // "wasm" in Node 20
 * ```
 */
export function getDecodeBackend(): "wasm" | "js" {
  return activeWasm() === undefined ? "js" : "wasm";
}

/**
 * Prepare the WebAssembly kernels asynchronously. Needed only on browser main threads, which
 * refuse to compile the module synchronously; elsewhere the first decode loads it. Safe to call
 * more than once.
 *
 * @returns whether WebAssembly decoding is available (otherwise the TypeScript path is used).
 * @example
 * ```ts
 * await initBlosc();
 * const bytes = decompress(chunk);
 * ```
 */
export async function initBlosc(): Promise<boolean> {
  if (wasmInstance === null || wasmInstance === undefined) wasmInstance = await initWasmKernels();
  return wasmInstance !== undefined;
}

// The TypeScript container path with WebAssembly filters, for chunks whose codec (snappy, zlib,
// zstd) has no WebAssembly decoder.
function filterKernels(wasm: WasmKernels): BloscKernels {
  if (wasmFilterKernels === undefined) {
    wasmFilterKernels = {
      unshuffle: (src, dst, typesize, size) => void wasm.unshuffle(src.length === size ? src : src.subarray(0, size), typesize, dst),
      bitunshuffle: (src, dst, typesize, size) => void wasm.bitunshuffle(src.length === size ? src : src.subarray(0, size), typesize, dst),
      // zstd sequences run in the kernels (the rest of zstd stays in TypeScript).
      codecs: { ...JS_KERNELS.codecs, zstd: (src, dst, path) => decodeZstdWithKernels(src, dst, wasm, path) },
      // A byte-shuffled zstd block is unshuffled where it was decoded (saves three copies of it).
      decodeUnshuffled: (codec, src, dst, typesize, path) => (codec === "zstd" ? decodeZstdWithKernels(src, dst, wasm, path, undefined, typesize) : undefined),
    };
  }
  return wasmFilterKernels;
}

/** Whether the chunk's codec has a WebAssembly decoder (lz4, BloscLZ). @internal */
export function usesWasmCodec(header: ChunkHeader): boolean {
  return header.codec === "lz4" || header.codec === "blosclz";
}

// The kernels with the caller's zlib, when the call brought one.
function withZlib(k: BloscKernels, zlib: ZlibCodec | undefined): BloscKernels {
  return zlib === undefined ? k : { ...k, codecs: { ...k.codecs, zlib: zlibDecoderOf(zlib) } };
}

/** The filter a block of `bsize` bytes was stored with: 0 none, 1 byte shuffle, 2 bit shuffle. @internal */
export function filterOf(flags: number, typesize: number, bsize: number): 0 | 1 | 2 {
  // Same precedence as c-blosc's blosc_d: byte shuffle needs typesize > 1, and only when it does
  // not apply is bit 2 looked at (so both bits with typesize 1 means bit unshuffle).
  if (flags & BLOSC_FLAGS.SHUFFLE && typesize > 1) return 1;
  if (flags & BLOSC_FLAGS.BITSHUFFLE && bsize >= typesize) return 2;
  return 0;
}

// Decodes block j into dest (exactly its size). `bytes[0]` is chunk offset `base` (0 for a whole
// chunk, the block's start for a window holding one block). `scratch` holds at least blocksize
// bytes and receives the still-filtered block when a filter applies.
function decodeBlock(bytes: Uint8Array, base: number, p: ChunkPlan, j: number, dest: Uint8Array, scratch: Uint8Array | undefined, k: BloscKernels): void {
  const { header, nblocks, leftover, path } = p;
  const isLeftover = j === nblocks - 1 && leftover > 0;
  const bsize = isLeftover ? leftover : header.blocksize;
  const typesize = header.typesize;
  const nsplits = splitCount(header, bsize, isLeftover);
  const neblock = bsize / nsplits;
  const filter = filterOf(header.flags, typesize, bsize);
  const target = filter === 0 ? dest : scratch!;
  const decode = k.codecs[header.codec!];
  let pos = p.bstarts[j]! - base;
  // A lone byte-shuffled stream that the kernels decode and unshuffle in one go lands in `dest`.
  const fused = filter === 1 && nsplits === 1 ? k.decodeUnshuffled : undefined;
  let unshuffled = false;
  for (let s = 0, out = 0; s < nsplits; s++, out += neblock) {
    const csize = readI32(bytes, pos);
    pos += 4;
    const part = target.subarray(out, out + neblock);
    if (csize === neblock) {
      part.set(bytes.subarray(pos, pos + neblock));
    } else {
      let written: number | undefined;
      try {
        const stream = bytes.subarray(pos, pos + csize);
        written = fused?.(header.codec!, stream, dest.subarray(0, bsize), typesize, path);
        if (written === undefined) written = decode(stream, part, path);
        else unshuffled = true;
      } catch (e) {
        throw streamError(e, `blosc.blocks[${j}].streams[${s}]`, path);
      }
      if (written !== neblock) {
        throw new FormatError("CORRUPT_STREAM", "stream decodes to the wrong length", { path, field: `blosc.blocks[${j}].streams[${s}]`, expected: neblock, actual: written });
      }
    }
    pos += csize;
  }
  if (filter === 1 && !unshuffled) k.unshuffle(target, dest, typesize, bsize);
  else if (filter === 2) k.bitunshuffle(target, dest, typesize, bsize);
}

function streamError(e: unknown, field: string, path: string | undefined): BcolzError {
  if (e instanceof BcolzError) {
    if (e.path !== undefined || path === undefined) return e;
    return e.withPath(path);
  }
  // Codec decoders only throw FormatError on purpose; anything else is a decoder defect exposed by
  // a malformed stream, still reported as a corrupt stream rather than leaking a RangeError.
  return new FormatError("CORRUPT_STREAM", `stream does not decode: ${e instanceof Error ? e.message : String(e)}`, { path, field, cause: e });
}

function needsScratch(header: ChunkHeader): boolean {
  return (header.flags & (BLOSC_FLAGS.SHUFFLE | BLOSC_FLAGS.BITSHUFFLE)) !== 0;
}

// Filter scratch for the TypeScript path, kept between calls (JavaScript calls do not interleave).
let scratchBuffer = new Uint8Array(0);
function scratchFor(header: ChunkHeader): Uint8Array | undefined {
  if (!needsScratch(header)) return undefined;
  if (scratchBuffer.length < header.blocksize) scratchBuffer = new Uint8Array(header.blocksize);
  return scratchBuffer;
}

function checkOut(out: Uint8Array, length: number, path: string | undefined): void {
  if (!(out instanceof Uint8Array) || out.length < length) {
    throw new UsageError("INVALID_ARGUMENT", "output buffer is smaller than the bytes to decode", {
      path, field: "out", expected: `>= ${length} bytes`, actual: out instanceof Uint8Array ? out.length : typeof out,
    });
  }
}

/**
 * Decompress a whole Blosc chunk into `out[0, nbytes)`.
 *
 * @param chunk - the chunk, starting at its header; bytes after `cbytes` are ignored.
 * @param out - destination with room for at least `nbytes` bytes; nothing past `nbytes` is written.
 * @param options - path for messages and the `maxBytes` bomb guard.
 * @returns `nbytes`.
 * @throws FormatError (TRUNCATED, UNSUPPORTED_VERSION, BAD_HEADER, UNKNOWN_CODEC, SIZE_LIMIT,
 * CORRUPT_STREAM) for a bad chunk; UsageError INVALID_ARGUMENT when `out` is too small.
 * @example
 * ```ts
 * const out = new Uint8Array(readChunkHeader(chunk).nbytes);
 * decompressInto(chunk, out);
 * ```
 */
export function decompressInto(chunk: Uint8Array, out: Uint8Array, options?: DecompressOptions): number {
  return decompressPlannedInto(chunk, planChunk(chunk, options), out);
}

/**
 * Decompress a whole chunk already validated by `planChunk` into `out[0, nbytes)`, straight into
 * `out` (the WebAssembly path decodes in its own memory and copies out once). Nothing is checked
 * again but the size of `out`.
 *
 * @param chunk - the bytes the plan was made from.
 * @param plan - from `planChunk` (a head-only plan has its streams checked here).
 * @param out - destination of at least `nbytes` bytes.
 * @returns `nbytes`.
 * @throws UsageError INVALID_ARGUMENT for a foreign plan or a short `out`; FormatError CORRUPT_STREAM
 * when a stream does not decode.
 * @example
 * ```ts
 * const plan = planChunk(chunk, { path });
 * decompressPlannedInto(chunk, plan, target.subarray(offset, offset + plan.header.nbytes));
 * ```
 */
export function decompressPlannedInto(chunk: Uint8Array, plan: ChunkPlan, out: Uint8Array): number {
  requirePlan(plan);
  const { header, path } = plan;
  checkOut(out, header.nbytes, path);
  if (header.nbytes === 0) return 0;
  if (header.memcpyed) {
    out.set(chunk.subarray(BLOSC_HEADER_SIZE, BLOSC_HEADER_SIZE + header.nbytes));
    return header.nbytes;
  }
  if (!plan.streamsChecked) checkStreams(chunk, 0, plan, 0, plan.nblocks, header.cbytes);
  const wasm = activeWasm();
  if (wasm !== undefined && usesWasmCodec(header)) {
    wasm.decodeValidated(chunk, header, { out, path, length: header.nbytes });
    return header.nbytes;
  }
  const k = withZlib(wasm === undefined ? kernels : filterKernels(wasm), plan.zlib);
  const scratch = scratchFor(header);
  const blocksize = header.blocksize;
  for (let j = 0; j < plan.nblocks; j++) {
    const start = j * blocksize;
    decodeBlock(chunk, 0, plan, j, out.subarray(start, Math.min(start + blocksize, header.nbytes)), scratch, k);
  }
  return header.nbytes;
}

/**
 * The decoded bytes of a whole chunk already validated by `planChunk`, as a view of the
 * WebAssembly kernels' memory: no copy out. The view is valid only until the next call into this
 * package — use it at once, synchronously, and copy what must outlive that. `undefined` when the
 * chunk's codec has no WebAssembly decoder or WebAssembly is not in use (decode with
 * {@link decompressPlannedInto} then). A memcpyed chunk gives a view of `chunk` itself. @internal
 *
 * @example
 * ```ts
 * const view = decompressPlannedTransient(chunk, plan);
 * if (view !== undefined) total += sumOf(new Float64Array(view.buffer, view.byteOffset, view.length / 8));
 * ```
 */
export function decompressPlannedTransient(chunk: Uint8Array, plan: ChunkPlan): Uint8Array | undefined {
  requirePlan(plan);
  const { header, path } = plan;
  if (header.nbytes === 0) return new Uint8Array(0);
  if (header.memcpyed) return chunk.subarray(BLOSC_HEADER_SIZE, BLOSC_HEADER_SIZE + header.nbytes);
  const wasm = activeWasm();
  if (wasm === undefined || !usesWasmCodec(header)) return undefined;
  if (!plan.streamsChecked) checkStreams(chunk, 0, plan, 0, plan.nblocks, header.cbytes);
  return wasm.decodeTransient(chunk, header, path);
}

/**
 * `start` plus the sum of a {@link decompressPlannedTransient} view's little-endian float64
 * values in numpy's order of additions (np.sum, to the last bit), computed where the view lies;
 * `undefined` when it does not lie in the WebAssembly kernels' memory. @internal
 *
 * @example
 * ```ts
 * total = sumTransientFloat64(view, total) ?? sumInJavaScript(view, total);
 * ```
 */
export function sumTransientFloat64(view: Uint8Array, start: number): number | undefined {
  return activeWasm()?.sumFloat64LikeNumpy(view, start);
}

/**
 * Decompress a whole Blosc chunk into a new array of exactly `nbytes` bytes. The header and the
 * layout of every stream are validated before the output is allocated.
 *
 * @param chunk - the chunk, starting at its header; bytes after `cbytes` are ignored.
 * @param options - path for messages and the `maxBytes` bomb guard.
 * @throws FormatError (TRUNCATED, UNSUPPORTED_VERSION, BAD_HEADER, UNKNOWN_CODEC, SIZE_LIMIT, CORRUPT_STREAM).
 * @example
 * ```ts
 * const bytes = decompress(fileBytes.subarray(16), { path: "data/__0.blp", maxBytes: 8 * 1024 });
 * ```
 */
export function decompress(chunk: Uint8Array, options?: DecompressOptions): Uint8Array {
  const plan = planChunk(chunk, options);
  const out = new Uint8Array(plan.header.nbytes);
  decompressPlannedInto(chunk, plan, out);
  return out;
}

function checkIndex(value: number, field: string): void {
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new UsageError("INVALID_ARGUMENT", `${field} must be a non-negative integer`, { field, expected: "integer >= 0", actual: value });
  }
}

/**
 * Decompress bytes `[byteStart, byteEnd)` of a chunk's payload, decoding only the blocks that
 * overlap the range (format-facts 1.11).
 *
 * @param chunk - the chunk, starting at its header.
 * @param byteStart - first payload byte wanted.
 * @param byteEnd - one past the last payload byte wanted (≤ nbytes).
 * @param options - path for messages and the `maxBytes` bomb guard (applied to `nbytes`).
 * @returns a new array of `byteEnd − byteStart` bytes.
 * @throws UsageError OUT_OF_RANGE when the range is not inside `[0, nbytes]`; FormatError as {@link decompress}.
 * @example
 * ```ts
 * const row10 = decompressRange(chunk, 10 * 8, 11 * 8);
 * ```
 */
export function decompressRange(chunk: Uint8Array, byteStart: number, byteEnd: number, options?: DecompressOptions): Uint8Array {
  checkIndex(byteStart, "byteStart");
  checkIndex(byteEnd, "byteEnd");
  const plan = planChunkLazily(chunk, options);
  checkRange(plan, byteStart, byteEnd);
  const out = new Uint8Array(byteEnd - byteStart);
  decodeRangeInto(chunk, plan, byteStart, byteEnd, out);
  return out;
}

/**
 * Decompress payload bytes `[byteStart, byteEnd)` of a chunk validated by `planChunk` into
 * `out[0, byteEnd − byteStart)`, decoding only the blocks that overlap the range.
 *
 * @param chunk - the bytes the plan was made from.
 * @param plan - from `planChunk`.
 * @param byteStart - first payload byte wanted.
 * @param byteEnd - one past the last payload byte wanted (≤ nbytes).
 * @param out - destination of at least `byteEnd − byteStart` bytes.
 * @throws UsageError OUT_OF_RANGE / INVALID_ARGUMENT for a bad range, plan or `out`; FormatError
 * CORRUPT_STREAM when a stream does not decode.
 * @example
 * ```ts
 * decompressRangePlannedInto(chunk, plan, 80, 160, rowsOut);
 * ```
 */
export function decompressRangePlannedInto(chunk: Uint8Array, plan: ChunkPlan, byteStart: number, byteEnd: number, out: Uint8Array): void {
  requirePlan(plan);
  checkIndex(byteStart, "byteStart");
  checkIndex(byteEnd, "byteEnd");
  checkRange(plan, byteStart, byteEnd);
  checkOut(out, byteEnd - byteStart, plan.path);
  decodeRangeInto(chunk, plan, byteStart, byteEnd, out);
}

function checkRange(plan: ChunkPlan, byteStart: number, byteEnd: number): void {
  const nbytes = plan.header.nbytes;
  if (byteStart > byteEnd || byteEnd > nbytes) {
    throw new UsageError("OUT_OF_RANGE", "byte range lies outside the chunk", {
      path: plan.path, field: "byteRange", expected: `0 <= start <= end <= ${nbytes}`, actual: `[${byteStart}, ${byteEnd})`,
    });
  }
}

/**
 * Largest byte range decoded stream by stream up to the wanted bytes (`decode_block_range`)
 * instead of decoding its whole block: the per-byte bookkeeping pays off for a few elements.
 */
const PARTIAL_DECODE_MAX = 4096;

// Block-sized staging for blocks only partly wanted, kept between calls.
let partialBlock = new Uint8Array(0);

function decodeRangeInto(chunk: Uint8Array, p: ChunkPlan, byteStart: number, byteEnd: number, out: Uint8Array): void {
  const { header, path } = p;
  const length = byteEnd - byteStart;
  if (length === 0) return;
  if (header.memcpyed) {
    out.set(chunk.subarray(BLOSC_HEADER_SIZE + byteStart, BLOSC_HEADER_SIZE + byteEnd));
    return;
  }
  const blocksize = header.blocksize;
  const first = Math.floor(byteStart / blocksize);
  const last = Math.floor((byteEnd - 1) / blocksize);
  if (!p.streamsChecked) checkStreams(chunk, 0, p, first, last + 1, header.cbytes);
  const wasm = activeWasm();
  if (wasm !== undefined && usesWasmCodec(header)) {
    const blockStart = first * blocksize;
    const bsize = Math.min(blocksize, header.nbytes - blockStart);
    const filter = filterOf(header.flags, header.typesize, bsize);
    if (first === last && filter !== 2 && length <= PARTIAL_DECODE_MAX && length * 8 <= bsize) {
      // A few bytes of one block: each stream is decoded only up to them.
      const nsplits = splitCount(header, bsize, bsize !== blocksize);
      const window = chunk.length > header.cbytes ? chunk.subarray(0, header.cbytes) : chunk;
      wasm.decodeBlockRange(window, p.bstarts[first]!, bsize, header.typesize, nsplits, header.codecCode, filter, byteStart - blockStart, byteEnd - blockStart, out, path);
      return;
    }
    wasm.decodeValidated(chunk, header, { firstBlock: first, endBlock: last + 1, skip: byteStart - first * blocksize, length, path, out });
    return;
  }
  const k = withZlib(wasm === undefined ? kernels : filterKernels(wasm), p.zlib);
  const scratch = scratchFor(header);
  for (let j = first; j <= last; j++) {
    const blockStart = j * blocksize;
    const blockEnd = Math.min(blockStart + blocksize, header.nbytes);
    if (blockStart >= byteStart && blockEnd <= byteEnd) {
      decodeBlock(chunk, 0, p, j, out.subarray(blockStart - byteStart, blockEnd - byteStart), scratch, k);
    } else {
      if (partialBlock.length < blocksize) partialBlock = new Uint8Array(blocksize);
      decodeBlock(chunk, 0, p, j, partialBlock.subarray(0, blockEnd - blockStart), scratch, k);
      const from = Math.max(byteStart, blockStart);
      const to = Math.min(byteEnd, blockEnd);
      out.set(partialBlock.subarray(from - blockStart, to - blockStart), from - byteStart);
    }
  }
}

/**
 * Decode block `j` of a chunk from a window holding only that block's compressed bytes (what a
 * range read of `blockExtent(plan, j)` returns): the block's streams are checked against the
 * window, then decoded into `out[0, block size)`. With `planChunkHead` this decodes one block of a
 * chunk file without reading the rest of it.
 *
 * @param plan - from `planChunk` or `planChunkHead`.
 * @param j - block number, `0 ≤ j < nblocks`.
 * @param window - compressed bytes starting at chunk offset `windowStart`.
 * @param windowStart - chunk offset of `window[0]` (at most `bstarts[j]`).
 * @param out - destination of at least the block's size (`blocksize`, or the last block's `leftover`).
 * @returns the block's decoded size.
 * @throws FormatError TRUNCATED when the block's streams run past the window (read up to `cbytes`
 * and retry), CORRUPT_STREAM when they do not decode; UsageError for a bad `j`, plan or `out`.
 * @example
 * ```ts
 * const { start, end } = blockExtent(plan, j);
 * const window = await store.getRange(key, { offset: 16 + start, length: end - start });
 * decodeBlockInto(plan, j, window, start, blockOut);
 * ```
 */
export function decodeBlockInto(plan: ChunkPlan, j: number, window: Uint8Array, windowStart: number, out: Uint8Array): number {
  requirePlan(plan);
  const { header, nblocks, leftover, path } = plan;
  if (!Number.isSafeInteger(j) || j < 0 || j >= nblocks || header.memcpyed) {
    throw new UsageError("OUT_OF_RANGE", "block number outside the chunk", { path, field: "block", expected: `0 <= block < ${nblocks}`, actual: j });
  }
  const bsize = j === nblocks - 1 && leftover > 0 ? leftover : header.blocksize;
  checkOut(out, bsize, path);
  checkStreams(window, windowStart, plan, j, j + 1, Math.min(header.cbytes, windowStart + window.length));
  const dest = out.length === bsize ? out : out.subarray(0, bsize);
  const wasm = activeWasm();
  if (wasm !== undefined && usesWasmCodec(header)) {
    const nsplits = splitCount(header, bsize, bsize !== header.blocksize);
    const filter = filterOf(header.flags, header.typesize, bsize);
    const from = plan.bstarts[j]! - windowStart;
    wasm.decodeBlock(window, from, bsize, header.typesize, nsplits, header.codecCode, filter, dest, path);
    return bsize;
  }
  const k = withZlib(wasm === undefined ? kernels : filterKernels(wasm), plan.zlib);
  decodeBlock(window, windowStart, plan, j, dest, scratchFor(header), k);
  return bsize;
}

/**
 * Decompress `count` items (of the header's typesize) starting at item `start`, like
 * `blosc_getitem`: only the blocks covering the items are decoded.
 *
 * @param chunk - the chunk, starting at its header.
 * @param start - first item.
 * @param count - number of items.
 * @param options - path for messages and the `maxBytes` bomb guard.
 * @returns a new array of `count × typesize` bytes.
 * @throws UsageError OUT_OF_RANGE when `(start + count) × typesize > nbytes`; FormatError as {@link decompress}.
 * @example
 * ```ts
 * const third = new Float64Array(getitem(chunk, 2, 1).buffer)[0];
 * ```
 */
export function getitem(chunk: Uint8Array, start: number, count: number, options?: DecompressOptions): Uint8Array {
  checkIndex(start, "start");
  checkIndex(count, "count");
  const p = planChunkLazily(chunk, options);
  const header = p.header;
  const ts = header.nbytes === 0 ? Math.max(1, header.typesize) : header.typesize;
  const byteStart = start * ts;
  const byteEnd = (start + count) * ts;
  if (byteEnd > header.nbytes) {
    throw new UsageError("OUT_OF_RANGE", "items lie outside the chunk", {
      path: options?.path, field: "items", expected: `(start + count) * ${ts} <= ${header.nbytes}`, actual: `start ${start}, count ${count}`,
    });
  }
  const out = new Uint8Array(byteEnd - byteStart);
  decodeRangeInto(chunk, p, byteStart, byteEnd, out);
  return out;
}
