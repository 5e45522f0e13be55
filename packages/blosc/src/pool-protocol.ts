/**
 * Messages between a Blosc worker pool and its workers (errors cross the thread boundary with
 * `serializeError`/`reviveError` of @fmt/errors). Browser-safe: shared by the Node pool and any
 * Web Worker host.
 *
 * @example
 * ```ts
 * import type { PoolTask } from "./pool-protocol.js";
 * const task: PoolTask = { op: "decompress", input, offset: 0, length: input.byteLength };
 * ```
 * @module
 */
import { UsageError } from "@fmt/errors";
import type { SerializedError } from "@fmt/errors";
import { MAX_HEADROOM } from "./compress.js";

/**
 * One unit of work: the operation, its (copied) input and its options.
 *
 * @example
 * ```ts
 * const task: PoolTask = { op: "decompress", input: staging, offset: 0, length: chunk.length, options: { path: "data/__0.blp" } };
 * ```
 */
export interface PoolTask {
  /**
   * `decompress` a chunk, `compress` raw bytes, or `compressInto`: compress them into `output`
   * from byte `headroom` on.
   */
  op: "decompress" | "compress" | "compressInto";
  /**
   * A copy of the input in a buffer the pool recycles: transferred to the worker and back with the
   * reply. Never one of the caller's buffers.
   */
  input: ArrayBuffer;
  /** Where the input starts inside `input`. */
  offset: number;
  /** Input length in bytes. */
  length: number;
  /** Options of the operation (plain, structured-cloneable data). */
  options?: Record<string, unknown> | undefined;
  /**
   * `compressInto`'s output: a buffer the pool recycles, transferred to the worker and back with
   * the reply (the result is a view of it).
   */
  output?: ArrayBuffer | undefined;
  /** `compressInto`: free bytes left before the chunk in `output` (the caller's file header). */
  headroom?: number | undefined;
}

/**
 * A batch of tasks sent to one worker.
 *
 * @example
 * ```ts
 * const request: PoolRequest = { batch: 7, tasks: [task] };
 * ```
 */
export interface PoolRequest {
  /** Absent on this kind of message (see `PoolDecodeRequest`). */
  kind?: undefined;
  /** Batch number, echoed in the reply. */
  batch: number;
  /** Tasks, answered in the same order. */
  tasks: PoolTask[];
}

/**
 * A contiguous run of chunks for one worker to decode in one go: all inputs packed into one buffer,
 * all outputs written into one fresh buffer that travels back with the reply.
 *
 * @example
 * ```ts
 * const request: PoolDecodeRequest = { kind: "decodeRun", batch: 3, input, offsets: [0], lengths: [n], nbytes: [262144] };
 * ```
 */
export interface PoolDecodeRequest {
  /** Tells this message from a `PoolRequest`. */
  kind: "decodeRun";
  /** Batch number, echoed in the reply. */
  batch: number;
  /**
   * The packed, copied inputs (a recycled staging buffer, never one of the caller's buffers); shared
   * memory, kept by the pool for the next runs, in a run with `claims`.
   */
  input: ArrayBuffer | SharedArrayBuffer;
  /** Where each chunk starts inside `input`. */
  offsets: number[];
  /** Each chunk's length inside `input`. */
  lengths: number[];
  /** Each chunk's decoded size, as its header declares; outputs are laid out back to back. */
  nbytes: number[];
  /** Per-chunk options (plain data), or undefined when no chunk has any. */
  options?: (Record<string, unknown> | undefined)[] | undefined;
  /** When set, outputs go straight into this shared memory from `targetOffset` on, not a new buffer. */
  target?: SharedArrayBuffer | undefined;
  /** Where the first output starts inside `target`. */
  targetOffset?: number | undefined;
  /**
   * Shared per-chunk states (Int32: 0 free, 1 taken, 2 done, 3 failed) when the calling thread
   * decodes the same run from its other end: the worker takes chunks in order and stops at the
   * first one already taken. Needs `target`.
   */
  claims?: SharedArrayBuffer | undefined;
}

/**
 * A worker's answer to a `PoolDecodeRequest`.
 *
 * @example
 * ```ts
 * const reply: PoolDecodeReply = { kind: "decodeRun", batch: 3, input, output, errors: [], elapsed: 4.2 };
 * ```
 */
