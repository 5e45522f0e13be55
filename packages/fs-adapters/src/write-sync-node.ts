/**
 * The file part of `FileSystemStore.put` on the calling thread (`io: "sync"`): the same steps and
 * errors as the thread-pool version in node.ts (links refused, parents created, a temporary file
 * written, flushed when durable, renamed over the target), without a thread-pool round trip per
 * system call (creating a 10 M-row carray writes 153 chunk files: about 900 of them); and the
 * in-place write of a key no reader follows yet (`put`'s `unreferenced`).
 *
 * @module
 */
import { closeSync, constants as fsConstants, fsyncSync, mkdirSync, openSync, renameSync, statSync, unlinkSync, writeSync } from "node:fs";
import * as nodePath from "node:path";
import { UsageError } from "@fmt/errors";
import { directoryFailure, directoryInTheWay, mayBeDirectoryInTheWay, refuseLinksBetweenSync, storageFailure, systemErrorCode, temporaryPathFor } from "./file-safety-node.js";

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
  makeParentsSync(root, key, file);
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

/**
 * Open flags of an in-place write: create or truncate, and never through a symbolic link at the
 * file's own name (ELOOP), which the atomic write's rename would have replaced instead.
 */
const IN_PLACE_FLAGS = fsConstants.O_WRONLY | fsConstants.O_CREAT | fsConstants.O_TRUNC | fsConstants.O_NOFOLLOW;

/**
 * Writes `value` to `file` (the path of `key` under `root`) in place: created or truncated, then
 * written, flushed when `durable`. For keys no reader follows yet (a chunk past the committed
 * length): a crash may leave part of the value, which nobody reads and the next put replaces.
 * Saves the temporary name, its creation and the rename of the atomic write (about a quarter of
 * the time of writing a chunk file). A failed write removes the file it created or truncated.
 *
 * @example
 * ```ts
 * writeFileInPlaceSync("/data/t.bcolz", "data/__9.blp", "/data/t.bcolz/data/__9.blp", bytes, false);
 * ```
 */
export function writeFileInPlaceSync(root: string, key: string, file: string, value: Uint8Array, durable: boolean): void {
  makeParentsSync(root, key, file);
  let fd: number | undefined;
  try {
    fd = openSync(file, IN_PLACE_FLAGS, 0o666);
    let written = 0;
    while (written < value.length) written += writeSync(fd, value, written, value.length - written, written);
    if (durable) fsyncSync(fd);
    const opened = fd;
    fd = undefined;
    closeSync(opened);
  } catch (error) {
    if (fd !== undefined) {
      // Only a file this call opened is removed: never what stood there when the open failed.
      for (const undo of [() => closeSync(fd!), () => unlinkSync(file)]) {
        try {
          undo();
        } catch {
          // The write already failed; its error is the one to report.
        }
      }
    }
    if (systemErrorCode(error) === "ELOOP") {
      throw new UsageError("UNSAFE_NAME", "refusing to write through a symbolic link inside the store root", {
        path: key, field: "key", expected: "a regular file or nothing at the key's path", actual: `${key} is a symbolic link`,
      });
    }
    if (mayBeDirectoryInTheWay(error) && statSync(file, { throwIfNoEntry: false })?.isDirectory() === true) throw directoryInTheWay(error, key);
    throw storageFailure(error, key, "write the file");
  }
}

/** Refuses links between `root` and the file of `key`, and creates its missing parents. */
function makeParentsSync(root: string, key: string, file: string): void {
  const parentsExist = refuseLinksBetweenSync(root, key, false);
  // A top-level key has no parent to check, but the root itself may not exist yet.
  if (!parentsExist || !key.includes("/")) {
    try {
      mkdirSync(nodePath.dirname(file), { recursive: true });
    } catch (error) {
      throw directoryFailure(error, key);
    }
  }
}
