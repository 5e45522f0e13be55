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
import { parentPort } from "node:worker_threads";
import { BcolzError, serializeError } from "@fmt/errors";
import { FileSystemStore } from "@fmt/fs-adapters/node";
import { useNativeCrc32 } from "@fmt/header/node";
import { openCarray } from "./carray-open.js";
import type { HelperMessage, HelperReply } from "./node.js";
import type { HelperAnswer, HelperDataset } from "./read-helpers.js";
import type { CArray } from "./carray.js";

// Format-2 CRC-32s at native speed, as the `bcolz-ts` command and the conformance adapter set it up.
useNativeCrc32();

// A read's message holds the caller's SharedArrayBuffer: the memory stays mapped while any
// thread holds it, and this thread, idle between parts, would collect its garbage only after
// many reads (a loop of 80 MB reads into fresh buffers grew by 77 MB a read, to 1 GB, each read
// then touching fresh memory). A minor collection after each read lets it go. The collector is
// reached through a context made while --expose-gc is set, the flag turned off again at once.
setFlagsFromString("--expose-gc");
const collect = runInNewContext("gc") as (options: { type: "minor"; execution: "async" }) => void;
setFlagsFromString("--no-expose-gc");

/** What differs between the caller's view of the dataset and this thread's, or `undefined`. */
function unlike(seen: HelperDataset, mine: { length: number; chunklen: number; dtype: string; atomSize: number; formatVersion: 1 | 2 }): string | undefined {
  for (const field of ["length", "chunklen", "dtype", "atomSize", "formatVersion"] as const) {
    if (seen[field] !== mine[field]) return `${field}: ${String(mine[field])} here, ${String(seen[field])} for the caller`;
  }
  return undefined;
}

/**
 * Arrays opened for earlier tasks, by root, path, settings and the caller's handle (`opening`): a
 * task on the same handle uses the same opening (its metadata and superchunk indexes), as the
 * caller's handle keeps its own; a handle opened anew gets a new opening here. The most recent
 * ones are kept.
 */
const opened = new Map<string, CArray>();
const OPENED_KEPT = 16;

async function openFor(message: HelperMessage, fresh: boolean): Promise<CArray> {
  const { dataset } = message.task;
  const key = JSON.stringify([message.root, message.maxValueBytes, dataset.path, dataset.opening, dataset.verifyChecksums, dataset.maxReadBytes, dataset.maxChunksPerCall]);
  const kept = opened.get(key);
  if (kept !== undefined && !fresh) return kept;
  const store = new FileSystemStore(message.root, { maxValueBytes: message.maxValueBytes });
  const { verifyChecksums, maxReadBytes, maxChunksPerCall } = dataset;
  const made = await openCarray(store, dataset.path, { verifyChecksums, maxReadBytes, maxChunksPerCall });
  opened.delete(key);
  opened.set(key, made);
  if (opened.size > OPENED_KEPT) opened.delete(opened.keys().next().value!);
  return made;
}

/** How this thread's opening looks, for {@link unlike}. */
function viewOf(array: CArray): { length: number; chunklen: number; dtype: string; atomSize: number; formatVersion: 1 | 2 } {
  return { length: array.length, chunklen: array.chunklen, dtype: array.dtype.str, atomSize: array.atomSize, formatVersion: array.formatVersion };
}

async function work(array: CArray, message: HelperMessage): Promise<HelperAnswer> {
  const { task } = message;
  const differs = unlike(task.dataset, viewOf(array));
  if (differs !== undefined) return { unlike: differs };
  if (task.op === "sum") return array.partialSum(task.start, task.stop);
  await array.readPart(new Uint8Array(task.out, task.byteOffset, (task.stop - task.start) * task.dataset.atomSize), task.start, task.stop);
  return { rows: task.stop - task.start };
}

async function answer(message: HelperMessage): Promise<HelperAnswer> {
  let array: CArray;
  try {
    array = await openFor(message, false);
  } catch (error) {
    // The caller opened it: a file being replaced this moment, say. The caller does the part.
    return { unlike: `cannot open it here: ${error instanceof Error ? error.message : String(error)}` };
  }
  try {
    return await work(array, message);
  } catch (error) {
    // A kept opening may be out of date (the dataset was rewritten since): once more, afresh.
    if (!(error instanceof BcolzError)) throw error;
    return work(await openFor(message, true), message);
  }
}

const port = parentPort;
if (port !== null) {
  port.on("message", (message: HelperMessage) => {
    answer(message).then(
      (result) => port.postMessage({ id: message.id, answer: result } satisfies HelperReply),
      (error: unknown) => port.postMessage({ id: message.id, error: serializeError(error) } satisfies HelperReply),
    ).finally(() => {
      if (message.task.op === "read") collect({ type: "minor", execution: "async" });
    });
  });
}
