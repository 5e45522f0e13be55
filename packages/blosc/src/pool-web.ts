/**
 * A pool of Web Workers that compress and decompress Blosc chunks in parallel, behind the same
 * {@link ChunkCodecPool} interface as the Node pool (`@fmt/blosc/pool`). Import it from
 * `@fmt/blosc/pool-web`. Browser-safe: no `node:` imports.
 *
 * Inputs are copied into buffers that travel to a worker and back (the caller's arrays are never
 * detached); results are transferred, not copied. Calls made in the same tick leave in batches of
 * a few chunks, with at most two batches per worker in flight. Errors come back as the same
 * `FormatError`/`UsageError` (code, path, field, expected, actual) the functions throw directly.
 *
 * @example
 * ```ts
 * import { createWebBloscPool } from "@fmt/blosc/pool-web";
 * const pool = createWebBloscPool({ threads: 4 });
 * const chunks = await pool.compressMany(parts, { typesize: 8, clevel: 5, shuffle: 1, cname: "lz4" });
 * await pool.close();
 * ```
 * @packageDocumentation
 */
import { UsageError } from "@fmt/errors";
import { BLOSC_MAX_OVERHEAD, readChunkHeader } from "@fmt/header";
import type { ChunkCodecPool, LentChunk } from "./pool-api.js";
import { compress, compressInto } from "./compress.js";
import type { CompressOptions } from "./compress.js";
import { decompress } from "./decompress.js";
import type { DecompressOptions } from "./plan.js";
import { TaskDispatcher } from "./pool-dispatch.js";
import type { DispatchSlot } from "./pool-dispatch.js";
import { checkPoolSizing, lentArgumentError, plainOptions } from "./pool-protocol.js";
import type { PoolDecodeReply, PoolReply, PoolTask } from "./pool-protocol.js";

/**
 * What the pool needs of a worker: the part of the DOM `Worker` it uses, so that tests (or other
 * hosts) can supply their own.
 *
 * @example
 * ```ts
 * const worker: WorkerLike = new Worker(new URL("./pool-worker-web.js", import.meta.url), { type: "module" });
 * ```
 */
export interface WorkerLike {
  /** Send a message, transferring the listed buffers. */
  postMessage(message: unknown, transfer: Transferable[]): void;
  /** Listen for replies (`message`) and failures (`error`). */
  addEventListener(type: "message" | "error", listener: (event: MessageEvent | ErrorEvent | Event) => void): void;
  /** Stop the worker. */
  terminate(): void;
}

/**
 * Options of {@link createWebBloscPool}.
 *
 * @example
 * ```ts
 * const options: WebBloscPoolOptions = { threads: 2, createWorker: () => new Worker(url, { type: "module" }) };
 * ```
 */
export interface WebBloscPoolOptions {
  /** Workers (default: `navigator.hardwareConcurrency`, or 2 where it is unknown). */
  threads?: number;
  /** Inputs smaller than this stay on the calling thread. Default 64 KiB. */
  minWorkerBytes?: number;
  /**
   * Starts one worker. Default: a module worker running this package's `pool-worker-web.js`,
   * found next to this module (bundlers that understand `new URL(…, import.meta.url)` copy it).
   */
  createWorker?: () => WorkerLike;
}

/**
 * A running Web Worker pool: {@link ChunkCodecPool} plus single-chunk calls.
 *
 * @example
 * ```ts
 * const chunk = await pool.compress(bytes, { typesize: 8, clevel: 5, shuffle: 1, cname: "lz4" });
 * ```
 */
export interface WebBloscPool extends ChunkCodecPool {
  /** Like the package's `compress`, on a worker. */
  compress(data: Uint8Array, options: CompressOptions): Promise<Uint8Array>;
  /** Like the package's `decompress`, on a worker. */
  decompress(chunk: Uint8Array, options?: DecompressOptions): Promise<Uint8Array>;
  /**
   * Like `compressMany` for one input, into a buffer with `headroom` free bytes before the chunk
   * (see {@link ChunkCodecPool.compressLent}; this pool does not recycle the buffers).
   */
  compressLent(input: Uint8Array, options: CompressOptions, headroom: number): Promise<LentChunk>;
}

interface Slot extends DispatchSlot {
  worker: WorkerLike;
}

function defaultWorker(): WorkerLike {
  return new Worker(new URL("./pool-worker-web.js", import.meta.url), { type: "module" });
}

function defaultThreads(): number {
  const n = typeof navigator === "object" && navigator !== null ? navigator.hardwareConcurrency : undefined;
  return typeof n === "number" && Number.isInteger(n) && n >= 1 ? Math.min(n, 256) : 2;
}

function copyOf(data: Uint8Array): ArrayBuffer {
  const buffer = new ArrayBuffer(data.length);
  new Uint8Array(buffer).set(data);
  return buffer;
}

/**
 * Start a pool of Web Workers for Blosc work.
 *
 * @param options - worker count, the size below which work stays here, and how to start a worker.
 * @returns the pool; workers start at once and are stopped by `close()`.
 * @throws UsageError INVALID_ARGUMENT for a bad thread count or minWorkerBytes.
 * @example
 * ```ts
 * const pool = createWebBloscPool({ threads: 2 });
 * try {
 *   const [chunk] = await pool.compressMany([bytes], { typesize: 8, clevel: 5, shuffle: 1, cname: "lz4" });
 * } finally {
 *   await pool.close();
 * }
 * ```
 */
