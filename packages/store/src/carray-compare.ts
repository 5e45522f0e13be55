/**
 * A carray's rows compared with a constant as they are stored, for `CTable.where` (its
 * `compareColumn`): each chunk @fmt/blosc's plane kernel takes (byte-shuffled or one-byte values,
 * BloscLZ or LZ4) is compared on its byte planes, which are decoded only as far as they decide and
 * never unshuffled; any other chunk (memcpyed, bit-shuffled, zlib, zstd or snappy, rows in memory
 * or in the cache) is decoded and compared here. Written once for both format versions over the
 * read engine.
 *
 * @example
 * ```ts
 * await compareStoredOf(ctx, { column: "price", op: ">", value: 2.5 }, { start: 0, stop: ctx.length, masks: false }, (first, n) => (count += n));
 * ```
 * @module
 */
import { comparePlanned } from "@fmt/blosc";
import type { PlaneComparison } from "@fmt/blosc";
import { UsageError } from "@fmt/errors";
import { decodeValues } from "@fmt/expr";
import type { StoredComparison } from "@fmt/expr";
import type { DType } from "@fmt/meta";
import type { ScanContext } from "./carray-scan.js";

/** `visit` of {@link compareStoredOf}: a run of rows, its matches and (when asked) its 0/1 mask. */
export type ComparedRows = (first: number, matches: number, mask: Uint8Array | undefined) => void;

/**
 * The plane kernel's form of `comparison` on values of `dtype`, or `undefined` when it would not
 * compare exactly as the expression does: a dtype other than little-endian int8–int64,
 * uint8–uint32, float32 or float64 of one value per row; a constant outside the dtype's values;
 * a NaN or zero float constant (−0 and +0 are equal, their bytes are not).
 *
 * @example
 * ```ts
 * planeComparisonOf(parseDtype("<i4"), 1, { column: "qty", op: "<", value: 10 }); // { kind: "signed", op: "<", value: Uint8Array [10, 0, 0, 0] }
 * ```
 */
export function planeComparisonOf(dtype: DType, itemsPerRow: number, comparison: StoredComparison): PlaneComparison | undefined {
  const { kind, itemsize, str } = dtype;
  const { op, value } = comparison;
  if (itemsPerRow !== 1 || !(str.startsWith("<") || itemsize === 1)) return undefined;
  if (kind === "f" && (itemsize === 4 || itemsize === 8)) {
    if (typeof value !== "number" || Number.isNaN(value) || value === 0) return undefined;
    if (itemsize === 4 && Math.fround(value) !== value) return undefined;
    const bytes = itemsize === 4 ? new Float32Array([value]) : new Float64Array([value]);
    return { kind: "float", op, value: new Uint8Array(bytes.buffer) };
  }
  const integral = (kind === "i" && (itemsize === 1 || itemsize === 2 || itemsize === 4 || itemsize === 8)) || (kind === "u" && (itemsize === 1 || itemsize === 2 || itemsize === 4));
  if (!integral) return undefined;
  if (typeof value === "number" && !Number.isSafeInteger(value)) return undefined;
  const big = BigInt(value);
  const bits = BigInt(8 * itemsize);
  const min = kind === "i" ? -(1n << (bits - 1n)) : 0n;
  const max = kind === "i" ? (1n << (bits - 1n)) - 1n : (1n << bits) - 1n;
  if (big < min || big > max) return undefined;
  const bytes = new Uint8Array(itemsize);
  let rest = BigInt.asUintN(8 * itemsize, big);
  for (let i = 0; i < itemsize; i++, rest >>= 8n) bytes[i] = Number(rest & 0xffn);
  return { kind: kind === "i" ? "signed" : "unsigned", op, value: bytes };
}

const OPERATORS: ReadonlySet<string> = new Set(["==", "!=", "<", "<=", ">", ">="]);

/**
 * `values[i] op value` into `mask` (0/1 per value); the number of 1s. NaN is unordered. One loop
 * per operator: the operator is not looked at again for every value.
 */
function compareValues(values: ArrayLike<number | bigint>, op: StoredComparison["op"], value: number | bigint, mask: Uint8Array): number {
  const n = values.length;
  switch (op) {
    case "==":
      for (let i = 0; i < n; i++) mask[i] = values[i] === value ? 1 : 0;
      break;
    case "!=":
      for (let i = 0; i < n; i++) mask[i] = values[i] !== value ? 1 : 0;
      break;
    case "<":
      for (let i = 0; i < n; i++) mask[i] = values[i]! < value ? 1 : 0;
      break;
    case "<=":
      for (let i = 0; i < n; i++) mask[i] = values[i]! <= value ? 1 : 0;
      break;
    case ">":
      for (let i = 0; i < n; i++) mask[i] = values[i]! > value ? 1 : 0;
      break;
    case ">=":
      for (let i = 0; i < n; i++) mask[i] = values[i]! >= value ? 1 : 0;
      break;
  }
  let matches = 0;
  for (let i = 0; i < n; i++) matches += mask[i]!;
  return matches;
}

