/**
 * The file part of `FileSystemStore.put` on the calling thread (`io: "sync"`): the same steps and
 * errors as the thread-pool version in write-async-node.ts (links refused, parents created, a
 * temporary file written, flushed when durable, renamed over the target), without a thread-pool
 * round trip per system call (creating a 10 M-row carray writes 153 chunk files: about 900 of
 * them); the in-place write of a key no reader follows yet (`put`'s `unreferenced`); `writeAt`;
 * and `delete`.
 *
 * @module
 */
import { lstatSync, mkdirSync, statSync, unlinkSync } from "node:fs";
import * as nodePath from "node:path";
import { FormatError, StorageError, UsageError } from "@fmt/errors";
import { directoryFailure, directoryInTheWay, isMissing, mayBeDirectoryInTheWay, refuseLinksBetweenSync, storageFailure, systemErrorCode, temporaryPathFor } from "./file-safety-node.js";
import { InPlaceStepFailure, WriteAtFailure, writeAtSync, writeNewFileSync, writeThroughTemporarySync } from "./in-place-file-node.js";
import { fileKind } from "./read-sync-node.js";

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
  try {
    writeThroughTemporarySync(file, temporaryPathFor(file), value, durable);
  } catch (error) {
    throw error instanceof InPlaceStepFailure ? inPlaceFailure(error, key, file) : error;
  }
}

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
  writeNewFileAtKeySync(root, key, file, value, durable);
}

// writeFileInPlaceSync once the parents are made: the new file, or the atomic write when another
// process takes the name; failures as the store's typed errors.
function writeNewFileAtKeySync(root: string, key: string, file: string, value: Uint8Array, durable: boolean): void {
  let outcome: "written" | "taken";
  try {
    outcome = writeNewFileSync(file, value, durable);
  } catch (error) {
    throw error instanceof InPlaceStepFailure ? inPlaceFailure(error, key, file) : error;
  }
  if (outcome === "taken") writeFileAtomicallySync(root, key, file, value, durable);
}

/**
 * The store's typed error for a failed step of an in-place write of `key` (at `file`), on this
 * thread or the write thread: ALREADY_EXISTS when a directory stands at the name, otherwise as
 * {@link storageFailure}. @internal
 *
 * @example
 * ```ts
 * throw inPlaceFailure(new InPlaceStepFailure("write", error), "data/__0.blp", file);
 * ```
 */
export function inPlaceFailure(failure: InPlaceStepFailure, key: string, file: string): unknown {
  if (failure.step === "write") return storageFailure(failure.error, key, "write the file");
  return writeFailure(failure.error, key, file, failure.step === "create" ? "write the file" : "replace the file");
}

/**
 * Writes `value` into the existing file of `key` (at `file`) at `offset`, flushed when `durable`,
 * with the same errors as the thread-pool version of `FileSystemStore.writeAt`.
 *
 * @example
 * ```ts
 * writeIntoFileSync("data/__1__.bin", "/data/t.bcolz/data/__1__.bin", 0, header, false);
 * ```
 */
export function writeIntoFileSync(key: string, file: string, offset: number, value: Uint8Array, durable: boolean): void {
  try {
    writeAtSync(file, offset, value, durable);
  } catch (error) {
    throw error instanceof WriteAtFailure ? writeAtError(error, key, file, offset) : error;
  }
}

/**
 * The store's typed error for a failed positional write of `key` (at `file`) at `offset`, on this
 * thread or the write thread. @internal
 *
 * @example
 * ```ts
 * throw writeAtError(new WriteAtFailure("range", undefined, 100), "data/__1__.bin", file, 120);
 * ```
 */
export function writeAtError(failure: WriteAtFailure, key: string, file: string, offset: number): unknown {
  switch (failure.step) {
    case "open":
      if (isMissing(failure.error)) return new FormatError("MISSING_FILE", "writeAt needs an existing file", { path: key, field: "file" });
      return storageFailure(failure.error, key, "open the file for writing");
    case "kind": {
      // A FIFO without a reader refuses the open (ENXIO) before it can be looked at through it.
      const info = lstatSync(file, { throwIfNoEntry: false });
      return new StorageError("IO_ERROR", "the key names something other than a regular file", { path: key, field: "key", expected: "a regular file", actual: info === undefined ? "not a regular file" : fileKind(info) });
    }
    case "range":
      return new UsageError("OUT_OF_RANGE", "writeAt offset must lie within the file", { path: key, field: "offset", expected: `0..${failure.size}`, actual: offset });
    case "write":
      return storageFailure(failure.error, key, "write into the file");
  }
}

/**
 * Refuses links between `root` and the file of `key`, and creates its missing parents; with
 * `beforeCreating`, that runs first when a parent is missing, and the parents are checked again
 * after it (the write thread's queued files written first, one of which may stand there). @internal
 *
 * @example
 * ```ts
 * makeParentsSync("/data/t.bcolz", "data/__9.blp", "/data/t.bcolz/data/__9.blp");
 * ```
 */
export function makeParentsSync(root: string, key: string, file: string, beforeCreating?: () => void): void {
  let parentsExist = refuseLinksBetweenSync(root, key, false);
  if (!parentsExist && beforeCreating !== undefined) {
    beforeCreating();
    parentsExist = refuseLinksBetweenSync(root, key, false);
  }
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

/**
 * `FileSystemStore.delete` on the calling thread, the same rules: a missing parent (or one that
 * is a file), a missing file or a directory at the key is nothing to delete; a link between the
 * root and the key is `UsageError` `UNSAFE_NAME`; a link at the key loses the link only.
 *
 * @example
 * ```ts
 * deleteFileSync("/data/t.bcolz", "data/__3.blp", "/data/t.bcolz/data/__3.blp");
 * ```
 */
export function deleteFileSync(root: string, key: string, file: string): void {
  if (!refuseLinksBetweenSync(root, key, false)) return;
  try {
    unlinkSync(file);
  } catch (error) {
    if (isMissing(error)) return;
    // macOS reports EPERM for unlink on a directory; a directory is not a key.
    if (systemErrorCode(error) === "EPERM" && isDirectorySync(file)) return;
    throw storageFailure(error, key, "delete the file");
  }
}

function isDirectorySync(file: string): boolean {
  try {
    return statSync(file, { throwIfNoEntry: false })?.isDirectory() === true;
  } catch {
    return false;
  }
}
