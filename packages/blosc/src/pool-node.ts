/**
 * A pool of Node worker threads that decompress (and, when this build has `compress`, compress)
 * Blosc chunks in parallel, like c-blosc's `nthreads` but across chunks. Import it from
 * `@fmt/blosc/pool`.
 *
 * Inputs are copied (never detached): the copy is transferred to a worker, the result transferred
 * back. Decompression calls made in the same tick are gathered into runs: each engaged worker gets
 * one message with a contiguous run of chunks and answers with one buffer holding all of their
 * outputs, while the calling thread decodes its own share meanwhile (so results of one tick may be
 * views into a shared output buffer). Chunks that decode to less than `minWorkerBytes` (64 KiB) are handled on the calling thread,
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
import { reviveError, UsageError } from "@fmt/errors";
import { BLOSC_MAX_OVERHEAD, readChunkHeader } from "@fmt/header";
import * as api from "./index.js";
import type { ChunkCodecPool, CompressOptions, DecompressOptions, LentChunk } from "./index.js";
import { TaskDispatcher } from "./pool-dispatch.js";
import type { DispatchSlot } from "./pool-dispatch.js";
import { checkPoolSizing, lentArgumentError, plainOptions } from "./pool-protocol.js";
import type { PoolDecodeReply, PoolDecodeRequest, PoolReply } from "./pool-protocol.js";
import { packedAt, StagingBuffers, stagingSize } from "./pool-staging-node.js";

export { packedAt } from "./pool-staging-node.js";

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
export interface BloscPool extends ChunkCodecPool {
  /** Number of worker threads. */
  readonly threads: number;
  /** Like `decompress`, on a worker. */
  decompress(chunk: Uint8Array, options?: DecompressOptions): Promise<Uint8Array>;
  /** Like `decompressInto` (decoded on a worker, then copied into `out` here); resolves to nbytes. */
  decompressInto(chunk: Uint8Array, out: Uint8Array, options?: DecompressOptions): Promise<number>;
  /** Decompress many chunks spread over the workers; results in input order. */
  decompressMany(chunks: readonly Uint8Array[], options?: DecompressOptions): Promise<Uint8Array[]>;
  /**
   * Decompress many chunks into `out`, back to back in input order (each takes its header's
   * nbytes); resolves to the views of `out` holding each chunk. The calling thread decodes a share
   * itself. When `out` is backed by a SharedArrayBuffer, workers write into it directly; otherwise
   * their part is copied in, so a reused shared `out` is the fastest way to read many chunks.
   */
  decompressManyInto(chunks: readonly Uint8Array[], out: Uint8Array, options?: DecompressOptions): Promise<Uint8Array[]>;
  /** Like the package's `compress`, on a worker (present only when the package has `compress`). */
  compress?(data: Uint8Array, options: Record<string, unknown>): Promise<Uint8Array>;
  /**
   * Like the package's `compress` for each input, spread over the workers (inputs are copied
   * before this returns); inputs smaller than `minWorkerBytes` are compressed on the calling thread.
   */
  compressMany(inputs: readonly Uint8Array[], options: CompressOptions): Promise<Uint8Array[]>;
  /**
   * Like `compressMany` for one input, into a recycled buffer of the pool's with `headroom` free
   * bytes before the chunk (see {@link ChunkCodecPool.compressLent}).
   */
  compressLent(input: Uint8Array, options: CompressOptions, headroom: number): Promise<LentChunk>;
  /** Stop the workers; tasks still queued are rejected. */
  close(): Promise<void>;
}

interface WorkerSlot extends DispatchSlot {
  worker: Worker;
  /**
   * Input memory of shared runs, kept across runs: a transferred staging buffer comes back only
   * after this thread has finished its share, too late for a caller's next run, and fresh memory
   * costs page faults.
   */
  sharedInput?: SharedArrayBuffer | undefined;
  /** The run still reading `sharedInput`, if any. */
  sharedInputRun?: number | undefined;
}

interface DecodeJob {
  chunk: Uint8Array;
  length: number;
  nbytes: number;
  options: DecompressOptions | undefined;
  /** Where the caller wants the bytes (decompressManyInto); otherwise the pool provides memory. */
  dest?: Uint8Array | undefined;
  /** Already resolved or rejected (by the calling thread, in a shared run). */
  settled?: boolean;
  resolve(value: Uint8Array): void;
  reject(error: unknown): void;
}

