/**
 * The scans of a carray, written once for both format versions over its read engine: sums and
 * extremes block by block, blocks of rows (`iterBlocks`, with or without a step), stepped reads,
 * and reads of rows into a result or into the caller's array (`readInto`, a helper's
 * `readPart`). `CArray` calls them with a {@link ScanContext} of its own state (an `ArrayScan`
 * of carray-parts.ts).
 *
 * @example
 * ```ts
 * const total = await sumOf(context);
 * ```
 * @module
 */
import { sumTransientFloat64 } from "@fmt/blosc";
import { UsageError } from "@fmt/errors";
import type { DType } from "@fmt/meta";
import { decodeValues } from "@fmt/expr";
import type { TypedValues } from "@fmt/expr";
import type { ChunkReader } from "./carray-read.js";
import { checkTakeIndices, checkTypedOut, swapInPlace } from "./carray-take.js";
import { checkInteger } from "./internal.js";
import type { IterBlocksOptions, RowBlock } from "./options.js";
import { resultBytes } from "./result-memory.js";
import { selectedChunks, selectedCount } from "./selection.js";

/**
 * What the scans need of an array: its read engine, shape of rows and the call limits. @internal
 *
 * @example
 * ```ts
 * const ctx: ScanContext = new ArrayScan(array, reader, limits, false); // carray-parts.ts
 * ```
 */
export interface ScanContext {
  reader: ChunkReader;
  dtype: DType;
  path: string;
  length: number;
  chunklen: number;
  atomSize: number;
  itemsPerRow: number;
  /** Refuses a call reading more chunks than allowed. */
  checkWork(start: number, stop: number, step: number): void;
  /** Refuses bounds outside `[0, length]`. */
  checkBounds(start: number, stop: number): void;
  /** Refuses results above `maxReadBytes`; returns the byte size of `rows` rows. */
  checkAllocation(rows: number): number;
  /** Refuses a call touching more than `maxChunksPerCall` chunks. */
  checkChunkWork(chunks: number): void;
  /** The most bytes one call may return (the `maxReadBytes` option). */
  readonly maxReadBytes: number;
  /** Checks that chunk `index` exists and has the right size before a large allocation. */
  precheck(index: number): Promise<void>;
}

/** Above this many bytes, a read first checks that the last chunk it needs exists. */
export const PRECHECK_BYTES = 16 * 1024 * 1024;

function allocate(ctx: ScanContext, rows: number): Uint8Array {
  return new Uint8Array(ctx.checkAllocation(rows));
}

function* range(from: number, to: number): Generator<number> {
  for (let i = from; i < to; i++) yield i;
}

/**
 * What {@link sumOf} adds after rows `[0, stop)` of its own: the rest of the array summed
 * elsewhere (helper threads, see `ReadHelpers`), in the form {@link partialSumOf} gives.
 *
 * @example
 * ```ts
 * const rest: SumRest = { stop: 65536 * 77, rest: () => helperSums };
 * ```
 */
export interface SumRest {
  /** Rows `[stop, length)` are summed elsewhere. */
  stop: number;
  /** Their partial sum, awaited once this thread's part is done. */
  rest(): Promise<PartialSum>;
}

/**
 * The sum of a range of whole chunks in a form that adds to the rest exactly as one pass would:
 * floating-point dtypes as each chunk's own sum (bcolz adds `chunk.sum()` to a running total in
 * chunk order, so the chunks' sums must be added in that order, not summed first), integer and
 * boolean dtypes as an exact `bigint`.
 *
 * @example
 * ```ts
 * const part: PartialSum = { chunkSums: Float64Array.of(12.5, -3.25) };
 * ```
 */
export type PartialSum = { chunkSums: Float64Array } | { total: bigint };

