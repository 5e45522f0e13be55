/**
 * The contract with kernels.wasm as the `WasmKernels` methods call it: the module's raw exports,
 * its error codes and their translation into `FormatError` / `UsageError`, its codec numbers,
 * and the small helpers around a call (argument checks, a chunk header's sizes, the room a
 * stream may need, where data goes in module memory) and the {@link KernelArena} the modules
 * beside `WasmKernels` call through. Browser-safe: no `node:` imports.
 *
 * @example
 * ```ts
 * import { checkTypesize, kernelError } from "./kernel-abi.js";
 * checkTypesize(8);
 * const error = kernelError(-1, "lz4.stream", "data/__0.blp"); // FormatError CORRUPT_STREAM
 * ```
 * @module
 */
import { FormatError, UsageError } from "@fmt/errors";
import type { EncodeBlockOptions, WasmCodecName } from "./types.js";

/** The raw exports of kernels.wasm (pointers and sizes are byte offsets / counts). */
export interface KernelExports {
  // Only the buffer is used; spelled structurally so that these declarations, reachable from the
  // package's types, need no WebAssembly namespace in a consumer's libraries (no DOM, no @types/node).
  memory: { readonly buffer: ArrayBuffer };
  alloc(n: number): number;
  reset(): void;
  shuffle(typesize: number, size: number, src: number, dst: number): void;
  unshuffle(typesize: number, size: number, src: number, dst: number): void;
  bitshuffle(typesize: number, size: number, src: number, dst: number, tmp: number): void;
  bitunshuffle(typesize: number, size: number, src: number, dst: number, tmp: number): void;
  lz4_decode(src: number, srclen: number, dst: number, dstcap: number): number;
  lz4_encode(src: number, srclen: number, dst: number, dstcap: number, acceleration: number): number;
  lz4hc_encode(src: number, srclen: number, dst: number, dstcap: number, level: number): number;
  blosclz_decode(src: number, srclen: number, dst: number, dstcap: number): number;
  blosclz_encode(src: number, srclen: number, dst: number, dstcap: number, clevel: number): number;
  decode_block(
    src: number, srclen: number, bstart: number, bsize: number, typesize: number,
    nsplits: number, codec: number, filter: number, dst: number, scratch: number,
  ): number;
  decode_chunk(src: number, srclen: number, first: number, end: number, dst: number, dstcap: number, scratch: number): number;
  adler32(p: number, n: number, previous: number): number;
  decode_block_range(
    src: number, srclen: number, bstart: number, bsize: number, typesize: number, nsplits: number,
    codec: number, filter: number, p0: number, p1: number, dst: number, scratch: number,
  ): number;
  encode_block(
    src: number, bsize: number, typesize: number, nsplits: number, codec: number,
    filter: number, level: number, dst: number, dstcap: number, scratch: number,
  ): number;
  decode_stream_prefix(codec: number, src: number, srclen: number, dst: number, dstcap: number, want: number): number;
  zstd_sequences(args: number, rep: number, result: number): number;
  zstd_huffman(src: number, start: number, end: number, symbol: number, bits: number, maxBits: number, out: number, from: number, to: number): number;
  zstd_huffman4(src: number, bounds: number, symbol: number, bits: number, maxBits: number, out: number, base: number, segment: number, end: number, left: number): void;
  sum_f64_like_numpy(a: number, n: number, start: number): number;
  compare_chunk(src: number, srclen: number, kind: number, op: number, value: number, mask: number, scratch: number, readFrom: number): number;
}

/**
 * One kernels instance as the modules beside `WasmKernels` use it (kernel-streams.ts,
 * kernel-encode.ts, zstd-arena.ts): its exports, the arena of one call, and a view of its memory.
 *
 * @example
 * ```ts
 * const [ps = 0, pd = 0] = arena.reserve(src.length, dst.length);
 * arena.heap().set(src, ps);
 * const got = arena.exports.lz4_decode(ps, src.length, pd, dst.length);
 * ```
 */
export interface KernelArena {
  /** The module's raw exports. */
  readonly exports: KernelExports;
  /**
   * Releases the last call's arena (keeping the reserved inputs) and reserves regions of these
   * sizes for the next call; their offsets.
   * @throws FormatError SIZE_LIMIT when the memory cannot grow to hold them.
   */
  reserve(...sizes: number[]): number[];
  /** A view of the whole memory as it is after the last `reserve` (growing replaces the buffer). */
  heap(): Uint8Array;
}

