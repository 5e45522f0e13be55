/**
 * Node-only part of `@fmt/store`: {@link createReadHelpers}, helper threads for whole-array
 * reads (the `helpers` option of `openCarray`, `openCtable` and `open`). Each helper is a worker
 * thread that opens the same array itself (a `FileSystemStore` of the same root) and reads and
 * decodes its own chunks, so that a `sum` or a read into shared memory uses two cores without
 * moving a chunk between threads. The browser-safe entry `@fmt/store` never imports this file.
 *
 * @example
 * ```ts
 * import { openCarray } from "@fmt/store";
 * import { createReadHelpers } from "@fmt/store/node";
 * import { FileSystemStore } from "@fmt/fs-adapters/node";
 *
 * const helpers = createReadHelpers({ threads: 1 });
 * try {
 *   const a = await openCarray(new FileSystemStore("/data/prices.bcolz"), { helpers });
 *   console.log(await a.sum());
 * } finally {
 *   await helpers.close();
 * }
 * ```
 * @module
 */
/// <reference types="node" />
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import { reviveError, UsageError } from "@fmt/errors";
import type { SerializedError } from "@fmt/errors";
import type { ReadableStore } from "@fmt/fs-adapters";
import { FileSystemStore } from "@fmt/fs-adapters/node";
import { MIN_HELPED_CHUNKS } from "./read-helpers.js";
import type { HelperAnswer, HelperTask, ReadHelpers } from "./read-helpers.js";

export type { HelperAnswer, HelperDataset, HelperTask, ReadHelpers } from "./read-helpers.js";

/**
 * Options of {@link createReadHelpers}.
 *
 * @example
 * ```ts
 * const options: ReadHelpersOptions = { threads: 1 };
 * ```
 */
export interface ReadHelpersOptions {
  /**
   * Helper threads, 1 to 64 (default 1). Each keeps, while it lives, up to 16 openings of arrays
   * and the input buffers and WebAssembly instances of its own reads (tens of MiB).
   */
  threads?: number;
  /** Calls over fewer chunks than this run on the calling thread alone (default 8, at least 1). */
  minChunks?: number;
}

/**
 * What a helper thread is sent: the store's root and settings, and the task. @internal
 *
 * @example
 * ```ts
 * const message: HelperMessage = { id: 1, root: "/data/prices.bcolz", maxValueBytes: 1 << 30, task };
 * ```
 */
export interface HelperMessage {
  id: number;
  root: string;
  maxValueBytes: number;
  task: HelperTask;
}

/**
 * A helper thread's reply. @internal
 *
 * @example
 * ```ts
 * const reply: HelperReply = { id: 1, answer: { rows: 65536 } };
 * ```
 */
export type HelperReply = { id: number; answer: HelperAnswer } | { id: number; error: SerializedError };

function workerUrl(): URL {
  const beside = new URL("./read-helpers-worker-node.js", import.meta.url);
  if (existsSync(fileURLToPath(beside))) return beside;
  // Running from the TypeScript sources (the `development` condition): helpers need the build.
  const built = new URL("../dist/read-helpers-worker-node.js", import.meta.url);
  if (existsSync(fileURLToPath(built))) return built;
  throw new UsageError("INVALID_ARGUMENT", "the helper script is missing: build @fmt/store first (pnpm --filter @fmt/store build)", {
    field: "helpers.worker", expected: fileURLToPath(built),
  });
}

/** One lock for the helpers of this process, around the `--expose-gc` switch of their start (see the worker). */
const GC_SWITCH_LOCK = new SharedArrayBuffer(4);

interface HelperThread {
  worker: Worker;
  pending: Map<number, { resolve: (answer: HelperAnswer) => void; reject: (error: Error) => void }>;
  /** Why the thread stopped or is stopping; it takes no more parts then. */
  failure: Error | undefined;
}

/**
 * Starts helper threads for whole-array reads (see {@link ReadHelpers}). Each runs a full
 * collection after each read, to let go of the caller's `SharedArrayBuffer`; for that, as it
 * starts, it switches V8's `--expose-gc` on and off again (process-wide, for a moment, unless it
 * is on already: a context or worker made meanwhile on another thread gets a `gc` function). They reach
 * `FileSystemStore`s (the class itself, not a subclass, whose keys may mean other files), open
 * the dataset read-only with the caller's `verifyChecksums`, check that they see the same length,
 * chunk length, dtype and format version as the caller, and do their part. Idle helpers do not
 * keep the process alive; `close` stops them.
 *
 * @throws UsageError INVALID_ARGUMENT for a thread count outside 1..64, a `minChunks` below 1, or when the helper script is missing.
 * @example
 * ```ts
 * const helpers = createReadHelpers({ threads: 1 });
 * const a = await openCarray(new FileSystemStore("/data/prices.bcolz"), { helpers });
 * const values = new Float64Array(new SharedArrayBuffer(a.length * 8));
 * await a.readInto(values); // the helper reads and decodes the second half of the chunks
 * await helpers.close();
 * ```
 */