/**
 * `CArray.sum`: the sum of all elements, one decoded chunk at a time (see its documentation);
 * `startHelpers`, asked once the call is checked (with whether the dtype sums exactly, and how to
 * sum a range here), may start summing the later rows elsewhere: rows from its `stop` on are then
 * added from there, in chunk order.
 *
 * @example
 * ```ts
 * const total = await sumOf(ctx); // 4950 for 0..99
 * ```
 */
export async function sumOf(ctx: ScanContext, startHelpers?: (integral: boolean, sumHere: (start: number, stop: number) => Promise<PartialSum>) => SumRest | undefined): Promise<number | bigint> {
  const kinds = sumKinds(ctx);
  ctx.checkWork(0, ctx.length, 1);
  const helped = startHelpers?.(kinds.integral, (start, stop) => partialSumOf(ctx, start, stop));
  const stop = helped?.stop ?? ctx.length;
  let { acc, big } = await sumRows(ctx, kinds, 0, stop);
  if (helped !== undefined) {
    const rest = await helped.rest();
    if ("chunkSums" in rest) for (const chunkSum of rest.chunkSums) acc += chunkSum;
    else big += rest.total;
  }
  if (kinds.wide) return big;
  if (!kinds.integral) return acc;
  const total = big + BigInt(acc);
  return Number.isSafeInteger(Number(total)) ? Number(total) : total;
}

/**
 * Rows `[start, stop)` (whole chunks, but for the array's end) summed as {@link PartialSum}: what a
 * helper thread answers for its part of `CArray.sum`. @internal
 *
 * @example
 * ```ts
 * const part = await partialSumOf(ctx, 65536 * 76, ctx.length); // { chunkSums } for float64
 * ```
 */
export async function partialSumOf(ctx: ScanContext, start: number, stop: number): Promise<PartialSum> {
  const kinds = sumKinds(ctx);
  ctx.checkWork(start, stop, 1);
  if (kinds.integral) {
    const { acc, big } = await sumRows(ctx, kinds, start, stop);
    return { total: big + BigInt(acc) };
  }
  const sums: number[] = [];
  await sumRows(ctx, kinds, start, stop, sums);
  return { chunkSums: Float64Array.from(sums) };
}

interface SumKinds {
  /** 8-byte integers, summed as `bigint` throughout (a kind of `integral`). */
  wide: boolean;
  /** Integers and booleans: summed exactly. */
  integral: boolean;
  littleF8: boolean;
}

function sumKinds(ctx: ScanContext): SumKinds {
  const kind = ctx.dtype.kind;
  if (kind === "S" || kind === "U" || kind === "M" || kind === "m" || kind === "V") {
    throw new UsageError("INVALID_ARGUMENT", `cannot sum dtype ${ctx.dtype.str}`, { path: ctx.path, field: "dtype", actual: ctx.dtype.str });
  }
  return {
    wide: (kind === "i" || kind === "u") && ctx.dtype.itemsize === 8,
    integral: kind === "i" || kind === "u" || kind === "b",
    littleF8: kind === "f" && ctx.dtype.itemsize === 8 && ctx.dtype.str.startsWith("<"),
  };
}

/**
 * Rows `[start, stop)` summed from 0 (floating point, chunk by chunk in bcolz's order) or
 * exactly (integers: the running `acc` spills into `big` before it loses precision). With
 * `chunkSums`, each chunk's own sum is pushed there instead of being added (floating point).
 */
