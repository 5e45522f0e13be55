/**
 * The compute kernels of Blosc decoding and the choice between them: the replaceable
 * {@link BloscKernels} object (portable TypeScript by default, or whatever `setKernels` installs),
 * the WebAssembly SIMD kernels behind the `"wasm"` / `"js"` / `"auto"` decoding backend, and the
 * kernels a call decodes with (WebAssembly filters under the TypeScript container path for
 * codecs WebAssembly does not decode, the caller's zlib when it brought one).
 *
 * A module of its own because this is module-wide state that every decoding path consults, while
 * the decoding itself (decompress.ts, decode-block.ts, element-pieces.ts) only asks which kernels
 * to use. decompress.ts re-exports the public part.
 *
 * @example
 * ```ts
 * setDecodeBackend("js");
 * const wasm = activeWasm(); // undefined now
 * const k = withZlib(wasm === undefined ? kernels : filterKernels(wasm), plan.zlib);
 * ```
 * @module
 */
import { UsageError } from "@fmt/errors";
import type { ChunkHeader, CodecFormat } from "@fmt/header";
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

/**
 * The kernels in use: the portable TypeScript ones unless `setKernels` installed others. Exported
 * as a live binding for the decoding paths to read; only `setKernels` changes it.
 *
 * @example
 * ```ts
 * const k = wasm === undefined ? kernels : filterKernels(wasm);
 * ```
 * @internal
 */
export let kernels: BloscKernels = JS_KERNELS;

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

/**
 * The WebAssembly kernels when decoding uses them, loaded on first use: `undefined` with the
 * `"js"` backend, with kernels set by `setKernels`, or where WebAssembly SIMD is unavailable.
 *
 * @example
 * ```ts
 * const wasm = activeWasm();
 * if (wasm !== undefined && usesWasmCodec(header)) wasm.decodeValidated(chunk, header, { out, path, length: header.nbytes });
 * ```
 * @internal
 */
export function activeWasm(): WasmKernels | undefined {
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

/**
 * The TypeScript container path with WebAssembly filters, for chunks whose codec (snappy, zlib,
 * zstd) has no WebAssembly decoder.
 *
 * @example
 * ```ts
 * const k = wasm === undefined ? kernels : filterKernels(wasm);
 * ```
 * @internal
 */
export function filterKernels(wasm: WasmKernels): BloscKernels {
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

/**
 * Whether the chunk's codec has a WebAssembly decoder (lz4, BloscLZ). @internal
 *
 * @example
 * ```ts
 * if (wasm !== undefined && usesWasmCodec(header)) wasm.decodeBlock(window, from, bsize, header.typesize, nsplits, header.codecCode, filter, dest, path);
 * ```
 */
export function usesWasmCodec(header: ChunkHeader): boolean {
  return header.codec === "lz4" || header.codec === "blosclz";
}

/**
 * The kernels with the caller's zlib, when the call brought one.
 *
 * @example
 * ```ts
 * const k = withZlib(kernels, plan.zlib); // plan.zlib from DecompressOptions.zlib
 * ```
 * @internal
 */
export function withZlib(k: BloscKernels, zlib: ZlibCodec | undefined): BloscKernels {
  return zlib === undefined ? k : { ...k, codecs: { ...k.codecs, zlib: zlibDecoderOf(zlib) } };
}
