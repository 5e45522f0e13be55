/**
 * Small checksum helpers (Adler-32 of RFC 1950, CRC-32 of ISO-HDLC / zlib), for the zlib trailer
 * check and for later container checksums.
 *
 * @example
 * ```ts
 * import { adler32, crc32 } from "@fmt/header";
 * adler32(new TextEncoder().encode("abc")); // 0x024d0127
 * crc32(new TextEncoder().encode("123456789")); // 0xcbf43926
 * ```
 * @module
 */

import { adler32Wasm, crc32Wasm } from "./checksum-wasm.js";

const ADLER_MOD = 65521;
// Largest n such that 255·n·(n+1)/2 + (n+1)·(ADLER_MOD−1) stays below 2^32, so the sums can be
// reduced once per run instead of once per byte (the same bound zlib uses).
const ADLER_NMAX = 5552;

/**
 * Adler-32 checksum (RFC 1950) of `bytes`, as an unsigned 32-bit number. Pass the previous result
 * as `previous` to continue a checksum over several pieces.
 *
 * @param bytes - data to checksum.
 * @param previous - running checksum of the preceding data; 1 (the empty-input value) by default.
 * @returns the checksum, in `[0, 2^32)`.
 * @example
 * ```ts
 * const data = new TextEncoder().encode("abc");
 * adler32(data) === 0x024d0127; // true
 * adler32(data.subarray(1), adler32(data.subarray(0, 1))) === 0x024d0127; // true
 * ```
 */
export function adler32(bytes: Uint8Array, previous = 1): number {
  if (bytes.length >= MIN_WASM_ADLER_BYTES) {
    const sum = inPlaceChecksums?.("adler32", bytes, previous) ?? adler32Wasm(bytes, previous);
    if (sum !== undefined) return sum;
  }
  return adler32Js(bytes, previous);
}

/**
 * Computes a checksum of bytes where they lie when they are in memory that has checksum kernels
 * of its own, or answers `undefined` (the bytes are then copied into this package's module).
 * The same sums as {@link adler32}.
 *
 * @example
 * ```ts
 * const provider: InPlaceChecksums = (name, bytes, previous) => undefined; // never in place
 * ```
 */
export type InPlaceChecksums = (name: "adler32", bytes: Uint8Array, previous: number) => number | undefined;

let inPlaceChecksums: InPlaceChecksums | undefined;

/**
 * Lets {@link adler32} compute sums in the memory the bytes lie in: `@fmt/blosc` installs its
 * kernels here, so that a format-2 chunk read into (or encoded in) the decoder's WebAssembly
 * memory is checksummed there instead of being copied 64 KiB at a time into this package's
 * module. There is one provider at a time: this returns the one it replaces, for the new one to
 * ask about bytes it does not hold (as `@fmt/blosc` does). `undefined` removes the provider.
 *
 * @example
 * ```ts
 * const previous = useInPlaceChecksums((name, bytes, sum) => myKernels.adler32Here(bytes, sum) ?? previous?.(name, bytes, sum));
 * useInPlaceChecksums(undefined);
 * ```
 */
export function useInPlaceChecksums(provider: InPlaceChecksums | undefined): InPlaceChecksums | undefined {
  const replaced = inPlaceChecksums;
  inPlaceChecksums = provider;
  return replaced;
}

/**
 * Inputs at least this long go to the WebAssembly kernel (checksum-wasm.ts); shorter ones stay
 * in JavaScript, where the copy and the call would cost more than the loop.
 */
const MIN_WASM_ADLER_BYTES = 128;

/**
 * {@link adler32} in JavaScript only (the fallback where WebAssembly SIMD is missing).
 *
 * @internal
 * @example
 * ```ts
 * adler32Js(new TextEncoder().encode("abc")) === 0x024d0127; // true
 * ```
 */
export function adler32Js(bytes: Uint8Array, previous = 1): number {
  let a = previous & 0xffff;
  let b = (previous >>> 16) & 0xffff;
  const n = bytes.length;
  let i = 0;
  while (i < n) {
    const end = Math.min(n, i + ADLER_NMAX);
    for (; i < end; i++) {
      a += bytes[i]!;
      b += a;
    }
    a %= ADLER_MOD;
    b %= ADLER_MOD;
  }
  return ((b << 16) | a) >>> 0;
}

let crcTables: Int32Array | undefined;

