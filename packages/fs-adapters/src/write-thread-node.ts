/**
 * The process's write thread: {@link FileSystemStore}'s in-place puts (new chunk files no reader
 * follows yet) are written there while the calling thread goes on, so that a create compresses
 * the next chunk while the last one is being written. On two cores that takes a 10 M-row create
 * from ~55 to ~40 ms (tools/bench/README.md). A put still takes its bytes at once: they are
 * copied into a shared ring before `put` returns, and its promise settles once the file is
 * written (or failed, with the same typed error as on the calling thread).
 *
 * One thread for all the stores of a JavaScript thread (the main one, or a worker that uses the
 * stores itself), started by {@link startWriteThread} or by the stores once they have written
 * {@link AUTO_START_BYTES} in place without it; idle, it never keeps the process alive, and the
 * process writes what is queued before it exits.
 *
 * @module
 */
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { getSystemErrorMap } from "node:util";
import { Worker } from "node:worker_threads";
import { StorageError, UsageError } from "@fmt/errors";
import { InPlaceStepFailure, WriteAtFailure } from "./in-place-file-node.js";
import type { InPlaceStep, WriteAtStep } from "./in-place-file-node.js";
import { sharedRingMemory } from "./ring-checksum-node.js";
import { inPlaceFailure, writeAtError } from "./write-sync-node.js";
import {
  COUNTERS, DELAY, descriptor, DESCRIPTORS, F_AT_HIGH, F_AT_LOW, F_ERRNO, F_KIND, F_OFFSET, F_PATH, F_STATUS, F_SUM, F_SUM_XOR, F_SUMMED, F_SYSCALL, F_VALUE, F_VALUE_AT, F_ZEROS, FIELDS, FINISHED, KIND,
  PROTOCOL, QUEUED, READY, STATUS, STOPPED, SUMS_IN_RING, SYSCALLS,
} from "./write-thread-protocol-node.js";

/**
 * Bytes of the shared ring of queued files: 20 chunks of 400 KB in flight; 4 and 16 MiB measured
 * alike within the noise (tools/bench/README.md).
 */
const RING_BYTES = 8 << 20;
/** Larger values are written on the calling thread: a quarter of the ring keeps several in flight. */
export const LARGEST_QUEUED = RING_BYTES / 4;
/**
 * In-place bytes the stores write on the calling thread before they start the write thread: a
 * small dataset is written before a thread would have started (~30 ms), and never pays for one.
 */
export const AUTO_START_BYTES = 16 << 20;
/** Longest the calling thread waits while the write thread finishes no file at all. */
const STALL_MS = 60_000;

/**
 * A queued file: where its record starts in the ring, its key and path, its offset (`writeAt`),
 * whether the thread stores a checksum in it ({@link WriteThread.queueSummed}), its promise.
 */
interface QueuedFile {
  start: number;
  key: string;
  file: string;
  at: number | undefined;
  summed: boolean;
  resolve: (sum: number | undefined) => void;
  reject: (error: unknown) => void;
}

const encoder = new TextEncoder();

/** `Atomics.waitAsync` (Node 16+; not in this project's TypeScript library, ES2022). */
const waitAsync = (Atomics as unknown as { waitAsync: (this: void, array: Int32Array, index: number, value: number) => { async: false; value: string } | { async: true; value: Promise<string> } }).waitAsync;
let shared: WriteThread | undefined;
let starting: Promise<WriteThread> | undefined;
let unavailable = false;
let writtenWithout = 0;

/**
 * The write thread if it is ready to take a value of `length` bytes; otherwise `undefined` and
 * the caller writes on its own thread. Counts those bytes and starts the thread after
 * {@link AUTO_START_BYTES}. @internal
 *
 * @example
 * ```ts
 * const thread = readyWriteThread(bytes.length);
 * if (thread === undefined) writeHere(); else await thread.queue(file, key, bytes);
 * ```
 */
export function readyWriteThread(length: number): WriteThread | undefined {
  if (length > LARGEST_QUEUED) return undefined;
  if (shared?.ready === true) return shared;
  if (!unavailable && starting === undefined && (writtenWithout += length) >= AUTO_START_BYTES) {
    startedWriteThread().catch(() => {
      // Without the worker script (a bundle that left it out) the stores write on their own thread.
      unavailable = true;
    });
  }
  return undefined;
}