async function sumRows(ctx: ScanContext, kinds: SumKinds, start: number, stop: number, chunkSums?: number[]): Promise<{ acc: number; big: bigint }> {
  const { wide, integral, littleF8 } = kinds;
  let big = 0n;
  let acc = 0;
  await ctx.reader.scan(start, stop, (bytes) => {
    const values = decodeValues(bytes, ctx.dtype);
    if (wide) {
      for (const v of values as BigInt64Array | BigUint64Array) big += v;
      return;
    }
    // The running sums live in locals: a number the closure keeps in `acc` would be boxed on
    // every addition (a heap number per element, three times the time of the loop itself).
    const numbers = values as Float64Array;
    if (!integral) {
      // Little-endian float64 bytes still in the kernels' memory are summed there (same order).
      const base = chunkSums === undefined ? acc : 0;
      const inKernels = littleF8 ? sumTransientFloat64(bytes, base) : undefined;
      const sum = inKernels ?? sumLikeNumpy(numbers, base);
      if (chunkSums === undefined) acc = sum;
      else chunkSums.push(sum);
      return;
    }
    let local = acc;
    for (let i = 0; i < numbers.length; i++) {
      local += numbers[i]!;
      if (Math.abs(local) > 2 ** 52) {
        big += BigInt(local);
        local = 0;
      }
    }
    acc = local;
  });
  return { acc, big };
}

/** Values numpy's reduction hands its inner loop at a time (its buffer size). */
const NUMPY_REDUCE_BLOCK = 8192;
/** Below this many values numpy's pairwise sum adds eight running sums instead of splitting. */
const PAIRWISE_BLOCK = 128;

/**
 * `start` plus `values.sum()` (one chunk's values) in exactly numpy's order of additions, so that a carray's sum
 * equals bcolz's (which adds `chunk.sum()` of every chunk to a running total) to the last bit:
 * numpy reduces a contiguous array in buffers of 8,192 values, each by pairwise summation
 * (halves cut at multiples of 8 down to at most 128 values, those with eight running sums).
 * The eight independent sums also run about four times faster than one running total.
 * @internal
 *
 * @example
 * ```ts
 * sumLikeNumpy(new Float64Array([0.1, 0.2, 0.3]), 0); // 0.6000000000000001, as np.sum
 * ```
 */
export function sumLikeNumpy(values: ArrayLike<number>, start: number): number {
  if (values.length === 0) return start;
  // numpy's first buffer initializes its accumulator; bcolz then adds the chunk's sum.
  let chunkSum = pairwiseSum(values, 0, Math.min(NUMPY_REDUCE_BLOCK, values.length));
  for (let at = NUMPY_REDUCE_BLOCK; at < values.length; at += NUMPY_REDUCE_BLOCK) {
    chunkSum += pairwiseSum(values, at, Math.min(NUMPY_REDUCE_BLOCK, values.length - at));
  }
  return start + chunkSum;
}

function pairwiseSum(a: ArrayLike<number>, lo: number, n: number): number {
  if (n < 8) {
    let res = 0;
    for (let i = 0; i < n; i++) res += a[lo + i]!;
    return res;
  }
  if (n <= PAIRWISE_BLOCK) {
    let r0 = a[lo]!, r1 = a[lo + 1]!, r2 = a[lo + 2]!, r3 = a[lo + 3]!;
    let r4 = a[lo + 4]!, r5 = a[lo + 5]!, r6 = a[lo + 6]!, r7 = a[lo + 7]!;
    const whole = n - (n % 8);
    let i = 8;
    for (; i < whole; i += 8) {
      const p = lo + i;
      r0 += a[p]!;
      r1 += a[p + 1]!;
      r2 += a[p + 2]!;
      r3 += a[p + 3]!;
      r4 += a[p + 4]!;
      r5 += a[p + 5]!;
      r6 += a[p + 6]!;
      r7 += a[p + 7]!;
    }
    let res = r0 + r1 + (r2 + r3) + (r4 + r5 + (r6 + r7));
    for (; i < n; i++) res += a[lo + i]!;
    return res;
  }
  let half = Math.floor(n / 2);
  half -= half % 8;
  return pairwiseSum(a, lo, half) + pairwiseSum(a, lo + half, n - half);
}

/**
 * `CArray.min` (`sign` −1) and `CArray.max` (`sign` 1), one decoded chunk at a time.
 *
 * @example
 * ```ts
 * const largest = await extremeOf(ctx, 1);
 * ```
 */
