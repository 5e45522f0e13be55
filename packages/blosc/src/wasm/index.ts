/**
 * WebAssembly SIMD kernels for Blosc 1.x: byte/bit (un)shuffle, LZ4 and BloscLZ stream codecs,
 * and whole-block / whole-chunk decoding in one call. The module (built from `wasm/*.c` by
 * `wasm/build.sh`) is inlined as base64, so loading needs neither `fetch` nor `fs`; it requires
 * WebAssembly SIMD (Node 16.4+, Chrome 91+, Firefox 89+, Safari 16.4+). When that is missing the
 * loaders return `undefined` and callers keep using the TypeScript implementations.
 *
 * This module is the entry point; the code lives in kernel-abi.ts (the module's exports, error
 * codes and call helpers), types.ts (option and arena types), kernels.ts (the `WasmKernels`
 * class), kernel-streams.ts, kernel-encode.ts and zstd-arena.ts (single streams, block encoding
 * and the zstd arena, which the class calls) and load.ts (decoding and instantiating the module).
 *
 * Browser-safe: no `node:` imports, no `Buffer`.
 *
 * @example
 * ```ts
 * import { loadWasmKernels } from "./index.js";
 * const kernels = loadWasmKernels();
 * if (kernels !== undefined) {
 *   const planes = kernels.shuffle(new Uint8Array([1, 2, 3, 4, 5, 6, 7, 8]), 4); // 1 5 2 6 3 7 4 8
 * }
 * ```
 * @module
 */
export type { DecodeChunkOptions, EncodeBlockOptions, WasmCodecName, ZstdArena } from "./types.js";
export { WasmKernels } from "./kernels.js";
export { decodeBase64, initWasmKernels, loadSharedWasmKernels, loadWasmKernels } from "./load.js";
export { withSharedMemory } from "./shared-memory.js";
export { sharedShift } from "./kernel-abi.js";
