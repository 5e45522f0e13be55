/**
 * Single codec streams in a kernels instance's memory (the `WasmKernels` stream methods call
 * these): an LZ4 or BloscLZ stream decoded whole or as far as a prefix of it is wanted (one row of
 * a block), and one stream compressed. Browser-safe: no `node:` imports, no `Buffer`.
 *
 * @example
 * ```ts
 * const stream = kernels.encodeStream("lz4", new Uint8Array(1000), 1); // a few bytes
 * ```
 * @module
 */
import { FormatError, UsageError } from "@fmt/errors";
import { ERR_SRC_TRUNCATED, kernelError, streamBound } from "./kernel-abi.js";
import type { KernelArena } from "./kernel-abi.js";
import type { WasmCodecName } from "./types.js";

/**
 * Decode one raw LZ4 block or BloscLZ stream into exactly `dst.length` bytes (the contract of the
 * TypeScript `decodeLz4` and `decodeBlosclz`): throws FormatError CORRUPT_STREAM on any violation.
 *
 * @returns the number of bytes written (always `dst.length`).
 * @example
 * ```ts
 * decodeStreamIn(arena, "lz4", stream, dst, "data/__0.blp");
 * ```
 */
export function decodeStreamIn(arena: KernelArena, codec: "lz4" | "blosclz", src: Uint8Array, dst: Uint8Array, path: string | undefined): number {
  const [ps = 0, pd = 0] = arena.reserve(src.length, dst.length);
  arena.heap().set(src, ps);
  const ex = arena.exports;
  const got = codec === "lz4" ? ex.lz4_decode(ps, src.length, pd, dst.length) : ex.blosclz_decode(ps, src.length, pd, dst.length);
  if (got < 0) throw kernelError(got, `${codec}.stream`, path);
  if (got !== dst.length) {
    throw new FormatError("CORRUPT_STREAM", "stream decodes to fewer bytes than expected", { path, field: `${codec}.length`, expected: dst.length, actual: got });
  }
  dst.set(arena.heap().subarray(pd, pd + got));
  return got;
}

/**
 * Compress one stream: `lz4` (the fast block encoder, `param` its acceleration: 1 best, Blosc
 * uses `10 - clevel`), `lz4hc` (hash chains, `param` 1..12 its search depth 2^level; an ordinary
 * LZ4 block) or `blosclz` (`param` its clevel 1..9, levels below 5 skipping faster over
 * incompressible data; a stream c-blosc 1.14 to 1.21 decode).
 *
 * @param maxOutput - largest acceptable stream; default `src.length - 1` (Blosc stores a split
 *   raw unless its stream is shorter than the split).
 * @returns the stream, or `undefined` if it would exceed `maxOutput`.
 * @example
 * ```ts
 * const stream = encodeStreamIn(arena, "lz4", new Uint8Array(1000), 1); // a few bytes
 * ```
 */
export function encodeStreamIn(arena: KernelArena, codec: WasmCodecName, src: Uint8Array, param: number, maxOutput?: number): Uint8Array | undefined {
  const cap = Math.max(0, Math.min(maxOutput ?? src.length - 1, streamBound(src.length)));
  const [ps = 0, pd = 0] = arena.reserve(src.length, cap);
  arena.heap().set(src, ps);
  const ex = arena.exports;
  const n =
    codec === "lz4"
      ? ex.lz4_encode(ps, src.length, pd, cap, param)
      : codec === "lz4hc"
        ? ex.lz4hc_encode(ps, src.length, pd, cap, param)
        : ex.blosclz_encode(ps, src.length, pd, cap, param);
  return n === 0 ? undefined : arena.heap().slice(pd, pd + n);
}

/**
 * Decode one lz4 or BloscLZ stream of `neblock` decoded bytes, or a prefix of it, until at least
 * `want` bytes are out, and return decoded bytes `[from, want)`.
 *
 * @param codecFormat - the header's codec number: 0 BloscLZ, 1 lz4.
 * @param src - the stream's bytes, or the first of them.
 * @param whole - `src` is the whole stream: ending early is then corruption, not a short prefix.
 * @param from - the first decoded byte wanted (a single row wants one or a few bytes of a
 *   prefix of tens of kilobytes: only those are copied out).
 * @returns a new array of the `want - from` decoded bytes, or `undefined` when `src`, a prefix,
 *   ended first (read more of the stream).
 * @throws FormatError CORRUPT_STREAM when the bytes cannot be the start of a valid stream.
 * @example
 * ```ts
 * const head = decodeStreamPrefixIn(arena, 1, streamStart, 65536, 101) ?? decodeStreamPrefixIn(arena, 1, stream, 65536, 101, path, true);
 * const byte100 = decodeStreamPrefixIn(arena, 1, stream, 65536, 101, path, true, 100); // 1 byte
 * ```
 */
export function decodeStreamPrefixIn(arena: KernelArena, codecFormat: number, src: Uint8Array, neblock: number, want: number, path?: string, whole = false, from = 0): Uint8Array | undefined {
  if (codecFormat !== 0 && codecFormat !== 1) {
    throw new UsageError("INVALID_ARGUMENT", "codec not available in WebAssembly", { field: "codecFormat", expected: "0 or 1", actual: codecFormat });
  }
  if (!Number.isInteger(want) || want < 1 || want > neblock) {
    throw new UsageError("OUT_OF_RANGE", "wanted bytes outside the stream", { path, field: "want", expected: `1..${neblock}`, actual: want });
  }
  if (!Number.isInteger(from) || from < 0 || from >= want) {
    throw new UsageError("OUT_OF_RANGE", "first wanted byte outside the wanted prefix", { path, field: "from", expected: `0..${want - 1}`, actual: from });
  }
  const [ps = 0, pd = 0] = arena.reserve(Math.max(1, src.length), neblock);
  arena.heap().set(src, ps);
  const r = arena.exports.decode_stream_prefix(codecFormat, ps, src.length, pd, neblock, want);
  if (r >= want) return arena.heap().slice(pd + from, pd + want);
  // A prefix may end inside a sequence (ERR_SRC_TRUNCATED) or right after literals (a short
  // count); any other error is corruption whatever follows.
  if (!whole && (r === ERR_SRC_TRUNCATED || r >= 0)) return undefined;
  if (r < 0) throw kernelError(r, "blosc.stream", path);
  throw new FormatError("CORRUPT_STREAM", "stream decodes to fewer bytes than its block needs", { path, field: "blosc.stream", expected: `>= ${want}`, actual: r });
}