export async function extremeOf(ctx: ScanContext, sign: 1 | -1): Promise<number | bigint | boolean> {
  const kind = ctx.dtype.kind;
  if (kind === "S" || kind === "U" || kind === "V" || kind === "c") {
    throw new UsageError("INVALID_ARGUMENT", `no ordering for dtype ${ctx.dtype.str}`, { path: ctx.path, field: "dtype", actual: ctx.dtype.str });
  }
  if (ctx.length === 0 || ctx.itemsPerRow === 0) {
    throw new UsageError("INVALID_ARGUMENT", "min/max of an empty array", { path: ctx.path, field: "length", actual: 0 });
  }
  const nat = -(2n ** 63n);
  const isDate = kind === "M" || kind === "m";
  let best: number | bigint | undefined;
  let special: number | bigint | undefined;
  ctx.checkWork(0, ctx.length, 1);
  await ctx.reader.scan(0, ctx.length, (bytes) => {
    if (special !== undefined) return;
    const values = decodeValues(bytes, ctx.dtype) as ArrayLike<number | bigint>;
    // Locals, not the closure's variables, in the loop (see sumOf).
    let chunkBest = best;
    for (let i = 0; i < values.length; i++) {
      const v = values[i]!;
      if (typeof v === "number" && Number.isNaN(v)) special = NaN;
      else if (isDate && v === nat) special = nat;
      if (special !== undefined) return;
      if (chunkBest === undefined || (sign > 0 ? v > chunkBest : v < chunkBest)) chunkBest = v;
    }
    best = chunkBest;
  });
  if (special !== undefined) return special;
  return kind === "b" ? best === 1 : best!;
}

/**
 * `CArray.iterBlocks`: rows `[start, stop)` in blocks of `blockLen` rows (or the options form,
 * with a step), each chunk read and decoded once.
 *
 * @example
 * ```ts
 * for await (const block of iterBlocksOf(ctx, 1000, 0, ctx.length)) console.log(block.start);
 * ```
 */
