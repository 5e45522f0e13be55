/**
 * Body of a helper thread of `createReadHelpers` (`./node.ts`): opens the dataset a task names
 * (read-only, in a `FileSystemStore` of the caller's root), checks that it sees what the caller
 * sees, does the task with this package's own single-thread code and answers. Errors go back as
 * data (`serializeError`) and come back as the same class, code, path and field.
 *
 * @example
 * ```ts
 * new Worker(new URL("./read-helpers-worker-node.js", import.meta.url));
 * ```
 * @module
 */
/// <reference types="node" />
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { parentPort, workerData } from "node:worker_threads";
import { serializeError } from "@fmt/errors";
import { FileSystemStore } from "@fmt/fs-adapters/node";
import { useNativeCrc32 } from "@fmt/header/node";
import { openCarray } from "./carray-open.js";
import type { HelperMessage, HelperReply } from "./node.js";
import type { HelperAnswer, HelperDataset } from "./read-helpers.js";
import type { CArray } from "./carray.js";

// Format-2 CRC-32s at native speed, as the `bcolz-ts` command and the conformance adapter set it up.
useNativeCrc32();

/**
 * The collector, or `undefined`. A read's message holds the caller's `SharedArrayBuffer`, whose
 * memory stays mapped while any thread holds it; this thread, idle between parts, would collect
 * it only after many reads (a loop of 80 MB reads into fresh buffers grew 77 MB a read, to 1 GB,
 * each read then touching fresh memory), and V8 does not count shared memory towards a thread's
 * collections. So a read is followed by a full collection (a minor one leaves a buffer that was
 * promoted during the read: with 2,048-row chunks the loop grew to 3 GB). The collector is
 * reached through a context made while `--expose-gc` is set: a process-wide flag, so the helpers
 * of this process take turns under one lock, and it is set only when it is off, and turned off
 * again at once (a context or a worker made on another thread meanwhile gets `gc` too).
 */
function collector(lock: Int32Array): ((options: { type: "major"; execution: "async" }) => void) | undefined {
  while (Atomics.compareExchange(lock, 0, 0, 1) !== 0) Atomics.wait(lock, 0, 1, 10);
  try {
    if (runInNewContext("typeof gc") === "function") return runInNewContext("gc") as ReturnType<typeof collector>;
    setFlagsFromString("--expose-gc");
    try {
      return runInNewContext("gc") as ReturnType<typeof collector>;
    } finally {
      setFlagsFromString("--no-expose-gc");
    }
  } catch {
    return undefined; // reads still work; the caller's buffers go with this thread's own collections
  } finally {
    Atomics.store(lock, 0, 0);
    Atomics.notify(lock, 0);
  }
}

const collect = collector(new Int32Array((workerData as { gcLock: SharedArrayBuffer }).gcLock));

/** What a helper compares of its opening with the caller's. */
type View = Pick<HelperDataset, "length" | "chunklen" | "dtype" | "atomSize" | "formatVersion">;

/** What differs between the caller's view of the dataset and this thread's, or `undefined`. */
function unlike(seen: HelperDataset, mine: View): string | undefined {
  for (const field of ["length", "chunklen", "dtype", "atomSize", "formatVersion"] as const) {
    if (seen[field] !== mine[field]) return `${field}: ${String(mine[field])} here, ${String(seen[field])} for the caller`;
  }
  return undefined;
}

/**
 * Arrays opened for earlier tasks, by root, path, settings and the caller's handle (`opening`): a
 * task on the same handle uses the same opening (its metadata and superchunk indexes), as the
 * caller's handle keeps its own; a handle opened anew gets a new opening here. The 16 used last
 * are kept.
 */
const opened = new Map<string, CArray>();
const OPENED_KEPT = 16;

async function openFor(message: HelperMessage): Promise<CArray> {
  const { dataset } = message.task;
  const key = JSON.stringify([message.root, message.maxValueBytes, dataset.path, dataset.opening, dataset.verifyChecksums, dataset.maxReadBytes, dataset.maxChunksPerCall]);
  let array = opened.get(key);
  if (array === undefined) {
    const store = new FileSystemStore(message.root, { maxValueBytes: message.maxValueBytes });
    const { verifyChecksums, maxReadBytes, maxChunksPerCall } = dataset;
    array = await openCarray(store, dataset.path, { verifyChecksums, maxReadBytes, maxChunksPerCall });
  }
  opened.delete(key);
  opened.set(key, array);
  if (opened.size > OPENED_KEPT) opened.delete(opened.keys().next().value!);
  return array;
}

/** How this thread's opening looks, for {@link unlike}. */
function viewOf(array: CArray): View {
  return { length: array.length, chunklen: array.chunklen, dtype: array.dtype.str, atomSize: array.atomSize, formatVersion: array.formatVersion };
}

async function answer(message: HelperMessage): Promise<HelperAnswer> {
  const { task } = message;
  let array: CArray;
  try {
    array = await openFor(message);
  } catch (error) {
    // The caller opened it: a file being replaced this moment, say. The caller does the part.
    return { unlike: `cannot open it here: ${error instanceof Error ? error.message : String(error)}` };
  }
  // A kept opening goes stale as the caller's handle does (a rewrite in place fails both alike).
  const differs = unlike(task.dataset, viewOf(array));
  if (differs !== undefined) return { unlike: differs };
  if (task.op === "sum") return array.partialSum(task.start, task.stop);
  await array.readPart(new Uint8Array(task.out, task.byteOffset, (task.stop - task.start) * task.dataset.atomSize), task.start, task.stop);
  return { rows: task.stop - task.start };
}

const port = parentPort;
if (port !== null) {
  // A message that cannot be read here cannot be answered: the thread ends, and the caller does
  // its parts (they are rejected on the exit).
  port.on("messageerror", () => process.exit(1));
  port.on("message", (message: HelperMessage) => {
    answer(message).then(
      (result) => port.postMessage({ id: message.id, answer: result } satisfies HelperReply),
      (error: unknown) => port.postMessage({ id: message.id, error: serializeError(error) } satisfies HelperReply),
    ).finally(() => {
      if (message.task.op === "read") collect?.({ type: "major", execution: "async" });
    });
  });
}
