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
import {
  BLOSC_FLAGS, BLOSC_HEADER_SIZE, BLOSC_MAX_BUFFERSIZE, blockLayout, readBstarts, readChunkHeader, splitCount,
} from "@fmt/header";
import type { ChunkHeader, CodecFormat } from "@fmt/header";
import { decodeBlosclz } from "./codecs/blosclz.js";
import { decodeLz4 } from "./codecs/lz4.js";
import { decodeSnappy } from "./codecs/snappy.js";
import { bitunshuffle } from "./bitshuffle.js";
import { unshuffle } from "./shuffle.js";
import { decodeZlib, zlibDecoderOf, type ZlibCodec } from "./zlib.js";
import { decodeZstd } from "./zstd.js";
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
      codecs: JS_KERNELS.codecs,
    };
  }
  return wasmFilterKernels;
}

function usesWasmCodec(header: ChunkHeader): boolean {
  return header.codec === "lz4" || header.codec === "blosclz";
}

/**
 * Options of every decoding function.
 *
 * @example
 * ```ts
 * decompress(chunk, { path: "data/__3.blp", maxBytes: chunklen * itemsize });
 * ```
 */
export interface DecompressOptions {
  /** File or key the chunk came from, for error messages. */
  path?: string;
  /**
   * Decompression-bomb guard: refuse (FormatError SIZE_LIMIT, field `blosc.nbytes`) a chunk whose
   * header declares more than this many uncompressed bytes, before anything is allocated.
   * Callers that know the expected size (a bcolz store knows `chunklen × atomsize`) should pass
   * it. Default `BLOSC_MAX_BUFFERSIZE`.
   */
  maxBytes?: number;
  /** zlib implementation for this call (e.g. `nodeZlib` from `@fmt/blosc/node`); default fflate. */
  zlib?: ZlibCodec | undefined;
}

// The kernels with the caller's zlib, when the call brought one.
function withZlib(k: BloscKernels, zlib: ZlibCodec | undefined): BloscKernels {
  return zlib === undefined ? k : { ...k, codecs: { ...k.codecs, zlib: zlibDecoderOf(zlib) } };
}

// Upper bounds on how many output bytes one input byte of each stream format can produce, plus a
// constant for the stream's own framing. They follow from the formats (LZ4 and BloscLZ lengths
// grow by at most 255 per extension byte; a 3-byte Snappy copy yields at most 64 bytes; one
// deflate symbol pair of 2 bits yields at most 258 bytes; a 4-byte zstd RLE block yields at most
// 128 KiB) with generous margins, and let a chunk whose streams cannot possibly fill its declared
// blocks be refused before its output buffer is allocated.
const MAX_EXPANSION: { readonly [K in CodecFormat]: [perByte: number, constant: number] } = {
  blosclz: [264, 64],
  lz4: [264, 64],
  snappy: [64, 64],
  zlib: [1100, 1024],
  zstd: [65536, 262144],
};

interface Plan {
  header: ChunkHeader;
  bstarts: Int32Array;
  nblocks: number;
  leftover: number;
}

function readI32(bytes: Uint8Array, at: number): number {
  return bytes[at]! | (bytes[at + 1]! << 8) | (bytes[at + 2]! << 16) | (bytes[at + 3]! << 24);
}

function checkMaxBytes(maxBytes: number | undefined): number {
  if (maxBytes === undefined) return BLOSC_MAX_BUFFERSIZE;
  if (typeof maxBytes !== "number" || !(maxBytes >= 0)) {
    throw new UsageError("INVALID_ARGUMENT", "maxBytes must be a non-negative number", { field: "maxBytes", expected: ">= 0", actual: maxBytes });
  }
  return maxBytes;
}

function plan(chunk: Uint8Array, options: DecompressOptions | undefined): Plan {
  if (!(chunk instanceof Uint8Array)) {
    throw new UsageError("INVALID_ARGUMENT", "chunk must be a Uint8Array", { field: "chunk", expected: "Uint8Array", actual: typeof chunk });
  }
  const path = options?.path;
  const maxBytes = checkMaxBytes(options?.maxBytes);
  const header = readChunkHeader(chunk, path);
  if (header.nbytes > maxBytes) {
    throw new FormatError("SIZE_LIMIT", "chunk declares more uncompressed bytes than allowed", {
      path, field: "blosc.nbytes", expected: `<= ${maxBytes} (maxBytes)`, actual: header.nbytes,
    });
  }
  const { nblocks, leftover } = blockLayout(header);
  const bstarts = readBstarts(chunk, header, path);
  return { header, bstarts, nblocks, leftover };
}