export async function* iterBlocksOf(ctx: ScanContext, blockLenOrOptions: number | IterBlocksOptions, start: number, stop: number): AsyncGenerator<RowBlock, void, undefined> {
  let blockLen: number;
  let reuse = false;
  let blocksUnusedAfterLoop = false;
  if (typeof blockLenOrOptions === "object" && blockLenOrOptions !== null) {
    const o = blockLenOrOptions;
    reuse = o.reuse === true;
    blocksUnusedAfterLoop = o.blocksUnusedAfterLoop === true;
    blockLen = o.blockLen ?? ctx.chunklen;
    start = o.start ?? 0;
    stop = o.stop ?? ctx.length;
    const step = o.step ?? 1;
    checkInteger(step, "step");
    if (step < 1) throw new UsageError("INVALID_ARGUMENT", "step must be at least 1", { field: "step", expected: ">= 1", actual: step });
    if (step > 1) {
      yield* iterSteppedOf(ctx, blockLen, start, stop, step);
      return;
    }
  } else {
    blockLen = blockLenOrOptions;
  }
  checkInteger(blockLen, "blockLen");
  if (blockLen < 1) throw new UsageError("INVALID_ARGUMENT", "blockLen must be at least 1", { field: "blockLen", expected: ">= 1", actual: blockLen });
  ctx.checkBounds(start, stop);
  ctx.checkWork(start, stop, 1);
  ctx.checkAllocation(Math.min(blockLen, stop - start));
  if (start === stop) return;
  const first = Math.floor(start / ctx.chunklen);
  const last = Math.floor((stop - 1) / ctx.chunklen);
  // Whether the current chunk's rows and the last block handed out are views of the pass's own
  // memory, and whether the caller asked past the last block: a caller that stopped early may
  // still use the last block it got, so that memory then serves no later pass (unless the caller
  // said it uses no block after the loop).
  let currentInPass = false;
  let lastBlockInPass = false;
  let finished = false;
  const chunks = ctx.reader.chunksInOrder(range(first, last + 1), { reuseInputs: true, viewsHeld: () => lastBlockInPass && !finished && !blocksUnusedAfterLoop });
  // Rows [currentFrom, currentTo) of the array, decoded from the current chunk.
  let current: Uint8Array | undefined;
  let currentFrom = 0;
  let currentTo = 0;
  // With `reuse`, chunks decode into one buffer and blocks that span chunks are put together in
  // another; both are overwritten only once the caller has asked for the next block.
  let chunkScratch = new Uint8Array(0);
  let blockScratch = new Uint8Array(0);
  const nextChunk = async (): Promise<void> => {
    const step = await chunks.next();
    if (step.done === true) throw new Error("internal: ran out of chunks"); // unreachable: chunks cover [start, stop)
    const loaded = step.value;
    currentFrom = Math.max(start, loaded.firstRow);
    currentTo = Math.min(stop, loaded.firstRow + loaded.rows);
    if (!reuse) {
      current = ctx.reader.decodeRows(loaded, currentFrom - loaded.firstRow, currentTo - loaded.firstRow);
      return;
    }
    const size = (currentTo - currentFrom) * ctx.atomSize;
    // A chunk read into its pass's own WebAssembly memory is decoded there and handed out from
    // there: it stays until the next chunk is decoded, which is when the caller asks for a block
    // past it, as with chunkScratch.
    // Only for most of a chunk: a few rows of it decode from the blocks that hold them.
    const inPass = 2 * size >= loaded.nbytes ? ctx.reader.decodeInPassMemory(loaded) : undefined;
    currentInPass = inPass !== undefined;
    if (inPass !== undefined) {
      const offset = (currentFrom - loaded.firstRow) * ctx.atomSize;
      current = inPass.subarray(offset, offset + size);
      return;
    }
    if (chunkScratch.length < size) chunkScratch = new Uint8Array(Math.max(size, ctx.chunklen * ctx.atomSize));
    current = chunkScratch.subarray(0, size);
    ctx.reader.decodeRowsInto(loaded, currentFrom - loaded.firstRow, currentTo - loaded.firstRow, current, 0);
  };
  try {
    let pos = start;
    while (pos < stop) {
      const blockEnd = Math.min(stop, (Math.floor(pos / blockLen) + 1) * blockLen);
      if (current === undefined || pos >= currentTo) await nextChunk();
      if (blockEnd <= currentTo) {
        // The block lies in the decoded part of one chunk: hand out a view of it, no copy (the
        // chunk's rows are overwritten only once a later block is asked for, and blocks never
        // overlap; a chunklen of twice the block length is the common case of a ctable).
        lastBlockInPass = currentInPass;
        yield { start: pos, stop: blockEnd, bytes: current!.subarray((pos - currentFrom) * ctx.atomSize, (blockEnd - currentFrom) * ctx.atomSize) };
        pos = blockEnd;
        continue;
      }
      const blockBytes = (blockEnd - pos) * ctx.atomSize;
      if (reuse && blockScratch.length < blockBytes) blockScratch = new Uint8Array(Math.max(blockBytes, blockLen * ctx.atomSize));
      const out = reuse ? blockScratch.subarray(0, blockBytes) : new Uint8Array(blockBytes);
      let row = pos;
      while (row < blockEnd) {
        if (current === undefined || row >= currentTo) await nextChunk();
        const to = Math.min(blockEnd, currentTo);
        out.set(current!.subarray((row - currentFrom) * ctx.atomSize, (to - currentFrom) * ctx.atomSize), (row - pos) * ctx.atomSize);
        row = to;
      }
      lastBlockInPass = false;
      yield { start: pos, stop: blockEnd, bytes: out };
      pos = blockEnd;
    }
    finished = true;
  } finally {
    await chunks.return(undefined);
  }
}

/**
 * The stepped form of {@link iterBlocksOf}: blocks of `blockLen` selected rows, reading only the
 * chunks that hold one.
 *
 * @example
 * ```ts
 * for await (const block of iterSteppedOf(ctx, 100, 0, ctx.length, 7)) console.log(block.start);
 * ```
 */