/**
 * The write thread if it runs and takes files; `undefined` otherwise. Unlike
 * {@link readyWriteThread} it counts nothing towards the thread's start. @internal
 *
 * @example
 * ```ts
 * const thread = runningWriteThread(); // undefined: the caller writes on its own thread
 * ```
 */
export function runningWriteThread(): WriteThread | undefined {
  return shared?.ready === true ? shared : undefined;
}

/**
 * Whether the process's write thread was started (by {@link startWriteThread} or by the stores),
 * for tests and diagnostics. @internal
 *
 * @example
 * ```ts
 * if (!writeThreadStarted()) console.log("every file so far was written on its caller's thread");
 * ```
 */
export function writeThreadStarted(): boolean {
  return starting !== undefined;
}

/**
 * Waits here until the write thread has written every file queued so far (nothing to do when none
 * is). @internal
 *
 * @example
 * ```ts
 * settleWriteThread(); // then read, list or delete in the order the calls were made
 * ```
 */
export function settleWriteThread(): void {
  shared?.settle();
}

/**
 * Starts the write thread now (the stores start it once they have written 16 MiB of new chunk
 * files without it) and resolves once it takes files. Useful before a large create in a
 * short-lived process. Calling it again waits for the same thread.
 *
 * @throws UsageError INVALID_ARGUMENT when the worker script is missing (build the package).
 * @example
 * ```ts
 * import { FileSystemStore, startWriteThread } from "@fmt/fs-adapters/node";
 * await startWriteThread();
 * const store = new FileSystemStore("/data/big.bcolz"); // its new chunk files go to the thread
 * ```
 */
export async function startWriteThread(): Promise<void> {
  await startedWriteThread();
}

/**
 * {@link startWriteThread}, resolving to the thread itself (its counters, for tests). @internal
 *
 * @example
 * ```ts
 * const thread = await startedWriteThread();
 * console.log(thread.queuedFiles);
 * ```
 */
export function startedWriteThread(): Promise<WriteThread> {
  starting ??= WriteThread.start().then(
    (thread) => (shared = thread),
    (error: unknown) => {
      starting = undefined;
      throw error;
    },
  );
  return starting;
}

/**
 * The calling thread's side of the write thread: the ring, the queue of files not yet finished,
 * and their promises. @internal
 *
 * @example
 * ```ts
 * const thread = await startedWriteThread();
 * await thread.queue("/data/t.bcolz/data/__0.blp", "data/__0.blp", bytes);
 * ```
 */
export class WriteThread {
  readonly #worker: Worker;
  /** The shared ring, as a `Buffer`: its `fill` copies a value in with one `memcpy` (see `queue`). */
  readonly #ring: Buffer;
  readonly #control: Int32Array;
  readonly #queued: QueuedFile[] = [];
  /** Files queued so far and files settled here (the first queued file's number); int32, wrapping as the shared counters do. */
  #count = 0;
  #done = 0;
  /** Where the next record may begin. */
  #head = 0;
  /** When the thread last finished a file, or was given one with none queued (for {@link STALL_MS}). */
  #progressAt = 0;
  #watching = false;
  #stopped: Error | undefined;