// Eight tables of 256 entries (slicing-by-8): table k maps a byte to its CRC contribution k bytes
// further on, so eight input bytes cost eight lookups and no loop-carried shifts per byte. About
// four times the speed of the one-table loop, which mattered once every read verifies checksums.
function buildCrcTables(): Int32Array {
  const t = new Int32Array(8 * 256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c;
  }
  for (let n = 0; n < 256; n++) {
    for (let k = 1; k < 8; k++) t[k * 256 + n] = (t[(k - 1) * 256 + n]! >>> 8) ^ t[t[(k - 1) * 256 + n]! & 0xff]!;
  }
  return t;
}

/**
 * CRC-32 (the reflected 0xEDB88320 polynomial of zlib, PNG and gzip) of `bytes`, as an unsigned
 * 32-bit number. Pass the previous result as `previous` to continue over several pieces.
 *
 * @param bytes - data to checksum.
 * @param previous - running CRC of the preceding data; 0 (the empty-input value) by default.
 * @returns the CRC, in `[0, 2^32)`.
 * @example
 * ```ts
 * crc32(new TextEncoder().encode("123456789")) === 0xcbf43926; // true
 * ```
 */
export function crc32(bytes: Uint8Array, previous = 0): number {
  // A registered platform implementation is used for inputs long enough to repay the call.
  if (fastCrc32 !== undefined && bytes.length >= 64) return fastCrc32(bytes, previous);
  if (bytes.length >= MIN_WASM_CRC_BYTES) {
    const crc = crc32Wasm(bytes, previous);
    if (crc !== undefined) return crc;
  }
  return crc32Js(bytes, previous);
}

/** Inputs at least this long go to the WebAssembly kernel when no platform CRC-32 is registered. */
const MIN_WASM_CRC_BYTES = 256;

/**
 * {@link crc32} in JavaScript only (the fallback where WebAssembly SIMD is missing).
 *
 * @internal
 * @example
 * ```ts
 * crc32Js(new TextEncoder().encode("123456789")) === 0xcbf43926; // true
 * ```
 */
export function crc32Js(bytes: Uint8Array, previous = 0): number {
  const t = (crcTables ??= buildCrcTables());
  let c = ~previous;
  const n = bytes.length;
  let i = 0;
  for (; i + 8 <= n; i += 8) {
    const a = c ^ (bytes[i]! | (bytes[i + 1]! << 8) | (bytes[i + 2]! << 16) | (bytes[i + 3]! << 24));
    c =
      t[1792 + (a & 0xff)]! ^ t[1536 + ((a >>> 8) & 0xff)]! ^ t[1280 + ((a >>> 16) & 0xff)]! ^ t[1024 + (a >>> 24)]! ^
      t[768 + bytes[i + 4]!]! ^ t[512 + bytes[i + 5]!]! ^ t[256 + bytes[i + 6]!]! ^ t[bytes[i + 7]!]!;
  }
  for (; i < n; i++) c = t[(c ^ bytes[i]!) & 0xff]! ^ (c >>> 8);
  return ~c >>> 0;
}

/**
 * A CRC-32 function with zlib's signature: `(bytes, previous) => crc` of `bytes` continuing from
 * `previous` (0 to start).
 *
 * @example
 * ```ts
 * const impl: Crc32Function = (bytes, previous = 0) => crc32(bytes, previous);
 * ```
 */
export type Crc32Function = (bytes: Uint8Array, previous?: number) => number;

let fastCrc32: Crc32Function | undefined;

/**
 * Makes {@link crc32} use `impl` (for example Node's native CRC-32, which `useNativeCrc32` of
 * `@fmt/header/node` hands over) for inputs of 64 bytes or more, after checking that it gives the same values as the
 * built-in code on known inputs; `undefined` goes back to the built-in code. Resolves to whether
 * `impl` is now in use. Format-2 readers verify a checksum over every chunk they read, so this is
 * where native code pays.
 *
 * @example
 * ```ts
 * useCrc32(myFasterCrc32); // true when it agrees with the built-in code
 * useCrc32(undefined);      // back to the built-in code
 * ```
 */
export function useCrc32(impl: Crc32Function | undefined): boolean {
  fastCrc32 = undefined;
  if (impl === undefined) return false;
  const probe = new Uint8Array(1031);
  for (let i = 0; i < probe.length; i++) probe[i] = (i * 131 + 7) & 0xff;
  try {
    const same = impl(probe, 0) === crc32(probe) && impl(probe.subarray(100), crc32(probe.subarray(0, 100))) === crc32(probe);
    if (same) fastCrc32 = impl;
  } catch {
    // an implementation that throws is not used
  }
  return fastCrc32 !== undefined;
}
