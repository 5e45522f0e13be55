/**
 * A pool of Node worker threads that decompress (and, when this build has `compress`, compress)
 * Blosc chunks in parallel, like c-blosc's `nthreads` but across chunks. Import it from
 * `@fmt/blosc/pool`.
 *
 * Inputs are copied (never detached): the copy is transferred to a worker, the result transferred
 * back. Chunks that decode to less than `minWorkerBytes` (64 KiB) are handled on the calling thread,
 * where a round trip would cost more than the work. Errors come back as the same
 * `FormatError`/`UsageError` (code, path, field, expected, actual) the functions throw directly.
 *
 * @example
 * ```ts
 * import { createBloscPool } from "@fmt/blosc/pool";
 * const pool = createBloscPool({ threads: 2 });
 * const parts = await pool.decompressMany(chunks);
 * await pool.close();
 * ```
 * @packageDocumentation
 */
/// <reference types="node" />
import { existsSync } from "node:fs";
import { availableParallelism } from "node:os";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import { UsageError } from "@fmt/errors";
import { readChunkHeader } from "@fmt/header";
import * as api from "./index.js";
import type { DecompressOptions } from "./index.js";
import { reviveError } from "./pool-protocol.js";
import type { PoolReply, PoolRequest, PoolTask } from "./pool-protocol.js";

/**
 * Options of {@link createBloscPool}.
 *
 * @example
 * ```ts
 * const options: BloscPoolOptions = { threads: 4, minWorkerBytes: 128 * 1024 };
 * ```
 */
export interface BloscPoolOptions {
  /** Worker threads (default: the machine's available parallelism). */
  threads?: number;
  /** Chunks that decode (or data that is) smaller than this stay on the calling thread. Default 64 KiB. */
  minWorkerBytes?: number;
}

/**
 * A running pool. Call {@link BloscPool.close} when done; an idle pool never keeps the process alive.
 *
 * @example
 * ```ts
 * const bytes = await pool.decompress(chunk, { path: "data/__0.blp" });
 * ```
 */
export interface BloscPool {
  /** Number of worker threads. */
  readonly threads: number;
  /** Like `decompress`, on a worker. */
  decompress(chunk: Uint8Array, options?: DecompressOptions): Promise<Uint8Array>;
  /** Like `decompressInto` (decoded on a worker, then copied into `out` here); resolves to nbytes. */
  decompressInto(chunk: Uint8Array, out: Uint8Array, options?: DecompressOptions): Promise<number>;
  /** Decompress many chunks spread over the workers; results in input order. */
  decompressMany(chunks: readonly Uint8Array[], options?: DecompressOptions): Promise<Uint8Array[]>;
  /** Like the package's `compress`, on a worker (present only when the package has `compress`). */
  compress?(data: Uint8Array, options: Record<string, unknown>): Promise<Uint8Array>;
  /** Stop the workers; tasks still queued are rejected. */
  close(): Promise<void>;
}

interface Pending {
  task: PoolTask;
  cost: number;
  resolve(value: Uint8Array): void;
  reject(error: unknown): void;
}

interface WorkerSlot {
  worker: Worker;
  inflight: Map<number, Pending[]>;
}

const DEFAULT_MIN_WORKER_BYTES = 64 * 1024;
// A batch is closed at this many tasks or bytes of output; two batches per worker stay in flight so
// that a worker never waits for the next message.
const BATCH_TASKS = 8;
const BATCH_BYTES = 2 * 1024 * 1024;
const BATCHES_PER_WORKER = 2;

function workerExecArgv(): string[] {
  const out: string[] = [];
  const argv = process.execArgv;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === "--conditions" || a === "-C") i++;
    else if (!a.startsWith("--conditions=") && !a.startsWith("-C=")) out.push(a);
  }
  return out;
}

function workerUrl(): URL {
  const beside = new URL("./pool-worker-node.js", import.meta.url);
  if (existsSync(fileURLToPath(beside))) return beside;
  // Running from the TypeScript sources (the `development` condition): workers need the build.
  const built = new URL("../dist/pool-worker-node.js", import.meta.url);
  if (existsSync(fileURLToPath(built))) return built;
  throw new UsageError("INVALID_ARGUMENT", "the worker script is missing: build @fmt/blosc first (pnpm --filter @fmt/blosc build)", {
    field: "pool.worker", expected: fileURLToPath(built),
  });
}

