/**
 * The checks a carray makes of a call before it reads or writes anything: chunk and row
 * indices, row ranges, the limits of one call (`maxReadBytes` for the bytes of a result,
 * `maxChunksPerCall` for the chunk files it reads), that the array is open for writing, and that
 * the last chunk of a large read exists. Each throws `UsageError` (or the chunk's `FormatError`),
 * naming the array's path except for an argument that is not an integer (`INVALID_ARGUMENT`
 * from `checkInteger`, as before the split). Kept apart from `CArray` (carray.ts), which calls them with itself
 * as the array, so that carray.ts holds the array's API.
 *
 * @example
 * ```ts
 * checkBounds(array, start, stop);
 * checkWork(array, limits, start, stop, 1);
 * const out = new Uint8Array(checkAllocation(array, limits.maxReadBytes, stop - start));
 * ```
 * @module
 */
import { UsageError } from "@fmt/errors";
import type { ChunkReader } from "./carray-read.js";
import type { CarrayWriter } from "./carray-writer.js";
import { checkInteger } from "./internal.js";
import { checkChunkWork } from "./limits.js";
import type { CallLimits } from "./limits.js";
import { chunksTouched } from "./selection.js";

/**
 * What the checks read of an array: a `CArray` is one.
 *
 * @example
 * ```ts
 * const array: CheckedArray = { path: "prices", length: 1000, chunklen: 100, atomSize: 8, nchunks: 10, chunkCount: 10 };
 * ```
 */
export interface CheckedArray {
  /** Store key of the array, named by the errors. */
  readonly path: string;
  readonly length: number;
  readonly chunklen: number;
  readonly atomSize: number;
  readonly nchunks: number;
  readonly chunkCount: number;
}

/**
 * A chunk index `i` of the array: an integer with `0 ≤ i < chunkCount` (`UsageError`
 * `OUT_OF_RANGE` otherwise).
 *
 * @example
 * ```ts
 * checkChunkIndex(array, i); // before array.chunkRows(i)
 * ```
 */
export function checkChunkIndex(array: CheckedArray, i: number): void {
  checkInteger(i, "chunk");
  if (i < 0 || i >= array.chunkCount) {
    throw new UsageError("OUT_OF_RANGE", "chunk index out of range", { path: array.path, field: "chunk", expected: `0 <= chunk < ${array.chunkCount}`, actual: i });
  }
}

/**
 * Row `index` of the array, negative counting from the end: the row it names (`UsageError`
 * `OUT_OF_RANGE` outside `[-length, length)`).
 *
 * @example
 * ```ts
 * const row = checkIndex(array, -1); // array.length - 1
 * ```
 */
export function checkIndex(array: CheckedArray, index: number): number {
  checkInteger(index, "index");
  const i = index < 0 ? index + array.length : index;
  if (i < 0 || i >= array.length) {
    throw new UsageError("OUT_OF_RANGE", "row index out of range", { path: array.path, field: "index", expected: `-${array.length} <= index < ${array.length}`, actual: index });
  }
  return i;
}

/**
 * Row bounds of a call: integers with `0 ≤ start ≤ stop ≤ length` (`UsageError` `OUT_OF_RANGE`
 * otherwise).
 *
 * @example
 * ```ts
 * checkBounds(array, 100, 200);
 * ```
 */
export function checkBounds(array: CheckedArray, start: number, stop: number): void {
  checkInteger(start, "start");
  checkInteger(stop, "stop");
  if (start < 0 || stop > array.length || start > stop) {
    throw new UsageError("OUT_OF_RANGE", "row range out of bounds", { path: array.path, field: "start..stop", expected: `0 <= start <= stop <= ${array.length}`, actual: `${start}..${stop}` });
  }
}

/**
 * The byte size of a result of `rows` rows, refused above `maxReadBytes` (`UsageError`
 * `SIZE_LIMIT`) before anything is allocated or read.
 *
 * @example
 * ```ts
 * const out = new Uint8Array(checkAllocation(array, limits.maxReadBytes, stop - start));
 * ```
 */
export function checkAllocation(array: CheckedArray, maxReadBytes: number, rows: number): number {
  const bytes = rows * array.atomSize;
  if (bytes > maxReadBytes) {
    throw new UsageError("SIZE_LIMIT", "read larger than maxReadBytes; read in pieces (iterBlocks) or raise the option", { path: array.path, field: "maxReadBytes", expected: `<= ${maxReadBytes}`, actual: bytes });
  }
  return bytes;
}

/**
 * Refuses a call that would read more chunk files than `maxChunksPerCall` allows.
 *
 * @example
 * ```ts
 * checkWork(array, limits, 0, array.length, 10); // every tenth row
 * ```
 */
export function checkWork(array: CheckedArray, limits: CallLimits, start: number, stop: number, step: number): void {
  checkChunkWork(limits, chunksTouched(start, stop, step, array.chunklen), array.path);
}

/**
 * The writer of an array open for writing; `UsageError` `READ_ONLY` for a read-only array.
 *
 * @example
 * ```ts
 * await requireWriter(array, writer).append(values);
 * ```
 */
export function requireWriter(array: CheckedArray, writer: CarrayWriter | undefined): CarrayWriter {
  if (writer === undefined) {
    throw new UsageError("READ_ONLY", "the array is open read-only (open it with mode \"a\" to write)", { path: array.path, field: "mode", expected: "a", actual: "r" });
  }
  return writer;
}

/**
 * Before allocating a large result, make sure the last chunk it needs exists and announces
 * the right size, so that a length claiming too many rows fails before the allocation.
 * Rows a writer holds in memory (`writing`, past the full chunks) have no file to check.
 *
 * @example
 * ```ts
 * if (out.length > PRECHECK_BYTES) await precheckChunk(array, reader, writing, Math.floor((stop - 1) / array.chunklen));
 * ```
 */
export async function precheckChunk(array: CheckedArray, reader: ChunkReader, writing: boolean, index: number): Promise<void> {
  if (index >= array.nchunks && writing) return;
  await reader.loadChunk(index);
}

/**
 * The `n` of `CArray.trim`: an integer from 0 to the array's length, else `UsageError`
 * (`INVALID_ARGUMENT`, `OUT_OF_RANGE`).
 *
 * @example
 * ```ts
 * await array.resize(array.length - checkTrim(array, 1700));
 * ```
 */
export function checkTrim(array: CheckedArray, n: number): number {
  checkInteger(n, "n");
  if (n < 0 || n > array.length) {
    throw new UsageError("OUT_OF_RANGE", "cannot trim more rows than the array has", { path: array.path, field: "n", expected: `0 <= n <= ${array.length}`, actual: n });
  }
  return n;
}