// In a shared run the worker is offered this fraction of the chunks beyond its expected share, so
// that it can take more when this thread is slowed down.
const SHARE_MARGIN = 0.15;

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
  const { threads, minWorkerBytes } = checkPoolSizing(options.threads ?? availableParallelism(), options.minWorkerBytes);
  const url = workerUrl();
  const compressFn = (api as Record<string, unknown>)["compress"] as ((data: Uint8Array, options: unknown) => Uint8Array) | undefined;

  const cores = availableParallelism();
  let pendingDecodes: DecodeJob[] = [];
  let flushScheduled = false;
  // Fraction of a run's bytes decoded on the calling thread; adjusted after every run.
  let hereShare = 1 / (Math.max(1, Math.min(threads, cores - 1)) + 1);
  const staging = new StagingBuffers();
  let closed = false;
  // Queue, batches, replies and failures: the loop shared with the Web pool (pool-dispatch.ts).
  // Decode runs (below) are this pool's own messages, tracked by the same dispatcher.
  const dispatcher = new TaskDispatcher<WorkerSlot>({
    post: (slot, request, transfer) => slot.worker.postMessage(request, transfer),
    busy: (slot) => slot.worker.ref(),
    idle: (slot) => slot.worker.unref(),
    batchReplied: (message: PoolReply) => {
      for (const input of message.inputs) staging.release(input);
    },
  });
  const slots = dispatcher.slots;

  for (let i = 0; i < threads; i++) {
    // Flags that change module resolution (e.g. a test runner's `--conditions development`) would
    // send the worker to the TypeScript sources; the worker needs none of the parent's flags.
    const worker = new Worker(url, { execArgv: workerExecArgv() });
    const slot: WorkerSlot = { worker, inflight: new Map() };
    worker.on("message", (reply: PoolReply | PoolDecodeReply) => dispatcher.onReply(slot, reply));
    worker.on("error", (error) => dispatcher.failSlot(slot, error));
    worker.on("exit", (code) => {
      if (!closed) dispatcher.failSlot(slot, new Error(`Blosc pool worker exited with code ${code}`));
    });
    // Idle workers must not keep the process alive (unref after the listeners: adding a
    // listener refs the worker's port again).
    worker.unref();
    dispatcher.addSlot(slot);
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
    if (slots.length === 0) return Promise.reject(dispatcher.noWorkers());
    const length = Math.min(chunk.length, cbytes);
    return new Promise<Uint8Array>((resolve, reject) => {
      pendingDecodes.push({ chunk, length, nbytes, options: opts, resolve, reject });
      if (!flushScheduled) {
        flushScheduled = true;
        queueMicrotask(flushDecodes);
      }
    });
  }

  // One fresh buffer for all of this thread's share: one allocation instead of one per chunk.
  function decodeHere(jobs: readonly DecodeJob[]): void {
    let total = 0;
    for (const job of jobs) if (job.dest === undefined) total += job.nbytes;
    const output = new ArrayBuffer(total);
    let at = 0;
    for (const job of jobs) {
      let out = job.dest;
      if (out === undefined) {
        out = new Uint8Array(output, at, job.nbytes);
        at += job.nbytes;
      }
      try {
        api.decompressInto(job.chunk, out, job.options);
        job.resolve(out);
      } catch (error) {
        job.reject(error);
      }
    }
  }

  function sendRun(slot: WorkerSlot, jobs: DecodeJob[], flushStart: number, onDone: (bytes: number, finish: number) => void, claims?: SharedArrayBuffer): void {
    // Each chunk sits at the offset modulo 8 it has in the caller's memory (see `packedAt`).
    let inputBytes = 0;
    for (const job of jobs) inputBytes = packedAt(inputBytes, job.chunk) + job.length;
    let input: ArrayBuffer | SharedArrayBuffer;
    if (claims === undefined) input = staging.take(inputBytes);
    else {
      if (slot.sharedInput === undefined || slot.sharedInputRun !== undefined || slot.sharedInput.byteLength < inputBytes) {
        slot.sharedInput = new SharedArrayBuffer(stagingSize(inputBytes));
      }
      input = slot.sharedInput;
    }
    const packed = new Uint8Array(input);
    const offsets: number[] = [];
    const lengths: number[] = [];
    const nbytes: number[] = [];
    let options: (Record<string, unknown> | undefined)[] | undefined;
    let at = 0;
    jobs.forEach((job, i) => {
      at = packedAt(at, job.chunk);
      packed.set(job.length === job.chunk.length ? job.chunk : job.chunk.subarray(0, job.length), at);
      offsets.push(at);
      lengths.push(job.length);
      nbytes.push(job.nbytes);
      at += job.length;
      if (job.options !== undefined) (options ??= [])[i] = plainOptions(job.options);
    });
    // Outputs laid out back to back in one shared buffer are written there by the worker itself.
    const first = jobs[0]?.dest;
    let target: SharedArrayBuffer | undefined;
    if (first !== undefined && first.buffer instanceof SharedArrayBuffer) {
      target = first.buffer;
      let next = first.byteOffset;
      for (const job of jobs) {
        if (job.dest === undefined || job.dest.buffer !== target || job.dest.byteOffset !== next) {
          target = undefined;
          break;
        }
        next += job.nbytes;
      }
    }
    const id = dispatcher.nextBatchId();
    if (claims !== undefined) slot.sharedInputRun = id;
    const request: PoolDecodeRequest = { kind: "decodeRun", batch: id, input, offsets, lengths, nbytes, options, target, targetOffset: target === undefined ? undefined : first!.byteOffset, claims: target === undefined ? undefined : claims };
    const posted = performance.now();
    dispatcher.track(slot, id, {
      reply(message) {
        if (message.kind !== "decodeRun") return;
        if (message.input instanceof ArrayBuffer) staging.release(message.input);
        else if (slot.sharedInputRun === message.batch) slot.sharedInputRun = undefined;
        const failed = new Map(message.errors);
        let out = 0;
        let bytes = 0;
        jobs.forEach((job, i) => {
          const error = failed.get(i);
          if (job.settled === true) { /* decoded on the calling thread */ }
          else if (error !== undefined) job.reject(reviveError(error));
          else if (target !== undefined) job.resolve(job.dest!);
          else if (job.dest !== undefined) {
            job.dest.set(new Uint8Array(message.output, out, job.nbytes));
            job.resolve(job.dest);
          } else job.resolve(new Uint8Array(message.output, out, job.nbytes));
          if (target === undefined) out += job.nbytes;
          bytes += job.nbytes;
        });
        onDone(bytes, posted - flushStart + message.elapsed);
      },
      fail(error) {
        for (const job of jobs) if (job.settled !== true) job.reject(error);
      },
    });
    slot.worker.postMessage(request, input instanceof ArrayBuffer ? [input] : []);
  }

  function sharedContiguous(jobs: readonly DecodeJob[]): boolean {
    const first = jobs[0]?.dest;
    if (first === undefined || !(first.buffer instanceof SharedArrayBuffer)) return false;
    let next = first.byteOffset;
    for (const job of jobs) {
      if (job.dest === undefined || job.dest.buffer !== first.buffer || job.dest.byteOffset !== next) return false;
      next += job.nbytes;
    }
    return true;
  }

  // One worker and this thread decode one run from both ends, taking chunks through shared states,
  // so that neither waits for the other however the cores are shared. The worker gets the inputs of
  // its expected part plus a margin; this thread needs none copied.
  function shareRun(slot: WorkerSlot, jobs: DecodeJob[], total: number, flushStart: number): void {
    const n = jobs.length;
    const claimsBuffer = new SharedArrayBuffer(4 * n);
    const claims = new Int32Array(claimsBuffer);
    const offered = Math.min(n, Math.ceil(n * (1 - hereShare + SHARE_MARGIN)));
    sendRun(slot, jobs.slice(0, offered), flushStart, () => {}, claimsBuffer);
    const runId = slot.sharedInputRun;
    for (let i = n - 1; i >= 0; i--) {
      if (i < offered && Atomics.compareExchange(claims, i, 0, 1) !== 0) break;
      const job = jobs[i]!;
      job.settled = true;
      try {
        api.decompressInto(job.chunk, job.dest!, job.options);
        job.resolve(job.dest!);
      } catch (error) {
        job.reject(error);
      }
    }
    let workerBytes = 0;
    let workerDone = true;
    for (let i = 0; i < offered; i++) {
      const job = jobs[i]!;
      if (job.settled === true) break;
      // The worker is at most one chunk (tens of microseconds) from done; a dead worker is
      // handled by the reply or the failure path instead of blocking here.
      if (Atomics.load(claims, i) === 1) Atomics.wait(claims, i, 1, 50);
      const state = Atomics.load(claims, i);
      if (state === 2) {
        job.settled = true;
        job.resolve(job.dest!);
      } else if (state === 1) workerDone = false;
      workerBytes += job.nbytes;
    }
    // The worker reads no input after its last chunk, so the next run may refill the input at once.
    if (workerDone && slot.sharedInputRun === runId) slot.sharedInputRun = undefined;
    hereShare = Math.min(0.95, Math.max(0.05, 0.5 * hereShare + 0.5 * (1 - workerBytes / total)));
  }

  function flushDecodes(): void {
    flushScheduled = false;
    const jobs = pendingDecodes;
    pendingDecodes = [];
    if (jobs.length === 0) return;
    if (closed) return decodeHere(jobs);
    if (slots.length === 0) {
      const error = dispatcher.noWorkers();
      for (const job of jobs) job.reject(error);
      return;
    }
    const flushStart = performance.now();
    // Engaging more workers than the cores left beside this thread only adds switching.
    const helpers = slots.slice(0, Math.max(1, Math.min(slots.length, cores - 1)));
    let total = 0;
    for (const job of jobs) total += job.nbytes;
    if (helpers.length === 1 && jobs.length > 1 && sharedContiguous(jobs)) return shareRun(helpers[0]!, jobs, total, flushStart);
    // A lone chunk goes to a worker (that is what a caller of a pool asks for); a run is shared.
    let mine = 0;
    if (jobs.length > 1) {
      const target = total * hereShare;
      for (let acc = 0; mine < jobs.length - 1; mine++) {
        const n = jobs[mine]!.nbytes;
        if (acc + n / 2 > target) break;
        acc += n;
      }
    }
    const here = jobs.slice(0, mine);
    const rest = jobs.slice(mine);
    let restBytes = 0;
    for (const job of rest) restBytes += job.nbytes;
    let hereFinish = 0;
    let hereBytes = 0;
    const workerRates: number[] = [];
    let waiting = 0;
    const settle = (): void => {
      // Balance the next runs so that this thread and the workers finish together.
      if (hereBytes === 0 || workerRates.length === 0 || hereFinish <= 0) return;
      const hereRate = hereBytes / hereFinish;
      let workersRate = 0;
      for (const r of workerRates) workersRate += r;
      const ideal = hereRate / (hereRate + workersRate);
      hereShare = Math.min(0.9, Math.max(0.05, 0.5 * hereShare + 0.5 * ideal));
    };
    let start = 0;
    for (let h = 0; h < helpers.length && start < rest.length; h++) {
      const goal = (restBytes * (h + 1)) / helpers.length;
      let end = start;
      let acc = 0;
      for (const job of rest.slice(0, start)) acc += job.nbytes;
      while (end < rest.length && (h === helpers.length - 1 || acc + rest[end]!.nbytes / 2 <= goal || end === start)) acc += rest[end++]!.nbytes;
      waiting++;
      sendRun(helpers[h]!, rest.slice(start, end), flushStart, (bytes, finish) => {
        if (finish > 0) workerRates.push(bytes / finish);
        if (--waiting === 0) settle();
      });
      start = end;
    }
    if (here.length > 0) {
      decodeHere(here);
      hereFinish = performance.now() - flushStart;
      for (const job of here) hereBytes += job.nbytes;
    }
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
    decompressManyInto(chunks, out, opts) {
      const jobs: DecodeJob[] = [];
      const done: Promise<Uint8Array>[] = [];
      try {
        if (!(out instanceof Uint8Array)) {
          throw new UsageError("INVALID_ARGUMENT", "out must be a Uint8Array", { path: opts?.path, field: "out", expected: "Uint8Array", actual: typeof out });
        }
        let at = 0;
        for (const chunk of chunks) {
          const header = readChunkHeader(chunk, opts?.path);
          if (out.length - at < header.nbytes) {
            throw new UsageError("INVALID_ARGUMENT", "output buffer is smaller than the chunks' total nbytes", {
              path: opts?.path, field: "out", expected: `>= ${at + header.nbytes} bytes`, actual: out.length,
            });
          }
          const dest = out.subarray(at, at + header.nbytes);
          at += header.nbytes;
          done.push(new Promise<Uint8Array>((resolve, reject) => {
            jobs.push({ chunk, length: Math.min(chunk.length, header.cbytes), nbytes: header.nbytes, options: opts, dest, resolve, reject });
          }));
        }
        if (at < minWorkerBytes || jobs.length < 2 || closed || slots.length === 0) decodeHere(jobs);
        else {
          pendingDecodes.push(...jobs);
          if (!flushScheduled) {
            flushScheduled = true;
            queueMicrotask(flushDecodes);
          }
        }
      } catch (error) {
        return Promise.reject(error);
      }
      return Promise.all(done);
    },
    decompressMany(chunks, opts) {
      // All calls land in one run (see decompress), laid out back to back.
      return Promise.all(chunks.map((chunk) => decompress(chunk, opts)));
    },
    compressLent,
    compressMany(inputs, opts) {
      const given: unknown = inputs; // an array, checked for JavaScript callers
      if (!Array.isArray(given)) {
        return Promise.reject(new UsageError("INVALID_ARGUMENT", "inputs must be an array of Uint8Array", { field: "inputs", expected: "Uint8Array[]", actual: typeof inputs }));
      }
      return Promise.all(inputs.map((data) => compressOne(data, opts)));
    },
    async close() {
      if (closed) return;
      closed = true;
      const error = new UsageError("INVALID_ARGUMENT", "the Blosc pool was closed before this task ran", { field: "pool" });
      await Promise.all(dispatcher.close(error).map((s) => s.worker.terminate()));
    },
  };
  if (typeof compressFn === "function") {
    pool.compress = compressOne;
  }
  return pool;

  function compressLent(data: Uint8Array, opts: CompressOptions, headroom: number): Promise<LentChunk> {
    const bad = lentArgumentError(data, headroom, opts);
    if (bad !== undefined) return Promise.reject(bad);
    // The buffer goes back to the staging pool once, however often release is called: a second
    // entry of the same buffer in the free list would hand it to two chunks at once.
    const lend = (chunk: Uint8Array): LentChunk => {
      let held = true;
      return {
        chunk,
        release() {
          if (held) staging.release(chunk.buffer as ArrayBuffer);
          held = false;
        },
      };
    };
    const here = data.length < minWorkerBytes || closed;
    if (!here && slots.length === 0) return Promise.reject(dispatcher.noWorkers());
    let output: ArrayBuffer | undefined;
    try {
      output = staging.take(headroom + data.length + BLOSC_MAX_OVERHEAD);
      if (here) return Promise.resolve(lend(new Uint8Array(output, headroom, api.compressInto(data, opts, new Uint8Array(output, headroom)))));
      const options = plainOptions(opts);
      const task = { op: "compressInto" as const, input: staging.acquire(data, data.length), offset: 0, length: data.length, options, output, headroom };
      return dispatcher.submit(task, data.length).then(lend);
    } catch (error) {
      // A failed allocation: a rejection, as for every other failure.
      if (output !== undefined) staging.release(output);
      return Promise.reject(error);
    }
  }

  function compressOne(data: Uint8Array, opts: object): Promise<Uint8Array> {
    if (typeof compressFn !== "function") {
      return Promise.reject(new UsageError("INVALID_ARGUMENT", "this build of @fmt/blosc has no compress()", { field: "op", actual: "compress" }));
    }
    if (!(data instanceof Uint8Array) || data.length < minWorkerBytes || closed) {
      try {
        return Promise.resolve(compressFn(data, opts));
      } catch (error) {
        return Promise.reject(error);
      }
    }
    try {
      const options = plainOptions(opts);
      return dispatcher.submit({ op: "compress", input: staging.acquire(data, data.length), offset: 0, length: data.length, options }, data.length);
    } catch (error) {
      // Options that are not an object: a rejection, as compressMany's other failures are.
      return Promise.reject(error);
    }
  }
}
