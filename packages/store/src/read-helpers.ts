/**
 * Helper threads for whole-array reads: the interface the store takes as its `helpers` option,
 * and how a `sum` or a read into shared memory is split between this thread and the helpers.
 * Browser-safe (no thread is started here): `createReadHelpers` of `@fmt/store/node` makes Node
 * helpers, which open the same dataset themselves on their own thread (a `FileSystemStore` of the
 * same root), so that each thread reads and decodes its own chunks. The result is the same
 * whichever thread did which part: the helpers' chunk sums are added in chunk order, as bcolz
 * adds them, and a read's parts land at their places in the caller's shared memory.
 *
 * @example
 * ```ts
 * import { createReadHelpers } from "@fmt/store/node";
 * const helpers = createReadHelpers({ threads: 1 });
 * const a = await openCarray(new FileSystemStore("/data/prices.bcolz"), { helpers });
 * await a.sum(); // this thread sums the first half of the chunks, the helper the second
 * await helpers.close();
 * ```
 * @module
 */
import { BcolzError, UsageError } from "@fmt/errors";
import type { ReadableStore } from "@fmt/fs-adapters";
import type { PartialSum, SumRest } from "./carray-scan.js";

/**
 * The caller's array as a helper opens it and checks it: if what the helper sees differs (another
 * version of the dataset, a table's column still being appended to), it answers `{ unlike }` and
 * the caller does that part itself. `opening` names the caller's handle: a helper keeps its own
 * opening for the handle's later calls (its metadata and superchunk indexes), and a handle opened
 * anew (to see what other writers changed) gets a new opening there too.
 *
 * @example
 * ```ts
 * const seen: HelperDataset = { path: "f64", opening: "k3v9-12", length: 5_000_000, chunklen: 65536, dtype: "<f8", atomSize: 8, formatVersion: 1, verifyChecksums: true, maxReadBytes: 2 ** 31 - 1, maxChunksPerCall: 4_194_304 };
 * ```
 */
export interface HelperDataset {
  /** Store key of the carray's directory. */
  path: string;
  /** Names the caller's handle (see above). */
  opening: string;
  /** Rows, as this thread sees them. */
  length: number;
  /** Rows per chunk. */
  chunklen: number;
  /** The dtype string. */
  dtype: string;
  /** Bytes per row. */
  atomSize: number;
  /** The format version (1: bcolz's chunk files, 2: superchunks). */
  formatVersion: 1 | 2;
  /** Whether format-2 checksums are checked (the caller's `verifyChecksums`). */
  verifyChecksums: boolean;
  /** The caller's `maxReadBytes` (its own call checked the whole call against it). */
  maxReadBytes: number;
  /** The caller's `maxChunksPerCall` (the same). */
  maxChunksPerCall: number;
}

// Names of handles for HelperDataset.opening: unique within this thread's lifetime, and across
// threads of a process with overwhelming probability.
const OPENINGS_OF = Math.random().toString(36).slice(2, 10);
let openings = 0;

/** The `opening` of each array a helper worked for, named when one first did. */
const openingOf = new WeakMap<object, string>();

/**
 * The {@link HelperDataset} of `array` as it is now: what a helper thread checks of its own
 * opening of it. @internal
 *
 * @example
 * ```ts
 * const dataset = helperDatasetOf(array, options.verifyChecksums !== false, limits);
 * ```
 */
export function helperDatasetOf(
  array: Pick<HelperDataset, "path" | "length" | "chunklen" | "atomSize" | "formatVersion"> & { readonly dtype: { readonly str: string } },
  verifyChecksums: boolean,
  limits: Pick<HelperDataset, "maxReadBytes" | "maxChunksPerCall">,
): HelperDataset {
  let opening = openingOf.get(array);
  if (opening === undefined) openingOf.set(array, (opening = `${OPENINGS_OF}-${++openings}`));
  const { path, length, chunklen, atomSize, formatVersion } = array;
  return { path, opening, length, chunklen, dtype: array.dtype.str, atomSize, formatVersion, verifyChecksums, maxReadBytes: limits.maxReadBytes, maxChunksPerCall: limits.maxChunksPerCall };
}

/**
 * One part of a call, done by a helper on its own opening of the dataset: `sum` of rows
 * `[start, stop)` of a carray (whole chunks but for the array's end), or `read` of those rows'
 * stored bytes into shared memory (`out`, from byte `byteOffset`).
 *
 * @example
 * ```ts
 * const task: HelperTask = { op: "sum", dataset, start: 65536 * 77, stop: dataset.length };
 * ```
 */
export type HelperTask =
  | { op: "sum"; dataset: HelperDataset; start: number; stop: number }
  | { op: "read"; dataset: HelperDataset; start: number; stop: number; out: SharedArrayBuffer; byteOffset: number };

/**
 * A helper's answer: a {@link PartialSum}, the rows read, or `{ unlike }` (what differed in its
 * opening of the dataset; the caller then does the part itself).
 *
 * @example
 * ```ts
 * const answer: HelperAnswer = { rows: 65536 };
 * ```
 */
