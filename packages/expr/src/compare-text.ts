// Comparisons for the compiler: the sign tests of the comparison operators and their mirror
// images, and the row-by-row comparisons of text — fixed-width S items (numexpr's rules) and U
// items (code points), and variable-length utf8 and bytes elements. Numbers are compared by the
// kernels (kernels.ts, compare-wasm.ts); this is their counterpart for strings and bytes.
import type { CompareOperator } from "./ast.js";

function stripNul<T extends Uint8Array | Uint32Array>(v: T): T {
  let end = v.length;
  while (end > 0 && v[end - 1] === 0) end--;
  return v.subarray(0, end) as T;
}

export function codePoints(s: string): Uint32Array {
  const out: number[] = [];
  for (const ch of s) out.push(ch.codePointAt(0)!);
  return stripNul(Uint32Array.from(out));
}

export function signTest(op: CompareOperator): (s: number) => boolean {
  switch (op) {
    case "==":
      return (s) => s === 0;
    case "!=":
      return (s) => s !== 0;
    case "<":
      return (s) => s < 0;
    case "<=":
      return (s) => s <= 0;
    case ">":
      return (s) => s > 0;
    case ">=":
      return (s) => s >= 0;
  }
}

export const MIRROR: Record<CompareOperator, CompareOperator> = { "==": "==", "!=": "!=", "<": ">", "<=": ">=", ">": "<", ">=": "<=" };

/** Lexicographic comparison of fixed-width NUL-padded items (bytes or code points). */
export interface FixedVec {
  v: Uint8Array | Uint32Array;
  w: number;
}

export function compareFixed(op: CompareOperator, a: FixedVec, b: FixedVec, n: number): Uint8Array {
  const test = signTest(op);
  const av = a.v;
  const bv = b.v;
  const cmp = (ao: number, aw: number, bo: number, bw: number): number => {
    const len = Math.max(aw, bw);
    for (let j = 0; j < len; j++) {
      const x = j < aw ? av[ao + j]! : 0;
      const y = j < bw ? bv[bo + j]! : 0;
      if (x !== y) return x < y ? -1 : 1;
    }
    return 0;
  };
  const as = a.w < 0;
  const bs = b.w < 0;
  const out = new Uint8Array(n);
  const aw = as ? av.length : a.w;
  const bw = bs ? bv.length : b.w;
  for (let i = 0; i < n; i++) out[i] = test(cmp(as ? 0 : i * aw, aw, bs ? 0 : i * bw, bw)) ? 1 : 0;
  return out;
}

/**
 * numexpr's comparison of S items: bytes compare as C's (signed) `char`, the shorter item is
 * padded with NULs, and an empty item on either side only asks whether the other item's first
 * byte is not NUL (1) or is (0) — never −1.
 */
function stringSign(av: Uint8Array, ao: number, aw: number, bv: Uint8Array, bo: number, bw: number): number {
  if (bw === 0) return aw > 0 && av[ao] !== 0 ? 1 : 0;
  if (aw === 0) return bv[bo] !== 0 ? 1 : 0;
  const len = Math.max(aw, bw);
  for (let j = 0; j < len; j++) {
    const x = j < aw ? (av[ao + j]! << 24) >> 24 : 0;
    const y = j < bw ? (bv[bo + j]! << 24) >> 24 : 0;
    if (x !== y) return x < y ? -1 : 1;
  }
  return 0;
}

export function compareStrings(test: (s: number) => boolean, a: FixedVec, b: FixedVec, n: number): Uint8Array {
  const av = a.v as Uint8Array;
  const bv = b.v as Uint8Array;
  const aw = a.w < 0 ? av.length : a.w;
  const bw = b.w < 0 ? bv.length : b.w;
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i++) out[i] = test(stringSign(av, a.w < 0 ? 0 : i * aw, aw, bv, b.w < 0 ? 0 : i * bw, bw)) ? 1 : 0;
  return out;
}

/** Sign of a − b in Unicode code point order (which is UTF-8 byte order), for JS strings. */
export function compareCodePoints(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    let x = a.charCodeAt(i);
    let y = b.charCodeAt(i);
    if (x === y) continue;
    if (x >= 0xd800 && y >= 0xd800) {
      // A surrogate stands for a code point above every BMP unit from U+E000 on.
      x = x >= 0xe000 ? x - 0x800 : x + 0x2000;
      y = y >= 0xe000 ? y - 0x800 : y + 0x2000;
    }
    return x < y ? -1 : 1;
  }
  return a.length === b.length ? 0 : a.length < b.length ? -1 : 1;
}

/** Sign of a − b in unsigned byte order (a proper prefix sorts first). */
export function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i]! < b[i]! ? -1 : 1;
  return a.length === b.length ? 0 : a.length < b.length ? -1 : 1;
}
