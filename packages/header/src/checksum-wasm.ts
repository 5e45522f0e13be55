/**
 * Adler-32 in WebAssembly SIMD and CRC-32 slicing-by-16 in WebAssembly (wasm/checksums.c),
 * behind `adler32` and `crc32` of checksum.ts for inputs long enough to repay the copies into
 * the module. Format 2 computes one of them over every chunk a writer stores and a reader
 * decodes (Adler-32 by default), and the JavaScript loops ran at ~0.8 GB/s: a format-2 read of
 * the store benchmark's carray with Adler-32 took three times as long as with CRC-32 through
 * Node's zlib. The Adler-32 kernel runs at ~12 GB/s on bytes already in its memory, the CRC-32
 * one at about twice the JavaScript loop's speed (a platform CRC-32 handed to `useCrc32`, such
 * as Node's, stays faster and is used first). Bytes are copied in 64 KiB at a time, so the
 * module's memory never grows.
 *
 * Browser-safe: the module is inlined as base64 and compiled synchronously (2.3 KB, under the
 * 4 KiB that a browser's main thread allows). Where WebAssembly SIMD is missing, both functions
 * answer `undefined` and the JavaScript loops run.
 *
 * @example
 * ```ts
 * const sum = adler32Wasm(bytes, 1) ?? adler32Js(bytes, 1);
 * ```
 * @module
 */
import { CHECKSUMS_WASM_BASE64 } from "./wasm/checksums.generated.js";

interface ChecksumExports {
  memory: WebAssembly.Memory;
  input_buffer(): number;
  adler32(at: number, n: number, previous: number): number;
  crc32(at: number, n: number, previous: number): number;
}

/** Bytes the module takes per call (INPUT_BYTES of checksums.c). */
const PIECE = 65536;

interface LoadedKernels {
  exports: ChecksumExports;
  /** A view of the module's input buffer (its memory never grows, so the view stays valid). */
  input: Uint8Array;
  at: number;
}

// undefined: not tried yet; null: unavailable.
let kernels: LoadedKernels | null | undefined;

function load(): LoadedKernels | null {
  if (typeof WebAssembly !== "object" || typeof atob !== "function") return null;
  const text = atob(CHECKSUMS_WASM_BASE64);
  const bytes = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
  if (!WebAssembly.validate(bytes)) return null; // no SIMD
  try {
    const exports = new WebAssembly.Instance(new WebAssembly.Module(bytes), {}).exports as unknown as ChecksumExports;
    const at = exports.input_buffer();
    return { exports, input: new Uint8Array(exports.memory.buffer, at, PIECE), at };
  } catch {
    return null;
  }
}

/**
 * Adler-32 of `bytes` continuing from `previous`, through the WebAssembly kernel; `undefined`
 * when WebAssembly SIMD is unavailable.
 *
 * @example
 * ```ts
 * adler32Wasm(new TextEncoder().encode("abc"), 1); // 0x024d0127 (or undefined without SIMD)
 * ```
 */
export function adler32Wasm(bytes: Uint8Array, previous: number): number | undefined {
  return inPieces("adler32", bytes, previous);
}

/**
 * CRC-32 of `bytes` continuing from `previous`, through the WebAssembly kernel; `undefined`
 * when WebAssembly SIMD is unavailable.
 *
 * @example
 * ```ts
 * crc32Wasm(new TextEncoder().encode("123456789"), 0); // 0xcbf43926 (or undefined without SIMD)
 * ```
 */
export function crc32Wasm(bytes: Uint8Array, previous: number): number | undefined {
  return inPieces("crc32", bytes, previous);
}

/** Runs kernel `name` over `bytes` in pieces of the module's input buffer, chaining the sums. */
function inPieces(name: "adler32" | "crc32", bytes: Uint8Array, previous: number): number | undefined {
  if (kernels === undefined) kernels = load();
  if (kernels === null) return undefined;
  const { exports, input, at } = kernels;
  let sum = previous >>> 0;
  for (let offset = 0; offset < bytes.length; offset += PIECE) {
    const piece = bytes.subarray(offset, Math.min(bytes.length, offset + PIECE));
    input.set(piece);
    sum = exports[name](at, piece.length, sum) >>> 0;
  }
  return sum;
}