export type HelperAnswer = PartialSum | { rows: number } | { unlike: string };

/**
 * Threads that do parts of whole-array reads beside the calling thread (the `helpers` option of
 * `openCarray`, `openCtable` and `open`): `CArray.sum` and `CArray.readInto` an array in shared
 * memory (a `SharedArrayBuffer`'s). They reach only some stores (`reaches`); with any other
 * store, a dataset open for writing, or a call over fewer than `minChunks` chunks, calls run on
 * this thread alone. The caller owns the helpers and closes them after the datasets.
 *
 * @example
 * ```ts
 * const helpers: ReadHelpers = createReadHelpers({ threads: 1 });
 * const a = await openCarray(store, { helpers });
 * const total = await a.sum();
 * ```
 */
export interface ReadHelpers {
  /** Helper threads (each takes one part of a call; this thread takes another). */
  readonly threads: number;
  /**
   * Calls over fewer whole chunks than this (or than `threads + 1`) are not split: a helper's part
   * costs a message and a wake-up.
   */
  readonly minChunks: number;
  /** Whether the helpers can open datasets of `store` themselves. */
  reaches(store: ReadableStore): boolean;
  /**
   * Does `task` on a helper thread. Rejects with the same `BcolzError` the work would throw here
   * (a damaged chunk in the helper's part: its code, path and field); with another error when
   * the helper itself failed (the caller then does the part itself).
   */
  run(store: ReadableStore, task: HelperTask): Promise<HelperAnswer>;
  /** Stops the threads; parts still running are rejected. */
  close(): Promise<void>;
}

/**
 * Checks a `helpers` option: undefined or an object with the {@link ReadHelpers} members. @internal
 *
 * @example
 * ```ts
 * checkReadHelpers(options.helpers);
 * ```
 */
export function checkReadHelpers(value: unknown): ReadHelpers | undefined {
  if (value === undefined) return undefined;
  const helpers: Partial<ReadHelpers> = typeof value === "object" && value !== null ? value : {};
  const whole = Number.isSafeInteger(helpers.threads) && (helpers.threads ?? 0) >= 1 && Number.isSafeInteger(helpers.minChunks);
  if (!whole || typeof helpers.reaches !== "function" || typeof helpers.run !== "function" || typeof helpers.close !== "function") {
    throw new UsageError("INVALID_ARGUMENT", "helpers must be what createReadHelpers() of @fmt/store/node gives", { field: "helpers", expected: "ReadHelpers { threads, minChunks, reaches, run, close }", actual: value === null ? "null" : typeof value });
  }
  return helpers as ReadHelpers;
}

/**
 * The default `minChunks` of helpers: below this many chunks a call is not split.
 *
 * @example
 * ```ts
 * createReadHelpers({ minChunks: MIN_HELPED_CHUNKS * 4 }); // only calls over 32 chunks or more
 * ```
 */
export const MIN_HELPED_CHUNKS = 8;

/**
 * Rows `[start, stop)` cut into `parts` consecutive ranges whose inner bounds are multiples of
 * `unit` (chunk boundaries), as equal as that allows; `undefined` when the range holds fewer than
 * `minUnits` whole units (and at least one per part) or `unit` is not a positive integer. @internal
 *
 * @example
 * ```ts
 * splitRows(0, 1000, 100, 2, 8); // [[0, 500], [500, 1000]]
 * ```
 */
export function splitRows(start: number, stop: number, unit: number, parts: number, minUnits: number): [number, number][] | undefined {
  if (!Number.isSafeInteger(unit) || unit <= 0 || parts < 2) return undefined;
  const first = Math.ceil(start / unit);
  const last = Math.floor(stop / unit);
  const units = last - first;
  if (units < Math.max(minUnits, parts)) return undefined;
  const bounds = [start];
  for (let p = 1; p < parts; p++) bounds.push((first + Math.round((units * p) / parts)) * unit);
  bounds.push(stop);
  const ranges: [number, number][] = [];
  for (let p = 0; p < parts; p++) ranges.push([bounds[p]!, bounds[p + 1]!]);
  return ranges;
}

/**
 * Each helper part's outcome, once every part has settled (none writes into the caller's memory
 * after that): the answer as `usable` takes it, the error of the data (a `BcolzError`), or
 * `undefined` for a part the helper did not do (it saw another dataset or could not open it, its
 * thread failed, or the answer does not fit the part), which this thread then does. The callers
 * go through the parts in order, so that the first error in row order is the one thrown, as on
 * one thread.
 */
async function partOutcomes<T>(parts: readonly Promise<HelperAnswer>[], usable: (answer: HelperAnswer, part: number) => T | undefined): Promise<(T | BcolzError | undefined)[]> {
  const settled = await Promise.allSettled(parts);
  return settled.map((outcome, part) => {
    if (outcome.status === "fulfilled") return usable(outcome.value, part);
    return outcome.reason instanceof BcolzError ? outcome.reason : undefined;
  });
}

/** Started parts are awaited later; an early failure of this thread's own part must not leave them unhandled. */
function started(parts: Promise<HelperAnswer>[]): Promise<HelperAnswer>[] {
  for (const part of parts) part.catch(() => undefined);
  return parts;
}