export function createReadHelpers(options: ReadHelpersOptions = {}): ReadHelpers {
  const threads = options.threads ?? 1;
  if (!Number.isSafeInteger(threads) || threads < 1 || threads > 64) {
    throw new UsageError("INVALID_ARGUMENT", "threads must be an integer in 1..64", { field: "threads", expected: "1..64", actual: threads });
  }
  const minChunks = options.minChunks ?? MIN_HELPED_CHUNKS;
  if (!Number.isSafeInteger(minChunks) || minChunks < 1) {
    throw new UsageError("INVALID_ARGUMENT", "minChunks must be a positive integer", { field: "minChunks", expected: ">= 1", actual: minChunks });
  }
  const url = workerUrl();
  const helpers: HelperThread[] = [];
  let next = 0;
  let ids = 0;
  let closed = false;
  for (let i = 0; i < threads; i++) {
    // No flags of this process: a test runner's `--conditions development` would send the
    // helper to the TypeScript sources.
    const helper: HelperThread = { worker: new Worker(url, { execArgv: [], workerData: { gcLock: GC_SWITCH_LOCK } }), pending: new Map(), failure: undefined };
    // Parts are rejected only once the thread has exited: a part may be writing into the caller's
    // shared memory until then, and the caller redoes a rejected part at once.
    const exited = (code: number): void => {
      helper.failure ??= new Error(`read helper exited (code ${code})`);
      for (const waiting of helper.pending.values()) waiting.reject(helper.failure);
      helper.pending.clear();
    };
    helper.worker.on("message", (reply: HelperReply) => {
      const waiting = helper.pending.get(reply.id);
      if (waiting === undefined) return;
      helper.pending.delete(reply.id);
      if (helper.pending.size === 0) helper.worker.unref();
      if ("answer" in reply) waiting.resolve(reply.answer);
      else waiting.reject(reviveError(reply.error));
    });
    helper.worker.on("error", (error) => {
      helper.failure ??= error;
    });
    // A reply that cannot be read here names no part: the thread is stopped, and its exit
    // rejects its parts (the caller does them).
    helper.worker.on("messageerror", (error) => {
      helper.failure ??= error;
      void helper.worker.terminate();
    });
    helper.worker.on("exit", exited);
    // After the listeners: adding a "message" listener refs the worker again.
    helper.worker.unref();
    helpers.push(helper);
  }

  const reaches = (store: ReadableStore): boolean => store instanceof FileSystemStore && Object.getPrototypeOf(store) === FileSystemStore.prototype;

  return {
    threads,
    minChunks,
    reaches,
    run(store, task) {
      if (closed) return Promise.reject(new Error("the read helpers are closed"));
      if (!reaches(store)) return Promise.reject(new Error("the read helpers cannot open datasets of this store"));
      const fs = store as FileSystemStore;
      // Parts of one call go to different threads in turn (a thread takes its messages in
      // order); a thread that has stopped takes none (the caller does its parts).
      let helper: HelperThread | undefined;
      for (let tried = 0; tried < helpers.length && helper === undefined; tried++) {
        const candidate = helpers[next++ % helpers.length]!;
        if (candidate.failure === undefined) helper = candidate;
      }
      if (helper === undefined) return Promise.reject(helpers[0]!.failure ?? new Error("no read helper is running"));
      const chosen = helper;
      return new Promise<HelperAnswer>((resolve, reject) => {
        const id = ++ids;
        const message: HelperMessage = { id, root: fs.root, maxValueBytes: fs.maxValueBytes, task };
        if (chosen.pending.size === 0) chosen.worker.ref(); // an answer is awaited: keep the process up
        chosen.pending.set(id, { resolve, reject });
        try {
          chosen.worker.postMessage(message);
        } catch (error) {
          chosen.pending.delete(id);
          if (chosen.pending.size === 0) chosen.worker.unref();
          reject(error instanceof Error ? error : new Error(String(error)));
        }
      });
    },
    async close() {
      closed = true;
      // Parts still running are rejected by the exit, once their thread has stopped.
      await Promise.all(helpers.map(async (helper) => {
        helper.failure ??= new Error("the read helpers were closed");
        await helper.worker.terminate();
      }));
    },
  };
}