  private constructor(worker: Worker, ring: SharedArrayBuffer, control: Int32Array) {
    this.#worker = worker;
    this.#ring = Buffer.from(ring);
    this.#control = control;
    worker.on("error", (error) => this.#stop(error));
    worker.on("exit", (code) => this.#stop(new Error(`the write thread exited with code ${code}`)));
    worker.unref();
  }

  /**
   * A new thread, once it waits for files. Its ring is a shared WebAssembly memory, where the
   * thread sums chunks without copying them (ring-checksum-node.ts); where none can be made, a
   * plain `SharedArrayBuffer`, and the thread copies them out first. It copies too when it cannot
   * instantiate the module over the memory, or when `options.sumInRing` is `false` (tests of the
   * copying way): {@link WriteThread.sumsInRing} says which. @internal
   */
  static async start(options?: { sumInRing?: boolean }): Promise<WriteThread> {
    const memory = sharedRingMemory(RING_BYTES);
    const ring = (memory?.buffer ?? new SharedArrayBuffer(RING_BYTES)) as SharedArrayBuffer;
    const control = new Int32Array(new SharedArrayBuffer(4 * (COUNTERS + DESCRIPTORS * FIELDS)));
    // The ring is always sent as itself, so that a worker script from another build still starts
    // and is refused by its PROTOCOL (below), not by a crash; the memory only when it is to be
    // summed in. Flags that change module resolution (a test runner's `--conditions development`)
    // would send the worker to the TypeScript sources; it needs none of the parent's flags.
    const summedIn = options?.sumInRing === false ? undefined : memory;
    const worker = new Worker(workerUrl(), { workerData: { ring, control, ...(summedIn === undefined ? {} : { memory: summedIn }) }, execArgv: [] });
    const thread = new WriteThread(worker, ring, control);
    worker.ref();
    try {
      await new Promise<void>((resolve, reject) => {
        const exited = (code: number): void => reject(new Error(`the write thread exited with code ${code}`));
        worker.once("exit", exited);
        const ready = waitAsync(control, READY, 0);
        const settle = (): void => {
          worker.off("exit", exited);
          if (Atomics.load(control, READY) === PROTOCOL) resolve();
          else reject(new UsageError("INVALID_ARGUMENT", "the write thread's script is from another build: rebuild @fmt/fs-adapters", { field: "writeThread", expected: PROTOCOL, actual: Atomics.load(control, READY) }));
        };
        if (ready.async) void ready.value.then(settle);
        else settle();
      });
    } catch (error) {
      await worker.terminate();
      throw error;
    } finally {
      worker.unref();
    }
    // A process that exits (process.exit, an uncaught exception) with files queued writes them
    // first, as it would have had each put written them at once; the thread still runs here.
    process.once("exit", () => {
      try {
        thread.settle();
      } catch {
        // Nothing more can be done while exiting.
      }
    });
    return thread;
  }

  /** Files queued so far (an int32 count that wraps), for tests and diagnostics. @internal */
  get queuedFiles(): number {
    return this.#count;
  }

  /**
   * Whether the thread sums chunks where they lie in its ring (a shared WebAssembly memory), rather
   * than copying them out first. @internal
   */
  get sumsInRing(): boolean {
    return Atomics.load(this.#control, SUMS_IN_RING) === 1;
  }

  /** Whether the thread runs and takes files. */
  get ready(): boolean {
    return this.#stopped === undefined && Atomics.load(this.#control, READY) === PROTOCOL && Atomics.load(this.#control, STOPPED) === 0;
  }

  /**
   * Makes the thread pause `ms` milliseconds before each file (0: none), so that tests fill the
   * ring and the descriptors deterministically. @internal
   */
  delayForTests(ms: number): void {
    Atomics.store(this.#control, DELAY, ms);
  }

  /**
   * Copies `file` (the path of the store's `key`) and `value` into the ring, waiting here for room
   * if the thread is behind, and resolves once the thread wrote the file; rejects with the error a
   * put on this thread gives (`inPlaceFailure`). With `offset`, the value is written into the
   * existing file at that offset instead (`writeAt`, its errors as `writeAtError` words them).
   * `undefined` when the thread stopped before it took the bytes: the caller writes them itself.
   */
  queue(file: string, key: string, value: Uint8Array, offset?: number): Promise<void> | undefined {
    return this.#enqueue(file, key, value, offset, undefined) as Promise<void> | undefined;
  }

  /**
   * {@link WriteThread.queue} of a positional write of `value` followed by four bytes, its Adler-32
   * XOR `xor` (little-endian), and `zeros` zero bytes: the thread computes the sum. Resolves to the
   * stored value (the sum XOR `xor`, unsigned).
   */
  queueSummed(file: string, key: string, value: Uint8Array, offset: number, xor: number, zeros: number): Promise<number> | undefined {
    return this.#enqueue(file, key, value, offset, { xor, zeros }) as Promise<number> | undefined;
  }

  #enqueue(file: string, key: string, value: Uint8Array, offset: number | undefined, sum: { xor: number; zeros: number } | undefined): Promise<number | undefined> | undefined {
    if (this.#stopped !== undefined) return undefined;
    const name = encoder.encode(file);
    // The value keeps its alignment modulo 8 in the ring, so that the copy below runs between
    // like alignments (memcpy took ~3 times as long from 3 mod 8 into 0 mod 8 here).
    const valueAt = name.length + ((((value.byteOffset - name.length) % 8) + 8) % 8);
    // The sum's four bytes after the value, which the thread puts there; the zeros after them it
    // writes from memory of its own (F_ZEROS).
    const after = sum === undefined ? 0 : 4;
    const size = valueAt + value.length + after;
    let at: number;
    try {
      at = this.#room(size, key);
    } catch (error) {
      if (this.#stopped !== undefined) return undefined;
      return Promise.reject(error);
    }
    this.#ring.set(name, at);
    // `Buffer.prototype.fill` with a pattern as long as the range is one `memcpy` (an empty range
    // is left as it is). V8's `TypedArray.prototype.set` copies into shared memory word by word
    // (relaxed atomic stores): 2.4 times the time here, 6–8 ms of a 10 M-row create
    // (tools/bench/README.md).
    this.#ring.fill(value, at + valueAt, at + valueAt + value.length);
    this.#head = (at + size + 7) & ~7;
    const n = this.#count;
    this.#count = (n + 1) | 0;
    const control = this.#control;
    control[descriptor(n, F_OFFSET)] = at;
    control[descriptor(n, F_PATH)] = name.length;
    control[descriptor(n, F_VALUE_AT)] = valueAt;
    control[descriptor(n, F_VALUE)] = value.length + after;
    control[descriptor(n, F_SUMMED)] = sum === undefined ? -1 : value.length;
    control[descriptor(n, F_SUM_XOR)] = sum === undefined ? 0 : sum.xor | 0;
    control[descriptor(n, F_ZEROS)] = sum === undefined ? 0 : sum.zeros;
    control[descriptor(n, F_STATUS)] = 0;
    control[descriptor(n, F_KIND)] = offset === undefined ? KIND.newFile : KIND.writeAt;
    if (offset !== undefined) {
      control[descriptor(n, F_AT_LOW)] = offset % 2 ** 32;
      control[descriptor(n, F_AT_HIGH)] = Math.floor(offset / 2 ** 32);
    }
    if (this.#queued.length === 0) this.#progressAt = Date.now();
    const written = new Promise<number | undefined>((resolve, reject) => this.#queued.push({ start: at, key, file, at: offset, summed: sum !== undefined, resolve, reject }));
    Atomics.store(control, QUEUED, this.#count);
    Atomics.notify(control, QUEUED);
    this.#watch();
    return written;
  }

  /** Where a record of `size` bytes fits, once files finish (waiting here) if none does yet. */
  #room(size: number, key: string): number {
    for (;;) {
      this.#collect();
      if (this.#stopped !== undefined) throw this.#stopped;
      const oldest = this.#queued[0];
      if (oldest === undefined) return (this.#head = 0);
      if (this.#queued.length < DESCRIPTORS) {
        // Records follow each other from the oldest to the head, going round once at most.
        const wrapped = this.#queued[this.#queued.length - 1]!.start < oldest.start;
        if (!wrapped) {
          if (RING_BYTES - this.#head >= size) return this.#head;
          if (size <= oldest.start) return 0;
        } else if (oldest.start - this.#head >= size) {
          return this.#head;
        }
      }
      this.#waitForOne(key);
    }
  }

  /**
   * Waits here until every queued file is finished and settled: what a store does before any
   * other operation, so that operations keep the order they were called in.
   */
  settle(): void {
    for (;;) {
      this.#collect();
      if (this.#queued.length === 0) return;
      this.#waitForOne(this.#queued[0]!.key);
    }
  }

  /** Blocks until the thread finishes another file (or a second passes, or it stopped). */
  #waitForOne(key: string): void {
    const control = this.#control;
    if (Atomics.load(control, STOPPED) === 1) {
      this.#stop(new Error("the write thread stopped"));
      return;
    }
    if (Atomics.wait(control, FINISHED, this.#done, 1000) === "timed-out" && Date.now() - this.#progressAt > STALL_MS) {
      throw new StorageError("IO_ERROR", "the write thread has not finished a file for a minute", { path: key, field: "writeThread", expected: "progress" });
    }
  }

  /** Settles every file the thread finished, in queue order. */
  #collect(): void {
    const finished = Atomics.load(this.#control, FINISHED);
    if (this.#done !== finished) this.#progressAt = Date.now();
    while (this.#done !== finished) {
      const n = this.#done;
      this.#done = (n + 1) | 0;
      const file = this.#queued.shift()!;
      const failure = failureOf(this.#control, n, file.file);
      if (failure === undefined) {
        file.resolve(file.summed ? this.#control[descriptor(n, F_SUM)]! >>> 0 : undefined);
        continue;
      }
      let error: unknown;
      try {
        // Telling a directory in the way from other failures looks at the file system, which
        // can fail too: that error is then the put's.
        error = failure instanceof InPlaceStepFailure
          ? inPlaceFailure(failure, file.key, file.file)
          : failure instanceof WriteAtFailure
            ? writeAtError(failure, file.key, file.file, file.at ?? 0)
            : failure.withPath(file.key);
      } catch (thrown) {
        error = thrown;
      }
      file.reject(error);
    }
  }

  /** Keeps one asynchronous wait for the next finished file while files are queued. */
  #watch(): void {
    if (this.#queued.length === 0 || this.#stopped !== undefined) {
      this.#worker.unref();
      return;
    }
    // Queued files keep the process alive until they are written.
    this.#worker.ref();
    if (this.#watching) return;
    this.#watching = true;
    const wait = waitAsync(this.#control, FINISHED, this.#done);
    const next = (): void => {
      this.#watching = false;
      if (Atomics.load(this.#control, STOPPED) === 1) this.#stop(new Error("the write thread stopped"));
      this.#collect();
      this.#watch();
    };
    if (wait.async) void wait.value.then(next);
    else queueMicrotask(next);
  }

  #stop(error: Error): void {
    if (this.#stopped !== undefined) return;
    this.#stopped = error;
    if (shared === this) {
      shared = undefined;
      unavailable = true;
    }
    // What the thread finished before it stopped keeps its outcome; the rest fails.
    this.#collect();
    for (const file of this.#queued.splice(0)) {
      file.reject(new StorageError("IO_ERROR", "cannot write the file: the write thread stopped", { path: file.key, field: "writeThread", actual: error.message, cause: error }));
    }
    this.#worker.unref();
  }
}

const STATUS_STEP = new Map<number, InPlaceStep>([[STATUS.createFailed, "create"], [STATUS.replaceFailed, "replace"], [STATUS.writeFailed, "write"]]);
const STATUS_AT_STEP = new Map<number, WriteAtStep>([[STATUS.atOpenFailed, "open"], [STATUS.atWriteFailed, "write"]]);

/** Why finished file `n` failed (its system error rebuilt as Node reports one), or `undefined`. */
function failureOf(control: Int32Array, n: number, path: string): InPlaceStepFailure | WriteAtFailure | StorageError | undefined {
  const status = control[descriptor(n, F_STATUS)]!;
  if (status === STATUS.written) return undefined;
  if (status === STATUS.atNotAFile) return new WriteAtFailure("kind");
  if (status === STATUS.atOutOfRange) return new WriteAtFailure("range", undefined, (control[descriptor(n, F_AT_LOW)]! >>> 0) + (control[descriptor(n, F_AT_HIGH)]! >>> 0) * 2 ** 32);
  const step = STATUS_STEP.get(status);
  const atStep = STATUS_AT_STEP.get(status);
  if (step === undefined && atStep === undefined) return new StorageError("IO_ERROR", "cannot write the file: the write thread failed", { field: "writeThread" });
  const error = systemError(control, n, path);
  return step !== undefined ? new InPlaceStepFailure(step, error) : new WriteAtFailure(atStep!, error);
}

/** The system error recorded for finished file `n`, as Node reports one. */
function systemError(control: Int32Array, n: number, path: string): Error {
  const errno = control[descriptor(n, F_ERRNO)]!;
  const syscall = SYSCALLS[control[descriptor(n, F_SYSCALL)]!] ?? "";
  const [code, description] = getSystemErrorMap().get(errno) ?? ["UNKNOWN", `errno ${errno}`];
  // As Node words it: calls on a path name it, calls on a descriptor (write, close, fsync) do not.
  const onPath = syscall === "open" || syscall === "unlink" || syscall === "rename";
  return Object.assign(new Error(`${code}: ${description}, ${syscall}${onPath ? ` '${path}'` : ""}`), { errno, code, syscall }, onPath ? { path } : {});
}

function workerUrl(): URL {
  const beside = new URL("./write-thread-worker-node.js", import.meta.url);
  if (existsSync(fileURLToPath(beside))) return beside;
  // Running from the TypeScript sources (the `development` condition): the worker needs the build.
  const built = new URL("../dist/write-thread-worker-node.js", import.meta.url);
  if (existsSync(fileURLToPath(built))) return built;
  throw new UsageError("INVALID_ARGUMENT", "the write thread's script is missing: build @fmt/fs-adapters first (pnpm --filter @fmt/fs-adapters build)", {
    field: "writeThread", expected: fileURLToPath(built),
  });
}