function filterOf(flags: number, typesize: number, bsize: number): 0 | 1 | 2 {
  // Same precedence as c-blosc's blosc_d: byte shuffle needs typesize > 1, and only when it does
  // not apply is bit 2 looked at (so both bits with typesize 1 means bit unshuffle).
  if (flags & BLOSC_FLAGS.SHUFFLE && typesize > 1) return 1;
  if (flags & BLOSC_FLAGS.BITSHUFFLE && bsize >= typesize) return 2;
  return 0;
}

// Validates the stream structure of blocks [from, to) — every size prefix and stream inside
// cbytes, split blocks divisible into equal streams, compressed streams not impossibly small for
// the bytes they must produce — without decoding, so that nothing is allocated for a chunk whose
// layout lies.
function checkStreams(chunk: Uint8Array, p: Plan, from: number, to: number, path: string | undefined): void {
  const { header, bstarts, nblocks, leftover } = p;
  const cbytes = header.cbytes;
  const expansion = MAX_EXPANSION[header.codec!];
  for (let j = from; j < to; j++) {
    const isLeftover = j === nblocks - 1 && leftover > 0;
    const bsize = isLeftover ? leftover : header.blocksize;
    const nsplits = splitCount(header, bsize, isLeftover);
    if (bsize % nsplits !== 0) {
      throw new FormatError("BAD_HEADER", "a split block's size is not a multiple of typesize", {
        path, field: "blosc.blocksize", expected: `multiple of ${nsplits}`, actual: bsize,
      });
    }
    const neblock = bsize / nsplits;
    let pos = bstarts[j]!;
    for (let k = 0; k < nsplits; k++) {
      const field = `blosc.blocks[${j}].streams[${k}]`;
      if (pos > cbytes - 4) {
        throw new FormatError("TRUNCATED", "stream size prefix lies past cbytes", { path, field: `${field}.csize`, expected: `offset <= ${cbytes - 4}`, actual: pos });
      }
      const csize = readI32(chunk, pos);
      pos += 4;
      if (csize < 0 || csize > cbytes - pos) {
        throw new FormatError("TRUNCATED", "stream runs past cbytes", { path, field: `${field}.csize`, expected: `0..${cbytes - pos}`, actual: csize >>> 0 });
      }
      if (csize !== neblock && neblock > csize * expansion[0] + expansion[1]) {
        throw new FormatError("CORRUPT_STREAM", `a ${csize}-byte ${header.codec} stream cannot decode to ${neblock} bytes`, {
          path, field: `${field}.csize`, expected: `>= ${Math.ceil((neblock - expansion[1]) / expansion[0])}`, actual: csize,
        });
      }
      pos += csize;
    }
  }
}

// Decodes block j into dest (exactly its size). `scratch` holds at least blocksize bytes and
// receives the still-filtered block when a filter applies.
function decodeBlock(chunk: Uint8Array, p: Plan, j: number, dest: Uint8Array, scratch: Uint8Array | undefined, path: string | undefined, k: BloscKernels): void {
  const { header, nblocks, leftover } = p;
  const isLeftover = j === nblocks - 1 && leftover > 0;
  const bsize = isLeftover ? leftover : header.blocksize;
  const typesize = header.typesize;
  const nsplits = splitCount(header, bsize, isLeftover);
  const neblock = bsize / nsplits;
  const filter = filterOf(header.flags, typesize, bsize);
  const target = filter === 0 ? dest : scratch!;
  const decode = k.codecs[header.codec!];
  let pos = p.bstarts[j]!;
  for (let k = 0, out = 0; k < nsplits; k++, out += neblock) {
    const csize = readI32(chunk, pos);
    pos += 4;
    const part = target.subarray(out, out + neblock);
    if (csize === neblock) {
      part.set(chunk.subarray(pos, pos + neblock));
    } else {
      let written: number;
      try {
        written = decode(chunk.subarray(pos, pos + csize), part, path);
      } catch (e) {
        throw streamError(e, `blosc.blocks[${j}].streams[${k}]`, path);
      }
      if (written !== neblock) {
        throw new FormatError("CORRUPT_STREAM", "stream decodes to the wrong length", { path, field: `blosc.blocks[${j}].streams[${k}]`, expected: neblock, actual: written });
      }
    }
    pos += csize;
  }
  if (filter === 1) k.unshuffle(target, dest, typesize, bsize);
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
  const p = plan(chunk, options);
  if (!(out instanceof Uint8Array) || out.length < p.header.nbytes) {
    throw new UsageError("INVALID_ARGUMENT", "output buffer is smaller than the chunk's nbytes", {
      path: options?.path, field: "out", expected: `>= ${p.header.nbytes} bytes`, actual: out instanceof Uint8Array ? out.length : typeof out,
    });
  }
  if (!p.header.memcpyed && p.header.nbytes > 0) checkStreams(chunk, p, 0, p.nblocks, options?.path);
  decodeAll(chunk, p, out, options?.path, options?.zlib);
  return p.header.nbytes;
}