/** The kernels' negative results (wasm/common.h); {@link kernelError} turns them into errors. */
const ERR_CORRUPT = -1;
const ERR_DST_SMALL = -2;
export const ERR_SRC_TRUNCATED = -3;
const ERR_SIZE_MISMATCH = -4;
export const ERR_CODEC = -5;
export const ERR_ARGUMENT = -6;
const ERR_HEADER = -7;
export const ERR_NOT_READ = -9;

const ERROR_REASONS: Record<number, string> = {
  [ERR_CORRUPT]: "malformed stream (bad match distance or instruction)",
  [ERR_DST_SMALL]: "stream decodes to more bytes than expected",
  [ERR_SRC_TRUNCATED]: "stream or size prefix runs past the end of the input",
  [ERR_SIZE_MISMATCH]: "stream decodes to fewer bytes than expected",
  [ERR_HEADER]: "chunk header is inconsistent",
};

/** encode_block's codec number for each codec name of the block encoder. */
export const CODEC_NUMBERS: Record<WasmCodecName, number> = { blosclz: 0, lz4: 1, lz4hc: 8 };

/** The little-endian int32 at `at` (a chunk header's sizes). */
export function readI32(bytes: Uint8Array, at: number): number {
  return bytes[at]! | (bytes[at + 1]! << 8) | (bytes[at + 2]! << 16) | (bytes[at + 3]! << 24);
}

/** Worst-case stream size for n input bytes (BloscLZ: one control byte per 32 literals). */
export function streamBound(n: number): number {
  return n + Math.ceil(n / 32) + 16;
}

/** Throws UsageError INVALID_ARGUMENT unless `typesize` is an integer in 1..255. */
export function checkTypesize(typesize: number): void {
  if (!Number.isInteger(typesize) || typesize < 1 || typesize > 255) {
    throw new UsageError("INVALID_ARGUMENT", "typesize must be an integer in 1..255", { field: "typesize", expected: "1..255", actual: typesize });
  }
}

/** The error for a kernel's negative result `code`: UsageError for bad arguments, FormatError otherwise. */
export function kernelError(code: number, field: string, path: string | undefined): Error {
  if (code === ERR_ARGUMENT) return new UsageError("INVALID_ARGUMENT", "invalid block parameters", { path, field, actual: code });
  if (code === ERR_HEADER) return new FormatError("BAD_HEADER", ERROR_REASONS[code] ?? "bad header", { path, field: "blosc.header", actual: code });
  return new FormatError("CORRUPT_STREAM", ERROR_REASONS[code] ?? `kernel error ${code}`, { path, field, actual: code });
}

/**
 * How far past an 8-byte boundary a copy's partner should sit, so that a copy to or from `view`
 * at `view.byteOffset + skip` runs word by word: V8 copies shared memory (a
 * `SharedArrayBuffer`, as the worker pool uses) in words only when both sides have the same
 * alignment, and byte by byte, 5–10× slower, otherwise. Ordinary memory copies fast either way: 0.
 * @internal
 *
 * @example
 * ```ts
 * sharedShift(new Uint8Array(new SharedArrayBuffer(64), 13), 0); // 5
 * ```
 */
export function sharedShift(view: Uint8Array, skip: number): number {
  // `instanceof ArrayBuffer`, not `instanceof SharedArrayBuffer`: the latter is undefined where a
  // browser page is not cross-origin isolated. A buffer from another realm gets a shift, which
  // costs nothing but an arena placement a few bytes off.
  return view.buffer instanceof ArrayBuffer ? 0 : (view.byteOffset - skip) & 7;
}

/** Checks the options of a block encoding of `length` bytes; the codec's number for the kernel. */
export function blockCodec(length: number, options: EncodeBlockOptions): number {
  const { typesize, nsplits, codec } = options;
  checkTypesize(typesize);
  if (!Number.isInteger(nsplits) || nsplits < 1 || length % nsplits !== 0) {
    throw new UsageError("INVALID_ARGUMENT", "split count must divide the block length", { field: "nsplits", actual: nsplits });
  }
  const codecNumber = CODEC_NUMBERS[codec];
  if (codecNumber === undefined) throw new UsageError("INVALID_ARGUMENT", "codec not available in WebAssembly", { field: "cname", actual: codec });
  return codecNumber;
}
