/**
 * Adler-32 in WebAssembly SIMD (wasm/checksums.c), behind {@link adler32} of checksum.ts for
 * inputs long enough to repay the copies into the module: Adler-32 is format 2's default
 * checksum, computed over every chunk a writer stores and a reader decodes, and the JavaScript
 * loop (one byte per step) ran at ~0.8 GB/s, a third of a format-2 read of the store benchmark's
 * carray. The kernel takes 32 bytes per step (~12 GB/s on bytes already in its memory); the
 * bytes are copied in 64 KiB at a time, so the module never grows.
 *
 * Browser-safe: the module is inlined as base64 and compiled synchronously (729 bytes, under the
 * 4 KiB that a browser's main thread allows). Where WebAssembly SIMD is missing, `adler32Wasm`
 * answers `undefined` and the JavaScript loop runs.
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
  if (kernels === undefined) kernels = load();
  if (kernels === null) return undefined;
  const { exports, input, at } = kernels;
  let sum = previous >>> 0;
  for (let offset = 0; offset < bytes.length; offset += PIECE) {
    const piece = bytes.subarray(offset, Math.min(bytes.length, offset + PIECE));
    input.set(piece);
    sum = exports.adler32(at, piece.length, sum) >>> 0;
  }
  return sum;
}
