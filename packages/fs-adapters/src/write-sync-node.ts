/**
 * The file part of `FileSystemStore.put` on the calling thread (`io: "sync"`): the same steps and
 * errors as the thread-pool version in write-async-node.ts (links refused, parents created, a
 * temporary file written, flushed when durable, renamed over the target), without a thread-pool
 * round trip per system call (creating a 10 M-row carray writes 153 chunk files: about 900 of
 * them); and the in-place write of a key no reader follows yet (`put`'s `unreferenced`).
 *
 * @module
 */
import { closeSync, constants as fsConstants, fsyncSync, mkdirSync, openSync, renameSync, statSync, unlinkSync, writeSync } from "node:fs";
import * as nodePath from "node:path";
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
    throw writeFailure(error, key, file, "write the file");
  }
}

/**
 * Open flags of an in-place write: a new file, never an existing one (and so never a FIFO, a
 * device, a hard link's shared inode or a symbolic link's target). O_NOFOLLOW is absent on
 * Windows, where O_EXCL alone refuses an existing link.
 */
const IN_PLACE_FLAGS = fsConstants.O_WRONLY | fsConstants.O_CREAT | fsConstants.O_EXCL | (fsConstants.O_NOFOLLOW ?? 0);

/**
 * Writes `value` to `file` (the path of `key` under `root`) in place: a new file is created at the
 * name, or, when something stands there (a file, a link — never what it points to — or a FIFO),
 * that is removed and the file created then; it is written, and flushed when `durable`. For keys no reader follows yet (a chunk past the committed
 * length): a crash may leave part of the value, which nobody reads and the next put replaces.
 * Saves the temporary name, its creation and the rename of the atomic write (about a quarter of
 * the time of writing a chunk file). A failed write removes the file it created. If another
 * process creates the name again between the removal and the second creation, the atomic write is
 * used.
 *
 * @example
 * ```ts
 * writeFileInPlaceSync("/data/t.bcolz", "data/__9.blp", "/data/t.bcolz/data/__9.blp", bytes, false);
 * ```
 */
export function writeFileInPlaceSync(root: string, key: string, file: string, value: Uint8Array, durable: boolean): void {
  makeParentsSync(root, key, file);
  // The name is usually free (a new chunk): creating first and removing only what is found there
  // saves a removal that fails with ENOENT for every new file (a thrown error costs ~50 µs here,
  // 9 % of a create of 153 chunk files).
  let fd = createExclusivelySync(key, file);
  if (fd === undefined) {
    try {
      unlinkSync(file);
    } catch (error) {
      if (systemErrorCode(error) !== "ENOENT") throw writeFailure(error, key, file, "replace the file");
    }
    fd = createExclusivelySync(key, file);
    if (fd === undefined) {
      writeFileAtomicallySync(root, key, file, value, durable);
      return;
    }
  }
  try {
    let written = 0;
    while (written < value.length) written += writeSync(fd, value, written, value.length - written, written);
    if (durable) fsyncSync(fd);
    const opened = fd;
    fd = undefined;
    closeSync(opened);
  } catch (error) {
    // Only the file this call created is removed.
    for (const undo of [() => (fd === undefined ? undefined : closeSync(fd)), () => unlinkSync(file)]) {
      try {
        undo();
      } catch {
        // The write already failed; its error is the one to report.
      }
    }
    throw storageFailure(error, key, "write the file");
  }
}

/** A new file at `file`, open for writing; `undefined` when something stands at the name. */
function createExclusivelySync(key: string, file: string): number | undefined {
  try {
    return openSync(file, IN_PLACE_FLAGS, 0o666);
  } catch (error) {
    if (systemErrorCode(error) === "EEXIST") return undefined;
    throw writeFailure(error, key, file, "write the file");
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

/** The error to report for a failed write of `file`: ALREADY_EXISTS when a directory stands there. */
function writeFailure(error: unknown, key: string, file: string, operation: string): unknown {
  if (mayBeDirectoryInTheWay(error) && statSync(file, { throwIfNoEntry: false })?.isDirectory() === true) return directoryInTheWay(error, key);
  return storageFailure(error, key, operation);
}
