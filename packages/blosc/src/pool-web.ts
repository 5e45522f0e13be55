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
import { readChunkHeader } from "@fmt/header";
import type { ChunkCodecPool } from "./pool-api.js";
import { compress } from "./compress.js";
import type { CompressOptions } from "./compress.js";
import { decompress } from "./decompress.js";
import type { DecompressOptions } from "./plan.js";
import { checkPoolSizing, plainOptions, reviveError } from "./pool-protocol.js";
import type { PoolDecodeReply, PoolReply, PoolRequest, PoolTask } from "./pool-protocol.js";

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
}

interface Pending {
  task: PoolTask;
  cost: number;
  resolve(value: Uint8Array): void;
  reject(error: unknown): void;
}

interface Slot {
  worker: WorkerLike;
  inflight: Map<number, Pending[]>;
}

// A batch closes at this many tasks or bytes; two batches per worker stay in flight so that a
// worker never waits for its next message.
const BATCH_TASKS = 8;
const BATCH_BYTES = 2 * 1024 * 1024;
const BATCHES_PER_WORKER = 2;

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
  const queue: Pending[] = [];
  const slots: Slot[] = [];
  let nextBatch = 1;
  let closed = false;
  let lastFailure: unknown;

  const noWorkers = (): unknown => lastFailure ?? new UsageError("INVALID_ARGUMENT", "the Blosc pool has no workers", { field: "pool" });

  function failSlot(slot: Slot, error: unknown): void {
    lastFailure = error;
    for (const batch of slot.inflight.values()) for (const p of batch) p.reject(error);
    slot.inflight.clear();
    const i = slots.indexOf(slot);
    if (i >= 0) slots.splice(i, 1);
    slot.worker.terminate();
    if (slots.length === 0) for (const p of queue.splice(0)) p.reject(error);
    else dispatch();
  }

  function onReply(slot: Slot, reply: PoolReply | PoolDecodeReply): void {
    const batch = slot.inflight.get(reply.batch);
    if (batch === undefined || reply.kind === "decodeRun") return;
    slot.inflight.delete(reply.batch);
    batch.forEach((p, k) => {
      const r = reply.results[k];
      if (r === undefined) p.reject(new UsageError("INVALID_ARGUMENT", "worker reply is missing a result", { field: "pool.reply" }));
      else if (r.ok) p.resolve(r.value);
      else p.reject(reviveError(r.error));
    });
    dispatch();
  }

  for (let i = 0; i < threads; i++) {
    const slot: Slot = { worker: createWorker(), inflight: new Map() };
    slot.worker.addEventListener("message", (event) => onReply(slot, (event as MessageEvent<PoolReply | PoolDecodeReply>).data));
    slot.worker.addEventListener("error", (event) => {
      const message = "message" in event && typeof event.message === "string" ? event.message : "a Blosc pool worker failed";
      failSlot(slot, new UsageError("INVALID_ARGUMENT", message, { field: "pool.worker" }));
    });
    slots.push(slot);
  }

  function dispatch(): void {
    while (queue.length > 0) {
      let best: Slot | undefined;
      for (const s of slots) if (s.inflight.size < BATCHES_PER_WORKER && (best === undefined || s.inflight.size < best.inflight.size)) best = s;
      if (best === undefined) return;
      const batch: Pending[] = [];
      let bytes = 0;
      while (queue.length > 0 && batch.length < BATCH_TASKS && bytes < BATCH_BYTES) {
        const p = queue.shift()!;
        batch.push(p);
        bytes += p.cost;
      }
      const id = nextBatch++;
      best.inflight.set(id, batch);
      const request: PoolRequest = { batch: id, tasks: batch.map((p) => p.task) };
      best.worker.postMessage(request, batch.map((p) => p.task.input));
    }
  }

  function submit(op: PoolTask["op"], data: Uint8Array, opts: object | undefined): Promise<Uint8Array> {
    if (slots.length === 0) return Promise.reject(noWorkers());
    const task: PoolTask = { op, input: copyOf(data), offset: 0, length: data.length, options: plainOptions(opts) };
    return new Promise<Uint8Array>((resolve, reject) => {
      queue.push({ task, cost: data.length, resolve, reject });
      dispatch();
    });
  }

  function compressOne(data: Uint8Array, opts: CompressOptions): Promise<Uint8Array> {
    try {
      if (!(data instanceof Uint8Array) || data.length < minWorkerBytes || closed) return Promise.resolve(compress(data, opts));
    } catch (error) {
      return Promise.reject(error);
    }
    return submit("compress", data, opts);
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
    decompress: decompressOne,
    compressMany(inputs, opts) {
      if (!Array.isArray(inputs)) {
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
      for (const p of queue.splice(0)) p.reject(error);
      for (const s of slots.splice(0)) {
        for (const batch of s.inflight.values()) for (const p of batch) p.reject(error);
        s.inflight.clear();
        s.worker.terminate();
      }
    },
  };
}
