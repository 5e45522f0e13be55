/**
 * The file part of `FileSystemStore.put` on the calling thread (`io: "sync"`): the same steps and
 * errors as the thread-pool version in node.ts (links refused, parents created, a temporary file
 * written, flushed when durable, renamed over the target), without a thread-pool round trip per
 * system call (creating a 10 M-row carray writes 153 chunk files: about 900 of them).
 *
 * @module
 */
import { closeSync, fsyncSync, mkdirSync, openSync, renameSync, statSync, unlinkSync, writeSync } from "node:fs";
import * as nodePath from "node:path";
import { directoryFailure, directoryInTheWay, mayBeDirectoryInTheWay, refuseLinksBetweenSync, storageFailure, temporaryPathFor } from "./file-safety-node.js";

/**
 * Writes `value` to `file` (the path of `key` under `root`) atomically: a temporary file in the
 * same directory, flushed when `durable`, then renamed over the target. The directory itself is
 * not flushed here (the store does that, or defers it to its `sync`).
 *
 * @example
 * ```ts
 * writeFileAtomicallySync("/data/t.bcolz", "meta/sizes", "/data/t.bcolz/meta/sizes", bytes, true);
 * ```
 */
export function writeFileAtomicallySync(root: string, key: string, file: string, value: Uint8Array, durable: boolean): void {
  const dir = nodePath.dirname(file);
  const parentsExist = refuseLinksBetweenSync(root, key, false);
  // A top-level key has no parent to check, but the root itself may not exist yet.
  if (!parentsExist || !key.includes("/")) {
    try {
      mkdirSync(dir, { recursive: true });
    } catch (error) {
      throw directoryFailure(error, key);
    }
  }
  const temp = temporaryPathFor(file);
  let fd: number | undefined;
  try {
    fd = openSync(temp, "wx");
    let written = 0;
    while (written < value.length) written += writeSync(fd, value, written, value.length - written, written);
    if (durable) fsyncSync(fd);
    closeSync(fd);
    fd = undefined;
    renameSync(temp, file);
  } catch (error) {
    if (fd !== undefined) {
      try {
        closeSync(fd);
      } catch {
        // The write already failed; its error is the one to report.
      }
    }
    try {
      unlinkSync(temp);
    } catch {
      // Nothing to remove, or nothing more to do about it.
    }
    if (mayBeDirectoryInTheWay(error) && statSync(file, { throwIfNoEntry: false })?.isDirectory() === true) throw directoryInTheWay(error, key);
    throw storageFailure(error, key, "write the file");
  }
}