export function createWebBloscPool(options: WebBloscPoolOptions = {}): WebBloscPool {
  const { threads, minWorkerBytes } = checkPoolSizing(options.threads ?? defaultThreads(), options.minWorkerBytes);
  const createWorker = options.createWorker ?? defaultWorker;
  let closed = false;
  // Queue, batches, replies and failures: the loop shared with the Node pool (pool-dispatch.ts).
  const dispatcher = new TaskDispatcher<Slot>({
    post: (slot, request, transfer) => slot.worker.postMessage(request, transfer),
    dropped: (slot) => slot.worker.terminate(),
  });

  for (let i = 0; i < threads; i++) {
    const slot: Slot = { worker: createWorker(), inflight: new Map() };
    slot.worker.addEventListener("message", (event) => dispatcher.onReply(slot, (event as MessageEvent<PoolReply | PoolDecodeReply>).data));
    slot.worker.addEventListener("error", (event) => {
      const message = "message" in event && typeof event.message === "string" ? event.message : "a Blosc pool worker failed";
      dispatcher.failSlot(slot, new UsageError("INVALID_ARGUMENT", message, { field: "pool.worker" }));
    });
    dispatcher.addSlot(slot);
  }

  function submit(op: PoolTask["op"], data: Uint8Array, opts: object | undefined): Promise<Uint8Array> {
    if (dispatcher.slots.length === 0) return Promise.reject(dispatcher.noWorkers());
    const task: PoolTask = { op, input: copyOf(data), offset: 0, length: data.length, options: plainOptions(opts) };
    return dispatcher.submit(task, data.length);
  }

  function compressOne(data: Uint8Array, opts: CompressOptions): Promise<Uint8Array> {
    try {
      if (!(data instanceof Uint8Array) || data.length < minWorkerBytes || closed) return Promise.resolve(compress(data, opts));
    } catch (error) {
      return Promise.reject(error);
    }
    return submit("compress", data, opts);
  }

  function compressLent(data: Uint8Array, opts: CompressOptions, headroom: number): Promise<LentChunk> {
    const bad = lentArgumentError(data, headroom, opts);
    if (bad !== undefined) return Promise.reject(bad);
    const lend = (chunk: Uint8Array): LentChunk => ({ chunk, release() {} });
    const here = data.length < minWorkerBytes || closed;
    if (!here && dispatcher.slots.length === 0) return Promise.reject(dispatcher.noWorkers());
    try {
      const output = new ArrayBuffer(headroom + data.length + BLOSC_MAX_OVERHEAD);
      if (here) return Promise.resolve(lend(new Uint8Array(output, headroom, compressInto(data, opts, new Uint8Array(output, headroom)))));
      return dispatcher.submit({ op: "compressInto", input: copyOf(data), offset: 0, length: data.length, options: plainOptions(opts), output, headroom }, data.length).then(lend);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  function decompressOne(chunk: Uint8Array, opts?: DecompressOptions): Promise<Uint8Array> {
    try {
      const header = readChunkHeader(chunk, opts?.path);
      // decompress checks maxBytes before it allocates anything.
      if (header.nbytes < minWorkerBytes || closed) return Promise.resolve(decompress(chunk, opts));
      return submit("decompress", chunk.subarray(0, Math.min(chunk.length, header.cbytes)), opts);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  return {
    threads,
    compress: compressOne,
    compressLent,
    decompress: decompressOne,
    compressMany(inputs, opts) {
      const given: unknown = inputs; // an array, checked for JavaScript callers
      if (!Array.isArray(given)) {
        return Promise.reject(new UsageError("INVALID_ARGUMENT", "inputs must be an array of Uint8Array", { field: "inputs", expected: "Uint8Array[]", actual: typeof inputs }));
      }
      return Promise.all(inputs.map((data) => compressOne(data, opts)));
    },
    async decompressManyInto(chunks, out, opts) {
      if (!(out instanceof Uint8Array)) {
        throw new UsageError("INVALID_ARGUMENT", "out must be a Uint8Array", { path: opts?.path, field: "out", expected: "Uint8Array", actual: typeof out });
      }
      const views: Uint8Array[] = [];
      let at = 0;
      for (const chunk of chunks) {
        const header = readChunkHeader(chunk, opts?.path);
        if (out.length - at < header.nbytes) {
          throw new UsageError("INVALID_ARGUMENT", "output buffer is smaller than the chunks' total nbytes", {
            path: opts?.path, field: "out", expected: `>= ${at + header.nbytes} bytes`, actual: out.length,
          });
        }
        views.push(out.subarray(at, at + header.nbytes));
        at += header.nbytes;
      }
      const decoded = await Promise.all(chunks.map((chunk) => decompressOne(chunk, opts)));
      decoded.forEach((bytes, i) => views[i]!.set(bytes));
      return views;
    },
    async close() {
      if (closed) return;
      closed = true;
      const error = new UsageError("INVALID_ARGUMENT", "the Blosc pool was closed before this task ran", { field: "pool" });
      for (const s of dispatcher.close(error)) s.worker.terminate();
    },
  };
}
