/**
 * The file parts of `FileSystemStore.put` and `writeAt` through libuv's thread pool (`io:
 * "async"`): for a put, links refused, parents created, a temporary file written, flushed when
 * durable, renamed over the target; for a positional write, the file opened, checked and written
 * in place. write-sync-node.ts does the same steps on the calling thread (the default); the
 * directory flush that makes the rename durable is the store's (flush-node.ts).
 *
 * Apart from the store because it needs nothing of it but the root, like its synchronous
 * counterpart, whose signature it shares.
 *
 * @example
 * ```ts
 * await writeFileAtomically("/data/t.bcolz", "meta/sizes", "/data/t.bcolz/meta/sizes", bytes, true);
 * ```
 * @module
 */
import { mkdir, open, rename, stat, unlink } from "node:fs/promises";
import type { FileHandle } from "node:fs/promises";
import * as nodePath from "node:path";
import { StorageError, UsageError } from "@fmt/errors";
import { directoryFailure, directoryInTheWay, mayBeDirectoryInTheWay, refuseLinksBetween, storageFailure, systemErrorCode, temporaryPathFor } from "./file-safety-node.js";
import { WRITE_AT_FLAGS, WriteAtFailure } from "./in-place-file-node.js";
import { writeAtError } from "./write-sync-node.js";

/**
 * The file part of `FileSystemStore.put` through libuv's thread pool (`io: "async"`): writes
 * `value` to `file` (the path of `key` under `root`) atomically. The directory itself is not
 * flushed here (the store does that, or defers it to its `sync`).
 *
 * @example
 * ```ts
 * await writeFileAtomically(store.root, "meta/sizes", store.pathOf("meta/sizes"), bytes, store.fsync);
 * ```
 */
export async function writeFileAtomically(root: string, key: string, file: string, value: Uint8Array, durable: boolean): Promise<void> {
  const dir = nodePath.dirname(file);
  const parentsExist = await refuseLinksBetween(root, key, false);
  // A top-level key has no parent to check, but the root itself may not exist yet.
  if (!parentsExist || !key.includes("/")) {
    try {
      await mkdir(dir, { recursive: true });
    } catch (error) {
      throw directoryFailure(error, key);
    }
  }
  const temp = temporaryPathFor(file);
  let handle: FileHandle | undefined;
  try {
    handle = await open(temp, "wx");
    let written = 0;
    while (written < value.length) {
      const { bytesWritten } = await handle.write(value, written, value.length - written, written);
      written += bytesWritten;
    }
    if (durable) await handle.sync();
    await handle.close();
    handle = undefined;
    await rename(temp, file);
  } catch (error) {
    if (handle !== undefined) await handle.close().catch(() => undefined);
    await unlink(temp).catch(() => undefined);
    if (mayBeDirectoryInTheWay(error) && (await stat(file).catch(() => undefined))?.isDirectory() === true) throw directoryInTheWay(error, key);
    throw storageFailure(error, key, "write the file");
  }
}

/**
 * Writes `bytes` into the existing file of `key` (at `file`) at `offset` through libuv's thread
 * pool, flushed when `durable`: the steps and errors of `writeIntoFileSync` (`writeAtError`). The
 * store has refused links on the way first.
 *
 * @example
 * ```ts
 * await writeIntoFile("data/__1__.bin", store.pathOf("data/__1__.bin"), 0, header, false);
 * ```
 */
export async function writeIntoFile(key: string, file: string, offset: number, bytes: Uint8Array, durable: boolean): Promise<void> {
  let handle: FileHandle;
  try {
    handle = await open(file, WRITE_AT_FLAGS);
  } catch (error) {
    throw writeAtError(new WriteAtFailure(systemErrorCode(error) === "ENXIO" ? "kind" : "open", error), key, file, offset);
  }
  try {
    const info = await handle.stat();
    if (!info.isFile()) throw writeAtError(new WriteAtFailure("kind"), key, file, offset);
    if (!Number.isSafeInteger(offset) || offset < 0 || offset > info.size) throw writeAtError(new WriteAtFailure("range", undefined, info.size), key, file, offset);
    let written = 0;
    while (written < bytes.length) {
      const { bytesWritten } = await handle.write(bytes, written, bytes.length - written, offset + written);
      written += bytesWritten;
    }
    if (durable) await handle.datasync();
  } catch (error) {
    await handle.close().catch(() => undefined);
    if (error instanceof UsageError || error instanceof StorageError) throw error;
    throw writeAtError(new WriteAtFailure("write", error), key, file, offset);
  }
  try {
    // A file system may report a failed write only at the close (NFS, a quota met by delayed
    // allocation): the bytes are then not known to be stored, as on the calling thread.
    await handle.close();
  } catch (error) {
    throw writeAtError(new WriteAtFailure("write", error), key, file, offset);
  }
}