export async function* iterSteppedOf(ctx: ScanContext, blockLen: number, start: number, stop: number, step: number): AsyncGenerator<RowBlock, void, undefined> {
  checkInteger(blockLen, "blockLen");
  if (blockLen < 1) throw new UsageError("INVALID_ARGUMENT", "blockLen must be at least 1", { field: "blockLen", expected: ">= 1", actual: blockLen });
  ctx.checkBounds(start, stop);
  ctx.checkWork(start, stop, step);
  const count = selectedCount(start, stop, step);
  ctx.checkAllocation(Math.min(blockLen, count));
  if (count === 0) return;
  const atom = ctx.atomSize;
  const lastRow = start + (count - 1) * step;
  let out = new Uint8Array(0);
  let filled = 0;
  let first = start;
  let next = start; // the next selected row; only chunks holding one are read
  for await (const loaded of ctx.reader.chunksInOrder(selectedChunks(start, lastRow, step, ctx.chunklen), { reuseInputs: true })) {
    const lastSelected = Math.min(lastRow, next + Math.floor((loaded.firstRow + loaded.rows - 1 - next) / step) * step);
    const rows = ctx.reader.decodeRows(loaded, next - loaded.firstRow, lastSelected + 1 - loaded.firstRow);
    for (let r = next; r <= lastSelected; r += step) {
      if (filled === 0) {
        first = r;
        out = new Uint8Array(Math.min(blockLen, selectedCount(r, stop, step)) * atom);
      }
      const at = (r - next) * atom;
      out.set(rows.subarray(at, at + atom), filled * atom);
      filled++;
      if (filled * atom === out.length) {
        yield { start: first, stop: r + 1, step, bytes: out };
        filled = 0;
      }
    }
    next = lastSelected + step;
  }
}

/**
 * Rows `start, start + step, …` below `stop` as stored bytes, reading only the chunks that hold
 * one of them.
 *
 * @example
 * ```ts
 * const bytes = await readSteppedOf(ctx, 0, 1000, 10);
 * ```
 */
export async function readSteppedOf(ctx: ScanContext, start: number, stop: number, step: number): Promise<Uint8Array> {
  const count = selectedCount(start, stop, step);
  ctx.checkWork(start, stop, step);
  const out = allocate(ctx, count);
  if (count === 0 || out.length === 0) return out;
  const lastRow = start + (count - 1) * step;
  if (out.length > PRECHECK_BYTES) await ctx.precheck(Math.floor(lastRow / ctx.chunklen));
  const atom = ctx.atomSize;
  for await (const loaded of ctx.reader.chunksInOrder(selectedChunks(start, lastRow, step, ctx.chunklen), { reuseInputs: true })) {
    const chunkStart = loaded.firstRow;
    const chunkEnd = chunkStart + loaded.rows;
    const firstSelected = chunkStart <= start ? start : start + Math.ceil((chunkStart - start) / step) * step;
    const lastSelected = Math.min(lastRow, firstSelected + Math.floor((chunkEnd - 1 - firstSelected) / step) * step);
    const rows = ctx.reader.decodeRows(loaded, firstSelected - chunkStart, lastSelected + 1 - chunkStart);
    for (let r = firstSelected; r <= lastSelected; r += step) {
      const at = (r - firstSelected) * atom;
      out.set(rows.subarray(at, at + atom), ((r - start) / step) * atom);
    }
  }
  return out;
}

/**
 * Before a read of `bytes` bytes ending at row `stop`: above {@link PRECHECK_BYTES}, the last chunk
 * it needs is loaded first, so that a missing or wrong file fails the call before its large result
 * is allocated.
 *
 * @example
 * ```ts
 * await precheckRead(ctx, out.length, stop);
 * ```
 */