// The caller has run checkStreams over every block.
function decodeAll(chunk: Uint8Array, p: Plan, out: Uint8Array, path: string | undefined, zlib?: ZlibCodec): void {
  const { header, nblocks } = p;
  if (header.nbytes === 0) return;
  if (header.memcpyed) {
    out.set(chunk.subarray(BLOSC_HEADER_SIZE, BLOSC_HEADER_SIZE + header.nbytes));
    return;
  }
  const wasm = activeWasm();
  if (wasm !== undefined && usesWasmCodec(header)) {
    // Everything structural was validated above; the module re-checks what memory safety needs.
    wasm.decodeChunk(chunk, { out, path, length: header.nbytes });
    return;
  }
  const k = withZlib(wasm === undefined ? kernels : filterKernels(wasm), zlib);
  const scratch = needsScratch(header) ? new Uint8Array(header.blocksize) : undefined;
  const blocksize = header.blocksize;
  for (let j = 0; j < nblocks; j++) {
    const start = j * blocksize;
    const end = Math.min(start + blocksize, header.nbytes);
    decodeBlock(chunk, p, j, out.subarray(start, end), scratch, path, k);
  }
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
  const p = plan(chunk, options);
  if (!p.header.memcpyed && p.header.nbytes > 0) checkStreams(chunk, p, 0, p.nblocks, options?.path);
  const out = new Uint8Array(p.header.nbytes);
  decodeAll(chunk, p, out, options?.path, options?.zlib);
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
  return decodeRange(chunk, plan(chunk, options), byteStart, byteEnd, options?.path, options?.zlib);
}

function decodeRange(chunk: Uint8Array, p: Plan, byteStart: number, byteEnd: number, path: string | undefined, zlib?: ZlibCodec): Uint8Array {
  const { header } = p;
  if (byteStart > byteEnd || byteEnd > header.nbytes) {
    throw new UsageError("OUT_OF_RANGE", "byte range lies outside the chunk", {
      path, field: "byteRange", expected: `0 <= start <= end <= ${header.nbytes}`, actual: `[${byteStart}, ${byteEnd})`,
    });
  }
  const length = byteEnd - byteStart;
  if (length === 0) return new Uint8Array(0);
  if (header.memcpyed) {
    return chunk.slice(BLOSC_HEADER_SIZE + byteStart, BLOSC_HEADER_SIZE + byteEnd);
  }
  const blocksize = header.blocksize;
  const first = Math.floor(byteStart / blocksize);
  const last = Math.floor((byteEnd - 1) / blocksize);
  checkStreams(chunk, p, first, last + 1, path);
  const wasm = activeWasm();
  if (wasm !== undefined && usesWasmCodec(header)) {
    return wasm.decodeChunk(chunk, { firstBlock: first, endBlock: last + 1, skip: byteStart - first * blocksize, length, path })!;
  }
  const k = withZlib(wasm === undefined ? kernels : filterKernels(wasm), zlib);
  const out = new Uint8Array(length);
  let scratch: Uint8Array | undefined;
  let blockBuf: Uint8Array | undefined;
  for (let j = first; j <= last; j++) {
    const blockStart = j * blocksize;
    const blockEnd = Math.min(blockStart + blocksize, header.nbytes);
    if (blockStart >= byteStart && blockEnd <= byteEnd) {
      scratch ??= needsScratch(header) ? new Uint8Array(blocksize) : undefined;
      decodeBlock(chunk, p, j, out.subarray(blockStart - byteStart, blockEnd - byteStart), scratch, path, k);
    } else {
      blockBuf ??= new Uint8Array(blocksize);
      scratch ??= needsScratch(header) ? new Uint8Array(blocksize) : undefined;
      decodeBlock(chunk, p, j, blockBuf.subarray(0, blockEnd - blockStart), scratch, path, k);
      const from = Math.max(byteStart, blockStart);
      const to = Math.min(byteEnd, blockEnd);
      out.set(blockBuf.subarray(from - blockStart, to - blockStart), from - byteStart);
    }
  }
  return out;
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
  const p = plan(chunk, options);
  const header = p.header;
  const ts = header.nbytes === 0 ? Math.max(1, header.typesize) : header.typesize;
  const byteStart = start * ts;
  const byteEnd = (start + count) * ts;
  if (byteEnd > header.nbytes) {
    throw new UsageError("OUT_OF_RANGE", "items lie outside the chunk", {
      path: options?.path, field: "items", expected: `(start + count) * ${ts} <= ${header.nbytes}`, actual: `start ${start}, count ${count}`,
    });
  }
  return decodeRange(chunk, p, byteStart, byteEnd, options?.path, options?.zlib);
}