/**
 * Rows `[start, stop)` of the carray of `ctx` compared with a constant as they are stored, chunk
 * by chunk (`CTable.where` through `compareColumn`): `visit` gets each chunk's run of rows in
 * order, with its number of matches and, with `masks`, a 0/1 byte per row (valid only during the
 * call). Resolves to `false`, having read nothing, when the column or the constant is not one
 * this compares exactly ({@link planeComparisonOf}). The call limits apply as to `iterBlocks`.
 *
 * @throws UsageError INVALID_ARGUMENT for an unknown operator or a constant that is not a number
 * or bigint; OUT_OF_RANGE for rows outside the array; SIZE_LIMIT and the other call limits.
 *
 * @example
 * ```ts
 * let count = 0;
 * await compareStoredOf(ctx, { column: "x", op: ">", value: 2.5 }, { start: 0, stop: ctx.length, masks: false }, (first, n) => (count += n));
 * ```
 */
export async function compareStoredOf(ctx: ScanContext, comparison: StoredComparison, options: { start: number; stop: number; masks: boolean }, visit: ComparedRows): Promise<boolean> {
  const { op, value: constant } = comparison;
  if (!OPERATORS.has(op)) throw new UsageError("INVALID_ARGUMENT", "unknown comparison operator", { path: ctx.path, field: "comparison.op", expected: [...OPERATORS].join(" "), actual: op });
  if (typeof constant !== "number" && typeof constant !== "bigint") {
    throw new UsageError("INVALID_ARGUMENT", "the constant must be a number or a bigint", { path: ctx.path, field: "comparison.value", expected: "number | bigint", actual: typeof constant });
  }
  const { start, stop, masks } = options;
  ctx.checkBounds(start, stop);
  const plane = planeComparisonOf(ctx.dtype, ctx.itemsPerRow, comparison);
  if (plane === undefined) return false;
  ctx.checkWork(start, stop, 1);
  // A chunk's rows at a time, as iterBlocks would hold them.
  ctx.checkAllocation(Math.min(ctx.chunklen, stop - start));
  if (start === stop) return true;
  const reader = ctx.reader;
  const atom = ctx.atomSize;
  // The constant as the decoded values hold it: a bigint for int64, a number otherwise.
  const value = ctx.dtype.itemsize === 8 && ctx.dtype.kind !== "f" ? BigInt(comparison.value) : Number(comparison.value);
  const first = Math.floor(start / ctx.chunklen);
  const indices = Array.from({ length: Math.floor((stop - 1) / ctx.chunklen) - first + 1 }, (_, i) => first + i);
  let mask = new Uint8Array(0);
  let scratch = new Uint8Array(0);
  const maskOf = (values: number): Uint8Array => {
    if (mask.length < values) mask = new Uint8Array(Math.max(values, ctx.chunklen));
    return mask.subarray(0, values);
  };
  for await (const loaded of reader.chunksInOrder(indices, { reuseInputs: true })) {
    const from = Math.max(start, loaded.firstRow) - loaded.firstRow;
    const to = Math.min(stop, loaded.firstRow + loaded.rows) - loaded.firstRow;
    const plan = loaded.plan;
    if (plan !== undefined && loaded.decoded === undefined && reader.cache.chunk(loaded.index) === undefined && plan.header.typesize === atom) {
      // A chunk of more values than its rows (a lenient leftover chunk), or only some of its rows
      // asked for: the kernel's mask, cut to those rows.
      const all = plan.header.nbytes / atom;
      const whole = from === 0 && to === all;
      const chunkMask = masks || !whole ? maskOf(all) : undefined;
      const matches = comparePlanned(loaded.chunk, plan, plane, chunkMask);
      if (matches !== undefined) {
        if (whole) {
          visit(loaded.firstRow, matches, chunkMask);
        } else {
          const part = chunkMask!.subarray(from, to);
          let n = 0;
          for (let i = 0; i < part.length; i++) n += part[i]!;
          visit(loaded.firstRow + from, n, masks ? part : undefined);
        }
        continue;
      }
    }
    const size = (to - from) * atom;
    if (scratch.length < size) scratch = new Uint8Array(Math.max(size, ctx.chunklen * atom));
    const bytes = scratch.subarray(0, size);
    reader.decodeRowsInto(loaded, from, to, bytes, 0);
    const part = maskOf(to - from);
    const matches = compareValues(decodeValues(bytes, ctx.dtype) as ArrayLike<number | bigint>, comparison.op, value, part);
    visit(loaded.firstRow + from, matches, masks ? part : undefined);
  }
  return true;
}