// Inputs are copied into buffers that travel to the worker and back and are then reused: fresh
// memory for every chunk (a slice() per call) costs more in page faults than the copy itself, and
// V8 copies into SharedArrayBuffers several times slower than into ordinary ones.
const STAGING_MIN = 64 * 1024;
const STAGING_KEEP_BYTES = 64 * 1024 * 1024;

class StagingBuffers {
  readonly #free = new Map<number, ArrayBuffer[]>();
  #kept = 0;

  acquire(bytes: Uint8Array, length: number): ArrayBuffer {
    let size = STAGING_MIN;
    while (size < length) size *= 2;
    let buffer = this.#free.get(size)?.pop();
    if (buffer !== undefined) this.#kept -= size;
    else buffer = new ArrayBuffer(size);
    new Uint8Array(buffer, 0, length).set(length === bytes.length ? bytes : bytes.subarray(0, length));
    return buffer;
  }

  release(buffer: ArrayBuffer): void {
    if (this.#kept + buffer.byteLength > STAGING_KEEP_BYTES) return;
    let list = this.#free.get(buffer.byteLength);
    if (list === undefined) this.#free.set(buffer.byteLength, (list = []));
    list.push(buffer);
    this.#kept += buffer.byteLength;
  }
}

function plainOptions(options: object | undefined): Record<string, unknown> | undefined {
  if (options === undefined) return undefined;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(options)) if (v !== undefined && typeof v !== "function") out[k] = v;
  return out;
}

/**
 * Start a pool of worker threads for Blosc work.
 *
 * @param options - thread count and the size below which work stays on the calling thread.
 * @returns the pool; workers start at once and are stopped by `close()`.
 * @throws UsageError INVALID_ARGUMENT for a bad thread count, or when the worker script is missing.
 * @example
 * ```ts
 * const pool = createBloscPool({ threads: 2 });
 * try {
 *   const data = await pool.decompress(chunk);
 * } finally {
 *   await pool.close();
 * }
 * ```
 */