export async function precheckRead(ctx: ScanContext, bytes: number, stop: number): Promise<void> {
  if (bytes > PRECHECK_BYTES) await ctx.precheck(Math.floor((stop - 1) / ctx.chunklen));
}

/**
 * `CArray.readBytes`: the stored bytes of rows `[start, stop)` in a result of their own
 * (result-memory.ts).
 *
 * @example
 * ```ts
 * const bytes = await readBytesOf(ctx, 0, ctx.length);
 * ```
 */
export async function readBytesOf(ctx: ScanContext, start: number, stop: number): Promise<Uint8Array> {
  ctx.checkBounds(start, stop);
  ctx.checkWork(start, stop, 1);
  const size = ctx.checkAllocation(stop - start);
  // Checked before the allocation, as the precheck is meant to be; and the precheck's read
  // buffer, allocated after a large young array, made V8 collect garbage at once ("external
  // memory pressure": a scavenge, then a mark-compact) in every large read.
  await precheckRead(ctx, size, stop);
  const out = resultBytes(size, ctx.maxReadBytes);
  if (size > 0) await ctx.reader.readInto(out, start, stop);
  return out;
}

/**
 * `CArray.readInto`: rows `[start, stop)` decoded straight into the caller's typed array, then
 * swapped into the platform's byte order. `helped` may hand later rows to helper threads
 * (read-helpers.ts); it resolves to `false` when it did not, and this thread reads them all.
 *
 * @example
 * ```ts
 * await readIntoOf(ctx, new Float64Array(ctx.length), 0, ctx.length, async () => false);
 * ```
 */
export async function readIntoOf(
  ctx: ScanContext,
  out: TypedValues,
  start: number,
  stop: number,
  helped: (bytes: Uint8Array, readHere: (part: Uint8Array, from: number, to: number) => Promise<void>) => Promise<boolean>,
): Promise<void> {
  ctx.checkBounds(start, stop);
  const bytes = checkTypedOut(out, ctx.dtype, (stop - start) * ctx.itemsPerRow, ctx.path);
  ctx.checkWork(start, stop, 1);
  if (bytes.length > 0) {
    await precheckRead(ctx, bytes.length, stop);
    const readHere = (part: Uint8Array, from: number, to: number): Promise<void> => ctx.reader.readInto(part, from, to);
    if (!(await helped(bytes, readHere))) await readHere(bytes, start, stop);
  }
  swapInPlace(bytes, ctx.dtype);
}

/**
 * A helper thread's part of a read (`CArray.readPart`): the stored bytes of rows `[start, stop)`
 * into `out`, which must hold exactly their bytes.
 *
 * @example
 * ```ts
 * await readPartOf(ctx, part, 65536, 131072);
 * ```
 */
export async function readPartOf(ctx: ScanContext, out: Uint8Array, start: number, stop: number): Promise<void> {
  ctx.checkBounds(start, stop);
  const expected = (stop - start) * ctx.atomSize;
  if (out.length !== expected) throw new UsageError("INVALID_ARGUMENT", "out must hold exactly the rows' bytes", { path: ctx.path, field: "out", expected, actual: out.length });
  if (out.length > 0) await ctx.reader.readInto(out, start, stop);
}

/**
 * `CArray.takeBytes`: the stored bytes of the rows at `indices`, each chunk read once.
 *
 * @example
 * ```ts
 * const bytes = await takeBytesOf(ctx, [5, -1, 5]);
 * ```
 */
export async function takeBytesOf(ctx: ScanContext, indices: ArrayLike<number>): Promise<Uint8Array> {
  const rows = checkTakeIndices(indices, ctx.length, ctx.path);
  const chunks = new Set<number>();
  for (const row of rows) chunks.add(Math.floor(row / ctx.chunklen));
  ctx.checkChunkWork(chunks.size);
  const out = allocate(ctx, rows.length);
  if (out.length > 0) await ctx.reader.takeInto(rows, out);
  return out;
}
