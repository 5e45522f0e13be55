/**
 * Blosc 1.x chunk decoding (format-facts 1.3–1.13): memcpyed chunks, blocks located through
 * `bstarts`, split and unsplit blocks, raw streams, the five codecs, byte and bit unshuffle,
 * whole-chunk and partial (block-range) decoding.
 *
 * Everything that depends on the CPU (unshuffle kernels, codec stream decoders) goes through one
 * `BloscKernels` object so that a WebAssembly implementation can replace it without touching the
 * container logic.
 *
 * The kernels and the choice of decoding backend live in decode-backend.ts, the TypeScript
 * decoding of one block in decode-block.ts; this module holds the decoding entry points, and
 * re-exports what it exported before those parts moved (index.ts, element-pieces.ts and the
 * tests import them from here).
 *
 * @example
 * ```ts
 * import { decompress } from "./decompress.js";
 * const values = new Float64Array(decompress(chunk, { maxBytes: 8 * chunklen }).buffer);
 * ```
 * @module
 */
import { UsageError } from "@fmt/errors";
import { BLOSC_HEADER_SIZE, splitCount } from "@fmt/header";
import { checkStreams, planChunk, planChunkLazily, requirePlan } from "./plan.js";
import type { ChunkPlan, DecompressOptions } from "./plan.js";
import { activeWasm, filterKernels, kernels, usesWasmCodec, withZlib } from "./decode-backend.js";
import { decodeBlock, filterOf, scratchFor } from "./decode-block.js";
import { residentKernelsOf } from "./resident-inputs.js";
import type { WasmKernels } from "./wasm/index.js";
import type { PlaneComparison } from "./wasm/kernel-compare.js";

export { getDecodeBackend, getKernels, initBlosc, setDecodeBackend, setKernels, streamPrefixDecoder, usesWasmCodec } from "./decode-backend.js";
export type { BloscKernels, DecodeBackend, StreamDecoder, StreamPrefixDecoder } from "./decode-backend.js";
export { filterOf } from "./decode-block.js";

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
    wholeChunkKernels(chunk, header, wasm).decodeValidated(chunk, header, { out, path, length: header.nbytes });
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
  return wholeChunkKernels(chunk, header, wasm).decodeTransient(chunk, header, path);
}

/**
 * The kernels that decode a whole chunk: those of the {@link ResidentInputs} slot it was read
 * into, where it decodes in place without growing their memory, else the shared ones.
 */
function wholeChunkKernels(chunk: Uint8Array, header: ChunkPlan["header"], shared: WasmKernels): WasmKernels {
  const own = residentKernelsOf(chunk);
  return own !== undefined && own.decodesInPlace(chunk, header) ? own : shared;
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
  // A view decoded in a reader's own kernels (ResidentInputs) is summed there.
  return (residentKernelsOf(view) ?? activeWasm())?.sumFloat64LikeNumpy(view, start);
}

/**
 * How many values of a whole chunk already validated by `planChunk` compare true with a constant
 * (`value op constant`), decided on the chunk's byte planes in the WebAssembly kernels: planes
 * are decoded only as far as they decide, and nothing is unshuffled (with `mask`, a 0/1 byte per
 * value is written there too). `undefined` when the chunk is not one the plane kernel compares (a
 * typesize other than 1, 2, 4 or 8; values of more than one byte that are not byte-shuffled;
 * bit-shuffled; memcpyed; a codec other than BloscLZ or LZ4), when it needs a stream before
 * `comparison.readFrom` (a chunk of which only the top planes were read), or when WebAssembly is
 * not in use: read it whole, decode it and compare then. @internal
 *
 * @example
 * ```ts
 * const value = new Uint8Array(new Float64Array([2.5]).buffer);
 * const above = comparePlanned(chunk, plan, { kind: "float", op: ">", value }) ?? countInJavaScript(chunk);
 * ```
 */
export function comparePlanned(chunk: Uint8Array, plan: ChunkPlan, comparison: PlaneComparison, mask?: Uint8Array): number | undefined {
  requirePlan(plan);
  const { header, path } = plan;
  const values = header.typesize === 0 ? 0 : header.nbytes / header.typesize;
  if (mask !== undefined) checkOut(mask, values, path);
  if (header.nbytes === 0 || header.memcpyed) return undefined;
  const wasm = activeWasm();
  if (wasm === undefined || !usesWasmCodec(header)) return undefined;
  if (!plan.streamsChecked) checkStreams(chunk, 0, plan, 0, plan.nblocks, header.cbytes);
  return wholeChunkKernels(chunk, header, wasm).comparePlanes(chunk, header, comparison, mask, path);
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