export function createBloscPool(options: BloscPoolOptions = {}): BloscPool {
  const threads = options.threads ?? availableParallelism();
  if (!Number.isInteger(threads) || threads < 1 || threads > 256) {
    throw new UsageError("INVALID_ARGUMENT", "threads must be an integer in 1..256", { field: "threads", expected: "1..256", actual: threads });
  }
  const minWorkerBytes = options.minWorkerBytes ?? DEFAULT_MIN_WORKER_BYTES;
  if (typeof minWorkerBytes !== "number" || !(minWorkerBytes >= 0)) {
    throw new UsageError("INVALID_ARGUMENT", "minWorkerBytes must be a non-negative number", { field: "minWorkerBytes", expected: ">= 0", actual: minWorkerBytes });
  }
  const url = workerUrl();
  const compressFn = (api as Record<string, unknown>)["compress"] as ((data: Uint8Array, options: unknown) => Uint8Array) | undefined;

  const queue: Pending[] = [];
  const staging = new StagingBuffers();
  const slots: WorkerSlot[] = [];
  let nextBatch = 1;
  let closed = false;
  let lastFailure: unknown;

  function failSlot(slot: WorkerSlot, error: unknown): void {
    lastFailure = error;
    for (const batch of slot.inflight.values()) for (const p of batch) p.reject(error);
    slot.inflight.clear();
    const i = slots.indexOf(slot);
    if (i >= 0) slots.splice(i, 1);
    if (!closed && slots.length === 0) {
      for (const p of queue.splice(0)) p.reject(error);
    }
  }

  for (let i = 0; i < threads; i++) {
    // Flags that change module resolution (e.g. a test runner's `--conditions development`) would
    // send the worker to the TypeScript sources; the worker needs none of the parent's flags.
    const worker = new Worker(url, { execArgv: workerExecArgv() });
    const slot: WorkerSlot = { worker, inflight: new Map() };
    worker.on("message", (reply: PoolReply) => {
      const batch = slot.inflight.get(reply.batch);
      if (batch === undefined) return;
      slot.inflight.delete(reply.batch);
      if (slot.inflight.size === 0) worker.unref();
      for (const input of reply.inputs) staging.release(input);
      batch.forEach((p, k) => {
        const r = reply.results[k];
        if (r === undefined) p.reject(new UsageError("INVALID_ARGUMENT", "worker reply is missing a result", { field: "pool.reply" }));
        else if (r.ok) p.resolve(r.value);
        else p.reject(reviveError(r.error));
      });
      dispatch();
    });
    worker.on("error", (error) => failSlot(slot, error));
    worker.on("exit", (code) => {
      if (!closed) failSlot(slot, new Error(`Blosc pool worker exited with code ${code}`));
    });
    // Idle workers must not keep the process alive (unref after the listeners: adding a
    // listener refs the worker's port again).
    worker.unref();
    slots.push(slot);
  }

  function dispatch(): void {
    while (queue.length > 0) {
      let best: WorkerSlot | undefined;
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
      const request: PoolRequest = { batch: id, tasks: batch.map((p) => p.task) };
      if (best.inflight.size === 0) best.worker.ref();
      best.inflight.set(id, batch);
      best.worker.postMessage(request, batch.map((p) => p.task.input));
    }
  }

  function submit(task: PoolTask, cost: number): Promise<Uint8Array> {
    if (slots.length === 0) return Promise.reject(lastFailure ?? new UsageError("INVALID_ARGUMENT", "the Blosc pool has no workers", { field: "pool" }));
    return new Promise<Uint8Array>((resolve, reject) => {
      queue.push({ task, cost, resolve, reject });
      // Start at once while a worker has room, so that workers run while the caller is still
      // submitting; later tasks wait in the queue and leave in batches as replies come back.
      dispatch();
    });
  }

  function decompress(chunk: Uint8Array, opts?: DecompressOptions): Promise<Uint8Array> {
    let nbytes: number;
    let cbytes: number;
    try {
      if (!(chunk instanceof Uint8Array)) return Promise.resolve(api.decompress(chunk, opts));
      const header = readChunkHeader(chunk, opts?.path);
      nbytes = header.nbytes;
      cbytes = header.cbytes;
      if (nbytes < minWorkerBytes || closed) return Promise.resolve(api.decompress(chunk, opts));
    } catch (error) {
      return Promise.reject(error);
    }
    const length = Math.min(chunk.length, cbytes);
    return submit({ op: "decompress", input: staging.acquire(chunk, length), offset: 0, length, options: plainOptions(opts) }, nbytes);
  }

  const pool: BloscPool = {
    threads,
    decompress,
    async decompressInto(chunk, out, opts) {
      if (!(out instanceof Uint8Array)) {
        throw new UsageError("INVALID_ARGUMENT", "out must be a Uint8Array", { path: opts?.path, field: "out", expected: "Uint8Array", actual: typeof out });
      }
      const header = readChunkHeader(chunk, opts?.path);
      if (out.length < header.nbytes) {
        throw new UsageError("INVALID_ARGUMENT", "output buffer is smaller than the chunk's nbytes", {
          path: opts?.path, field: "out", expected: `>= ${header.nbytes} bytes`, actual: out.length,
        });
      }
      if (header.nbytes < minWorkerBytes) return api.decompressInto(chunk, out, opts);
      const bytes = await decompress(chunk, opts);
      out.set(bytes);
      return bytes.length;
    },
    decompressMany(chunks, opts) {
      return Promise.all(chunks.map((chunk) => decompress(chunk, opts)));
    },
    async close() {
      if (closed) return;
      closed = true;
      const error = new UsageError("INVALID_ARGUMENT", "the Blosc pool was closed before this task ran", { field: "pool" });
      for (const p of queue.splice(0)) p.reject(error);
      const all = slots.splice(0);
      for (const s of all) {
        for (const batch of s.inflight.values()) for (const p of batch) p.reject(error);
        s.inflight.clear();
      }
      await Promise.all(all.map((s) => s.worker.terminate()));
    },
  };
  if (typeof compressFn === "function") {
    pool.compress = (data, opts) => {
      if (!(data instanceof Uint8Array) || data.length < minWorkerBytes || closed) {
        try {
          return Promise.resolve(compressFn(data, opts));
        } catch (error) {
          return Promise.reject(error);
        }
      }
      return submit({ op: "compress", input: staging.acquire(data, data.length), offset: 0, length: data.length, options: plainOptions(opts) }, data.length);
    };
  }
  return pool;
}
