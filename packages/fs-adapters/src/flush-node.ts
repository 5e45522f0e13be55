/**
 * Flushing to disk for {@link FileSystemStore}: `fsync` of a stored file by name, `fsync` of a
 * directory (which makes a rename into it durable), and how many files `FileSystemStore.sync`
 * flushes at once.
 *
 * Apart from the writes because a flush is not always part of one: a non-durable `put` leaves
 * it to a later `sync`, which reopens each file by name long after the write closed it.
 *
 * @example
 * ```ts
 * await syncFile("/data/t.bcolz/data/__0.blp");
 * await syncDirectory("/data/t.bcolz/data");
 * ```
 * @module
 */
import { constants as fsConstants } from "node:fs";
import { open } from "node:fs/promises";
import type { FileHandle } from "node:fs/promises";
import { isMissing, storageFailure, systemErrorCode } from "./file-safety-node.js";

// A pending file is reopened by name long after its write: whatever stands there now is opened
// without waiting (a FIFO's open for reading waits for a writer, holding a thread of libuv's pool
// and the sync forever) and without following a link (which would flush a file that is not the
// store's). Both flags are 0 where the platform lacks them.
const FLUSH_FILE_FLAGS = fsConstants.O_RDONLY | (fsConstants.O_NONBLOCK ?? 0) | (fsConstants.O_NOFOLLOW ?? 0);
const FLUSH_DIRECTORY_FLAGS = fsConstants.O_RDONLY | (fsConstants.O_NONBLOCK ?? 0) | (fsConstants.O_DIRECTORY ?? 0);

/**
 * fsyncs in flight at once during sync(): enough to keep a disk queue busy without taking every
 * thread of libuv's pool (4 by default) away from other I/O.
 *
 * @example
 * ```ts
 * await Promise.all(Array.from({ length: Math.min(SYNC_PARALLELISM, files.length) }, worker));
 * ```
 */
export const SYNC_PARALLELISM = 3;

/**
 * Flushes a file's data (and the metadata needed to read it back) through any descriptor of it.
 * A file deleted meanwhile is skipped, and so is anything other than a regular file standing at
 * its name now (a FIFO, a directory, a link, a device): none of those is the store's file.
 *
 * @example
 * ```ts
 * await syncFile("/data/t.bcolz/data/__0.blp");
 * ```
 */
export async function syncFile(file: string): Promise<void> {
  let handle: FileHandle;
  try {
    handle = await open(file, FLUSH_FILE_FLAGS);
  } catch (error) {
    // Deleted, or replaced by a link (ELOOP under O_NOFOLLOW; EMLINK on FreeBSD) meanwhile:
    // nothing of ours to flush.
    if (isMissing(error) || systemErrorCode(error) === "ELOOP" || systemErrorCode(error) === "EMLINK") return;
    throw storageFailure(error, file, "open the file to flush it");
  }
  try {
    const info = await handle.stat().catch((error: unknown) => {
      throw storageFailure(error, file, "inspect the file to flush it");
    });
    if (!info.isFile()) return;
    await handle.datasync().catch((error: unknown) => {
      throw storageFailure(error, file, "flush the file");
    });
  } finally {
    await handle.close();
  }
}

/**
 * Makes the rename itself durable. Not every platform can open a directory (Windows cannot),
 * and durability of the directory entry is a best effort there.
 *
 * @example
 * ```ts
 * await syncDirectory(nodePath.dirname(file)); // after renaming the new file over `file`
 * ```
 */
export async function syncDirectory(dir: string): Promise<void> {
  let handle: FileHandle | undefined;
  try {
    handle = await open(dir, FLUSH_DIRECTORY_FLAGS);
    await handle.sync();
  } catch {
    // best effort, see above
  } finally {
    await handle?.close().catch(() => undefined);
  }
}
