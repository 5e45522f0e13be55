/**
 * The comparison of a column block with a scalar in WebAssembly SIMD (wasm/compare.c): the
 * innermost loop of most `where` queries. A JavaScript loop compares about one row per
 * nanosecond; the SIMD kernel sixteen rows in a few instructions, so a block is copied into the
 * module, compared and its mask copied out in about a fifth of the time.
 *
 * Only comparisons the kernel does exactly as JavaScript would are handed to it: float64 blocks
 * with any scalar, float32 blocks with a scalar that is itself a float32 value, int32 blocks
 * with an int32 scalar. Everything else (and every block where WebAssembly SIMD is unavailable,
 * or not compiled yet on a browser's main thread) stays with the JavaScript loops of
 * compare-numbers.ts.
 *
 * @example
 * ```ts
 * const out = new Uint8Array(1000);
 * if (compareScalarWasm(">", values, 2.5, 1000, out) < 0) compareInJs(values, 2.5, out);
 * ```
 * @module
 */
import type { CmpOp } from "./vectors.js";
import { COMPARE_WASM_BASE64 } from "./wasm/compare.generated.js";

interface CompareExports {
  memory: WebAssembly.Memory;
  reserve(bytes: number): number;
  compare_f64(op: number, a: number, n: number, b: number, out: number, mode: number): number;
  compare_f32(op: number, a: number, n: number, b: number, out: number, mode: number): number;
  compare_i32(op: number, a: number, n: number, b: number, out: number, mode: number): number;
  count_ones(mask: number, n: number): number;
  mask_rows(mask: number, n: number, first: number, out: number): number;
}

const OP_NUMBERS: { readonly [op in CmpOp]: number } = { "==": 0, "!=": 1, "<": 2, "<=": 3, ">": 4, ">=": 5 };
/** How a kernel treats the mask it is given (wasm/compare.c). */
const MODE_SET = 0;
const MODE_AND = 1;
const MODE_OR = 2;

/** Blocks shorter than this stay in JavaScript: the two copies and the call cost more than they save. */
export const MIN_WASM_ROWS = 64;

// undefined: not tried yet; null: unavailable (no SIMD) or compiling asynchronously.
let kernels: CompareExports | null | undefined;

function moduleBytes(): Uint8Array<ArrayBuffer> {
  const text = atob(COMPARE_WASM_BASE64);
  const bytes = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
  return bytes;
}

function instantiate(module: WebAssembly.Module): CompareExports {
  return new WebAssembly.Instance(module, {}).exports as unknown as CompareExports;
}

function load(): CompareExports | null {
  if (typeof WebAssembly !== "object") return null;
  const bytes = moduleBytes();
  if (!WebAssembly.validate(bytes)) return null; // no SIMD
  try {
    return instantiate(new WebAssembly.Module(bytes));
  } catch {
    // A browser's main thread refuses to compile modules over 4 KiB synchronously: compile in
    // the background, and compare in JavaScript until then.
    WebAssembly.compile(bytes).then(
      (module) => {
        kernels = instantiate(module);
      },
      () => undefined,
    );
    return null;
  }
}

function available(): CompareExports | null {
  if (kernels === undefined) kernels = load();
  return kernels;
}

/**
 * One comparison of a column block with a scalar, as the kernels take it: `a[i] op b` for rows
 * `[0, n)`.
 *
 * @example
 * ```ts
 * const term: ScalarTerm = { op: ">", a: new Float64Array([1, 3]), b: 2 };
 * ```
 */
export interface ScalarTerm {
  op: CmpOp;
  a: Float64Array | Float32Array | Int32Array;
  b: number;
}

