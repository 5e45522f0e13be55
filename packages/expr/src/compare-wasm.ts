/**
 * The comparison of a column block with a scalar in WebAssembly SIMD (wasm/compare.c): the
 * innermost loop of most `where` queries. A JavaScript loop compares about one row per
 * nanosecond; the SIMD kernel sixteen rows in a few instructions, so a block is copied into the
 * module, compared and its mask copied out in about a fifth of the time.
 *
 * Only comparisons the kernel does exactly as JavaScript would are handed to it: float64 blocks
 * with any scalar, float32 blocks with a scalar that is itself a float32 value, int32 blocks
 * with an int32 scalar. Everything else (and every block where WebAssembly SIMD is unavailable,
 * or not compiled yet on a browser's main thread) stays with the JavaScript loops of kernels.ts.
 *
 * @example
 * ```ts
 * const out = new Uint8Array(1000);
 * if (compareScalarWasm(">", values, 2.5, 1000, out) < 0) compareInJs(values, 2.5, out);
 * ```
 * @module
 */
import type { CmpOp } from "./kernels.js";
import { COMPARE_WASM_BASE64 } from "./wasm/compare.generated.js";

interface CompareExports {
  memory: WebAssembly.Memory;
  reserve(bytes: number): number;
  compare_f64(op: number, a: number, n: number, b: number, out: number): number;
  compare_f32(op: number, a: number, n: number, b: number, out: number): number;
  compare_i32(op: number, a: number, n: number, b: number, out: number): number;
  count_ones(mask: number, n: number): number;
  mask_positions(mask: number, n: number, out: number): number;
}

const OP_NUMBERS: { readonly [op in CmpOp]: number } = { "==": 0, "!=": 1, "<": 2, "<=": 3, ">": 4, ">=": 5 };

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
  if (n < MIN_WASM_ROWS || n > a.length || (out !== undefined && n > out.length)) return -1;
  let kind: 0 | 1 | 2;
  if (a instanceof Float64Array) kind = 0;
  else if (a instanceof Float32Array) {
    if (Math.fround(b) !== b) return -1; // includes NaN
    kind = 1;
  } else {
    if ((b | 0) !== b) return -1; // not an int32 value (or NaN)
    kind = 2;
  }
  const ex = available();
  if (ex === null) return -1;
  const size = a.BYTES_PER_ELEMENT * n;
  // The mask goes after the input, 16-aligned.
  const maskAt = (size + 15) & ~15;
  const base = ex.reserve(out === undefined ? size : maskAt + n);
  if (base === 0) return -1;
  const buffer = ex.memory.buffer;
  if (kind === 0) new Float64Array(buffer, base, n).set(a.subarray(0, n));
  else if (kind === 1) new Float32Array(buffer, base, n).set(a.subarray(0, n));
  else new Int32Array(buffer, base, n).set(a.subarray(0, n));
  const code = OP_NUMBERS[op];
  const outAt = out === undefined ? 0 : base + maskAt;
  const count = kind === 0 ? ex.compare_f64(code, base, n, b, outAt) : kind === 1 ? ex.compare_f32(code, base, n, b, outAt) : ex.compare_i32(code, base, n, b, outAt);
  if (count < 0) return -1;
  if (out !== undefined) out.set(new Uint8Array(buffer, base + maskAt, n));
  return count;
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
 * The positions of the 1 bytes of a 0/1 mask, in increasing order, with the SIMD kernel.
 *
 * @returns a new array of exactly their count, or `undefined` when the caller must scan the mask
 *   itself.
 * @example
 * ```ts
 * const at = maskPositionsWasm(mask); // Uint32Array of the rows of the mask's 1s
 * ```
 */
export function maskPositionsWasm(mask: Uint8Array): Uint32Array | undefined {
  const n = mask.length;
  if (n < MIN_WASM_ROWS) return undefined;
  const ex = available();
  if (ex === null) return undefined;
  const positionsAt = (n + 15) & ~15;
  const base = ex.reserve(positionsAt + 4 * n);
  if (base === 0) return undefined;
  const buffer = ex.memory.buffer;
  new Uint8Array(buffer, base, n).set(mask);
  const count = ex.mask_positions(base, n, base + positionsAt);
  return new Uint32Array(buffer, base + positionsAt, count).slice();
}