export interface PoolDecodeReply {
  /** Tells this message from a `PoolReply`. */
  kind: "decodeRun";
  /** The request's batch number. */
  batch: number;
  /** The input buffer, handed back for reuse. */
  input: ArrayBuffer | SharedArrayBuffer;
  /** The decoded chunks, back to back in request order (empty when the request had a `target`). */
  output: ArrayBuffer;
  /** Failures by chunk index (sparse: most runs have none). */
  errors: [number, SerializedError][];
  /** Milliseconds the worker spent on the run, which the pool uses to balance the next runs. */
  elapsed: number;
}

/**
 * Outcome of one task.
 *
 * @example
 * ```ts
 * const r: PoolResult = { ok: true, value: new Uint8Array(8) };
 * ```
 */
export type PoolResult = { ok: true; value: Uint8Array } | { ok: false; error: SerializedError };

/**
 * A worker's answer to a `PoolRequest`.
 *
 * @example
 * ```ts
 * const reply: PoolReply = { batch: 7, inputs: [staging], results: [{ ok: true, value: bytes }] };
 * ```
 */
export interface PoolReply {
  /** Absent on this kind of message (see `PoolDecodeReply`). */
  kind?: undefined;
  /** The request's batch number. */
  batch: number;
  /** The tasks' input buffers, handed back for reuse. */
  inputs: ArrayBuffer[];
  /** One result per task, in order. */
  results: PoolResult[];
}

/** Inputs below this many bytes are handled on the calling thread unless a pool says otherwise. */
export const DEFAULT_MIN_WORKER_BYTES = 64 * 1024;

/**
 * Checks the sizing options every pool takes (Node worker threads and Web Workers alike).
 *
 * @throws UsageError INVALID_ARGUMENT for a thread count outside 1..256 or a negative minWorkerBytes.
 * @example
 * ```ts
 * const { threads, minWorkerBytes } = checkPoolSizing(options.threads ?? 2, options.minWorkerBytes);
 * ```
 */
export function checkPoolSizing(threads: number, minWorkerBytes: number = DEFAULT_MIN_WORKER_BYTES): { threads: number; minWorkerBytes: number } {
  if (!Number.isInteger(threads) || threads < 1 || threads > 256) {
    throw new UsageError("INVALID_ARGUMENT", "threads must be an integer in 1..256", { field: "threads", expected: "1..256", actual: threads });
  }
  if (typeof minWorkerBytes !== "number" || !(minWorkerBytes >= 0)) {
    throw new UsageError("INVALID_ARGUMENT", "minWorkerBytes must be a non-negative number", { field: "minWorkerBytes", expected: ">= 0", actual: minWorkerBytes });
  }
  return { threads, minWorkerBytes };
}

/**
 * The data fields of an options object, for a structured-clone message: only strings, numbers,
 * booleans and bigints cross. Functions and objects (a zlib codec or a zstd encoder handle, which
 * hold functions and cannot be cloned) stay behind; the worker uses its own.
 *
 * @example
 * ```ts
 * plainOptions({ path: "data/__0.blp", zlib: nodeZlib }); // { path: "data/__0.blp" }
 * ```
 */
export function plainOptions(options: object | undefined): Record<string, unknown> | undefined {
  if (options === undefined) return undefined;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(options)) if (v !== undefined && typeof v !== "function" && typeof v !== "object") out[k] = v;
  return out;
}

/**
 * Checks the arguments of a pool's `compressLent` (see `ChunkCodecPool`): the error to reject
 * with, or `undefined` when they are usable. The options' own fields are checked where the chunk
 * is compressed, as for `compress`; here only that they are an object to send.
 *
 * @example
 * ```ts
 * const bad = lentArgumentError(rows, 16, options);
 * if (bad !== undefined) return Promise.reject(bad);
 * ```
 */
export function lentArgumentError(input: unknown, headroom: unknown, options: unknown): UsageError | undefined {
  if (!(input instanceof Uint8Array)) return new UsageError("INVALID_ARGUMENT", "input must be a Uint8Array", { field: "input", expected: "Uint8Array", actual: typeof input });
  if (typeof headroom !== "number" || !Number.isSafeInteger(headroom) || headroom < 0 || headroom > MAX_HEADROOM) {
    return new UsageError("INVALID_ARGUMENT", `headroom must be an integer in 0..${MAX_HEADROOM}`, { field: "headroom", expected: `0..${MAX_HEADROOM}`, actual: headroom });
  }
  if (typeof options !== "object" || options === null) {
    return new UsageError("INVALID_ARGUMENT", "compression options are required", { field: "cparams", expected: "{typesize, clevel, shuffle, cname}", actual: options === null ? "null" : typeof options });
  }
  return undefined;
}