/** The kernel's element kind for `term` over n rows: 0 f64, 1 f32, 2 i32; -1 when it cannot be exact (or n is out of range). */
function kindOf(term: ScalarTerm, n: number): 0 | 1 | 2 | -1 {
  const { a, b } = term;
  if (n < MIN_WASM_ROWS || n > a.length) return -1;
  if (a instanceof Float64Array) return 0;
  if (a instanceof Float32Array) return Math.fround(b) === b ? 1 : -1; // NaN is not
  if (a instanceof Int32Array) return (b | 0) === b ? 2 : -1; // not an int32 value (or NaN)
  return -1;
}

/** Copies the term's rows to `at` in module memory and runs its kernel; the count, or -1. */
function runTerm(ex: CompareExports, term: ScalarTerm, kind: 0 | 1 | 2, n: number, at: number, out: number, mode: number): number {
  const buffer = ex.memory.buffer;
  const code = OP_NUMBERS[term.op];
  if (kind === 0) {
    new Float64Array(buffer, at, n).set(term.a.subarray(0, n));
    return ex.compare_f64(code, at, n, term.b, out, mode);
  }
  if (kind === 1) {
    new Float32Array(buffer, at, n).set(term.a.subarray(0, n));
    return ex.compare_f32(code, at, n, term.b, out, mode);
  }
  new Int32Array(buffer, at, n).set(term.a.subarray(0, n));
  return ex.compare_i32(code, at, n, term.b, out, mode);
}

/**
 * Writes `a[i] op b` (1 or 0) for rows `[0, n)` into `out` with the SIMD kernel, when the kernel
 * computes exactly what JavaScript would for this element type and scalar; with `out` undefined
 * only counts the rows that hold (no mask is made or copied).
 *
 * @returns how many rows hold (`out` was written when given), or -1 when the caller must compare
 *   itself.
 * @example
 * ```ts
 * compareScalarWasm(">", new Float64Array(100).fill(3), 2, 100, out); // 100, out filled with 1s
 * compareScalarWasm(">", new Float64Array(100).fill(3), 2, 100); // 100 (-1 when n < MIN_WASM_ROWS)
 * ```
 */
export function compareScalarWasm(op: CmpOp, a: Float64Array | Float32Array | Int32Array, b: number, n: number, out?: Uint8Array): number {
  if (out === undefined) {
    const count = evaluateTermsWasm([{ op, a, b }], n, true, "count");
    return count === undefined ? -1 : count;
  }
  if (n > out.length) return -1;
  const mask = evaluateTermsWasm([{ op, a, b }], n, true, "mask");
  if (mask === undefined) return -1;
  out.set(mask.bytes);
  return mask.count;
}

/**
 * What {@link evaluateTermsWasm} gives for each `want`.
 *
 * @example
 * ```ts
 * const mask: TermsResult["mask"] | undefined = evaluateTermsWasm(terms, n, true, "mask");
 * const copy = mask?.bytes.slice(); // before any other call into the module
 * ```
 */
export interface TermsResult {
  /**
   * The 0/1 mask and its count of 1s. The mask is a view of module memory: valid until the next
   * call into this module, whose memory may grow and leave the view detached (length 0).
   */
  mask: { bytes: Uint8Array; count: number };
  /** How many rows hold. */
  count: number;
  /** The rows that hold, `first` + their position, in increasing order (a new array). */
  rows: Float64Array;
}

/**
 * `t0 & t1 & …` (`isAnd`) or `t0 | t1 | …` of comparisons with scalars over rows `[0, n)`, built
 * in module memory by the SIMD kernels: each column block is copied in once, the mask never
 * leaves the module unless asked for, and a single comparison counted needs no mask at all.
 *
 * @returns the `want`ed result, or `undefined` when the caller must evaluate the terms itself
 *   (a term the kernels cannot do exactly, a block shorter than MIN_WASM_ROWS, no SIMD).
 * @example
 * ```ts
 * const rows = evaluateTermsWasm([{ op: ">", a: price, b: 10 }, { op: "<", a: qty, b: 5 }], 1000, true, "rows", 5000);
 * ```
 */
