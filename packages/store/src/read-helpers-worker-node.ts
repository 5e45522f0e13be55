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
import { parentPort } from "node:worker_threads";
import { serializeError } from "@fmt/errors";
import { FileSystemStore } from "@fmt/fs-adapters/node";
import { useNativeCrc32 } from "@fmt/header/node";
import { openCarray } from "./carray-open.js";
import type { HelperMessage, HelperReply } from "./node.js";
import type { HelperAnswer, HelperDataset } from "./read-helpers.js";
import type { CArray } from "./carray.js";

// Format-2 CRC-32s at native speed, as the `bcolz-ts` command and the conformance adapter set it up.
useNativeCrc32();

/** What differs between the caller's view of the dataset and this thread's, or `undefined`. */
function unlike(seen: HelperDataset, mine: { length: number; chunklen: number; dtype: string; atomSize: number; formatVersion: 1 | 2 }): string | undefined {
  for (const field of ["length", "chunklen", "dtype", "atomSize", "formatVersion"] as const) {
    if (seen[field] !== mine[field]) return `${field}: ${String(mine[field])} here, ${String(seen[field])} for the caller`;
  }
  return undefined;
}

/**
 * Arrays opened for earlier tasks, by root, path and checksum setting: a task on the same array
 * uses the same opening (its metadata and superchunk indexes) while it still sees what the caller
 * sees; otherwise the array is opened again once.
 */
const opened = new Map<string, CArray>();
const OPENED_KEPT = 16;

async function openFor(message: HelperMessage, fresh: boolean): Promise<CArray> {
  const { task } = message;
  const key = JSON.stringify([message.root, message.maxValueBytes, task.dataset.path, task.dataset.verifyChecksums]);
  const kept = opened.get(key);
  if (kept !== undefined && !fresh) return kept;
  const store = new FileSystemStore(message.root, { maxValueBytes: message.maxValueBytes });
  const made = await openCarray(store, task.dataset.path, { verifyChecksums: task.dataset.verifyChecksums });
  opened.delete(key);
  opened.set(key, made);
  if (opened.size > OPENED_KEPT) opened.delete(opened.keys().next().value!);
  return made;
}

/** How this thread's opening looks, for {@link unlike}. */
function viewOf(array: CArray): { length: number; chunklen: number; dtype: string; atomSize: number; formatVersion: 1 | 2 } {
  return { length: array.length, chunklen: array.chunklen, dtype: array.dtype.str, atomSize: array.atomSize, formatVersion: array.formatVersion };
}

async function answer(message: HelperMessage): Promise<HelperAnswer> {
  const { task } = message;
  let made = await openFor(message, false);
  if (unlike(task.dataset, viewOf(made)) !== undefined) made = await openFor(message, true);
  const differs = unlike(task.dataset, viewOf(made));
  if (differs !== undefined) return { unlike: differs };
  if (task.op === "sum") return made.partialSum(task.start, task.stop);
  await made.readPart(new Uint8Array(task.out, task.byteOffset, (task.stop - task.start) * task.dataset.atomSize), task.start, task.stop);
  return { rows: task.stop - task.start };
}

const port = parentPort;
if (port !== null) {
  port.on("message", (message: HelperMessage) => {
    answer(message).then(
      (result) => port.postMessage({ id: message.id, answer: result } satisfies HelperReply),
      (error: unknown) => port.postMessage({ id: message.id, error: serializeError(error) } satisfies HelperReply),
    );
  });
}