/**
 * The {@link SumRest} of `CArray.sum` with helpers: the later parts of the chunks go to the
 * helpers at once, this thread sums the first, then adds the helpers' parts in order (summing
 * itself, with `sumHere`, any part a helper did not do). `integral`: the dtype sums exactly (a
 * `total`), else chunk by chunk (`chunkSums`). `undefined` when the call is not split (see
 * {@link ReadHelpers}). @internal
 *
 * @example
 * ```ts
 * const total = await sumOf(ctx, (integral, sumHere) => helpedSum(helpers, store, dataset, readOnly, integral, sumHere));
 * ```
 */
export function helpedSum(
  helpers: ReadHelpers | undefined,
  store: ReadableStore,
  dataset: HelperDataset,
  readOnly: boolean,
  integral: boolean,
  sumHere: (start: number, stop: number) => Promise<PartialSum>,
): SumRest | undefined {
  if (helpers === undefined || !readOnly || !helpers.reaches(store)) return undefined;
  const ranges = splitRows(0, dataset.length, dataset.chunklen, helpers.threads + 1, helpers.minChunks);
  if (ranges === undefined) return undefined;
  const theirs = ranges.slice(1);
  const parts = started(theirs.map(([start, stop]) => helpers.run(store, { op: "sum", dataset, start, stop })));
  // A part's answer is used only when it has the kind of the dtype and one sum per chunk of the part.
  const fits = (answer: HelperAnswer, part: number): PartialSum | undefined => {
    const [start, stop] = theirs[part]!;
    if (integral) return "total" in answer && typeof answer.total === "bigint" ? answer : undefined;
    const chunks = Math.ceil(stop / dataset.chunklen) - Math.floor(start / dataset.chunklen);
    return "chunkSums" in answer && answer.chunkSums instanceof Float64Array && answer.chunkSums.length === chunks ? answer : undefined;
  };
  return {
    stop: ranges[0]![1],
    rest: async () => {
      const outcomes = await partOutcomes(parts, fits);
      const sums: number[] = [];
      let total = 0n;
      for (let part = 0; part < theirs.length; part++) {
        const outcome = outcomes[part];
        if (outcome instanceof BcolzError) throw outcome;
        const answer = outcome ?? (await sumHere(theirs[part]![0], theirs[part]![1]));
        if ("chunkSums" in answer) for (const chunkSum of answer.chunkSums) sums.push(chunkSum);
        else total += answer.total;
      }
      return integral ? { total } : { chunkSums: Float64Array.from(sums) };
    },
  };
}

/**
 * `CArray.readInto` (stored bytes of rows `[start, stop)` into `out`) split between this thread
 * (`readHere`, the first range) and the helpers (the later ranges, written by them straight into
 * `out`'s shared memory; this thread reads any range a helper did not); `false` when the call is
 * not split: `out` is not in a `SharedArrayBuffer`, the array is open for writing, the helpers
 * cannot reach its store, or the rows span too few chunks. Every helper part has settled before
 * the call does, so nothing writes into `out` after it, whether it succeeds or fails. @internal
 *
 * @example
 * ```ts
 * const split = await helpedRead(helpers, store, dataset, true, out, 0, a.length, (part, from, to) => reader.readInto(part, from, to));
 * ```
 */
export async function helpedRead(
  helpers: ReadHelpers | undefined,
  store: ReadableStore,
  dataset: HelperDataset,
  readOnly: boolean,
  out: Uint8Array,
  start: number,
  stop: number,
  readHere: (part: Uint8Array, start: number, stop: number) => Promise<void>,
): Promise<boolean> {
  // Pages that are not cross-origin isolated have no SharedArrayBuffer at all.
  if (helpers === undefined || !readOnly || typeof SharedArrayBuffer === "undefined" || !(out.buffer instanceof SharedArrayBuffer) || !helpers.reaches(store)) return false;
  const shared = out.buffer;
  const ranges = splitRows(start, stop, dataset.chunklen, helpers.threads + 1, helpers.minChunks);
  if (ranges === undefined) return false;
  const atom = dataset.atomSize;
  const theirs = ranges.slice(1);
  const parts = started(theirs.map(([from, to]) => helpers.run(store, { op: "read", dataset, start: from, stop: to, out: shared, byteOffset: out.byteOffset + (from - start) * atom })));
  const mine = ranges[0]![1];
  try {
    await readHere(out.subarray(0, (mine - start) * atom), start, mine);
  } catch (error) {
    await Promise.allSettled(parts);
    throw error;
  }
  const outcomes = await partOutcomes(parts, (answer, part) => ("rows" in answer && answer.rows === theirs[part]![1] - theirs[part]![0] ? answer : undefined));
  for (let part = 0; part < theirs.length; part++) {
    const [from, to] = theirs[part]!;
    const outcome = outcomes[part];
    if (outcome instanceof BcolzError) throw outcome;
    if (outcome === undefined) await readHere(out.subarray((from - start) * atom, (to - start) * atom), from, to);
  }
  return true;
}