export function evaluateTermsWasm<W extends keyof TermsResult>(terms: readonly ScalarTerm[], n: number, isAnd: boolean, want: W, first = 0): TermsResult[W] | undefined {
  if (terms.length === 0) return undefined;
  let inputBytes = 0;
  const kinds: (0 | 1 | 2)[] = [];
  for (const term of terms) {
    const kind = kindOf(term, n);
    if (kind < 0) return undefined;
    kinds.push(kind as 0 | 1 | 2);
    inputBytes = Math.max(inputBytes, term.a.BYTES_PER_ELEMENT * n);
  }
  const ex = available();
  if (ex === null) return undefined;
  // Layout: the mask, then the input (each 16-aligned), then the row numbers. Sizes stay numbers:
  // a 32-bit `& ~15` would wrap for blocks of 2^28 float64 rows and more, past the guard below.
  const align = (x: number): number => Math.ceil(x / 16) * 16;
  const countOnly = want === "count" && terms.length === 1;
  const maskBytes = countOnly ? 0 : align(n);
  const rowsAt = maskBytes + align(inputBytes);
  const bytes = rowsAt + (want === "rows" ? 8 * n : 0);
  // reserve takes a 32-bit size: a block beyond it (some 250 M float64 rows) stays with JavaScript.
  if (bytes > 2 ** 32 - 2 ** 20) return undefined;
  const base = ex.reserve(bytes);
  if (base === 0) return undefined;
  const out = countOnly ? 0 : base;
  let count = -1;
  for (let t = 0; t < terms.length; t++) {
    count = runTerm(ex, terms[t]!, kinds[t]!, n, base + maskBytes, out, t === 0 ? MODE_SET : isAnd ? MODE_AND : MODE_OR);
    if (count < 0) return undefined;
  }
  const buffer = ex.memory.buffer;
  if (want === "count") return count as TermsResult[W];
  if (want === "mask") return { bytes: new Uint8Array(buffer, base, n), count } as TermsResult[W];
  const found = ex.mask_rows(base, n, first, base + rowsAt);
  return new Float64Array(buffer, base + rowsAt, found).slice() as TermsResult[W];
}

/**
 * The number of 1 bytes of a 0/1 mask, with the SIMD kernel.
 *
 * @returns the count, or -1 when the caller must count itself (a short mask, no SIMD).
 * @example
 * ```ts
 * countOnesWasm(new Uint8Array(100).fill(1)); // 100
 * ```
 */
export function countOnesWasm(mask: Uint8Array): number {
  const n = mask.length;
  if (n < MIN_WASM_ROWS) return -1;
  const ex = available();
  if (ex === null) return -1;
  const base = ex.reserve(n);
  if (base === 0) return -1;
  new Uint8Array(ex.memory.buffer, base, n).set(mask);
  return ex.count_ones(base, n);
}

/**
 * The row numbers of the 1 bytes of a 0/1 mask, `first` + their position, in increasing order,
 * with the SIMD kernel.
 *
 * @returns a new array of exactly their count, or `undefined` when the caller must scan the mask
 *   itself.
 * @example
 * ```ts
 * const rows = maskRowsWasm(mask, 65536); // Float64Array of 65536 + the position of each 1
 * ```
 */
export function maskRowsWasm(mask: Uint8Array, first: number): Float64Array | undefined {
  const n = mask.length;
  if (n < MIN_WASM_ROWS) return undefined;
  const ex = available();
  if (ex === null) return undefined;
  const rowsAt = Math.ceil(n / 16) * 16;
  // reserve takes a 32-bit size: a mask beyond it (some 470 M rows) stays with JavaScript.
  if (rowsAt + 8 * n > 2 ** 32 - 2 ** 20) return undefined;
  const base = ex.reserve(rowsAt + 8 * n);
  if (base === 0) return undefined;
  const buffer = ex.memory.buffer;
  new Uint8Array(buffer, base, n).set(mask);
  const count = ex.mask_rows(base, n, first, base + rowsAt);
  return new Float64Array(buffer, base + rowsAt, count).slice();
}
