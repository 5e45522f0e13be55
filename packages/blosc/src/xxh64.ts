/**
 * XXH64 with seed 0, the hash behind the optional zstd frame checksum (RFC 8878 §3.1.1: the
 * checksum is its low 32 bits). Written with BigInt: c-blosc never writes checksummed frames, so
 * this runs only on streams from other writers, where correctness matters more than speed.
 *
 * @example
 * ```ts
 * import { xxh64Low32 } from "./xxh64.js";
 * xxh64Low32(new Uint8Array(0), 0, 0); // 0x51d8e999
 * ```
 * @module
 */

const MASK = (1n << 64n) - 1n;
const P1 = 0x9e3779b185ebca87n;
const P2 = 0xc2b2ae3d27d4eb4fn;
const P3 = 0x165667b19e3779f9n;
const P4 = 0x85ebca77c2b2ae63n;
const P5 = 0x27d4eb2f165667c5n;

function rotl(v: bigint, r: bigint): bigint {
  return ((v << r) | (v >> (64n - r))) & MASK;
}

function lane(bytes: Uint8Array, at: number): bigint {
  const view = new DataView(bytes.buffer, bytes.byteOffset + at, 8);
  return view.getBigUint64(0, true);
}

function round(acc: bigint, input: bigint): bigint {
  return (rotl((acc + input * P2) & MASK, 31n) * P1) & MASK;
}

function merge(acc: bigint, v: bigint): bigint {
  return (((acc ^ round(0n, v)) * P1) + P4) & MASK;
}

/**
 * The low 32 bits of XXH64 (seed 0) of `bytes[start..end)`.
 *
 * @example
 * ```ts
 * xxh64Low32(decoded, 0, decoded.length) === storedChecksum;
 * ```
 */
export function xxh64Low32(bytes: Uint8Array, start: number, end: number): number {
  const length = end - start;
  let p = start;
  let acc: bigint;
  if (length >= 32) {
    let v1 = (P1 + P2) & MASK;
    let v2 = P2;
    let v3 = 0n;
    let v4 = (-P1) & MASK;
    for (; p + 32 <= end; p += 32) {
      v1 = round(v1, lane(bytes, p));
      v2 = round(v2, lane(bytes, p + 8));
      v3 = round(v3, lane(bytes, p + 16));
      v4 = round(v4, lane(bytes, p + 24));
    }
    acc = (rotl(v1, 1n) + rotl(v2, 7n) + rotl(v3, 12n) + rotl(v4, 18n)) & MASK;
    acc = merge(merge(merge(merge(acc, v1), v2), v3), v4);
  } else acc = P5;
  acc = (acc + BigInt(length)) & MASK;
  for (; p + 8 <= end; p += 8) acc = ((rotl(acc ^ round(0n, lane(bytes, p)), 27n) * P1) + P4) & MASK;
  if (p + 4 <= end) {
    const word = BigInt((bytes[p]! | (bytes[p + 1]! << 8) | (bytes[p + 2]! << 16) | (bytes[p + 3]! << 24)) >>> 0);
    acc = ((rotl((acc ^ ((word * P1) & MASK)), 23n) * P2) + P3) & MASK;
    p += 4;
  }
  for (; p < end; p++) acc = (rotl(acc ^ ((BigInt(bytes[p]!) * P5) & MASK), 11n) * P1) & MASK;
  acc ^= acc >> 33n;
  acc = (acc * P2) & MASK;
  acc ^= acc >> 29n;
  acc = (acc * P3) & MASK;
  acc ^= acc >> 32n;
  return Number(acc & 0xffffffffn);
}
