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
 * await syncFile("/data/t.bcolz/data/__0.blp", "data/__0.blp");
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
 * (Links between the root and the file's directory are the caller's check: `O_NOFOLLOW` covers
 * the last name only.) `key` names the file in errors.
 *
 * @example
 * ```ts
 * await syncFile("/data/t.bcolz/data/__0.blp", "data/__0.blp");
 * ```
 */
export async function syncFile(file: string, key: string): Promise<void> {
  let handle: FileHandle;
  try {
    handle = await open(file, FLUSH_FILE_FLAGS);
  } catch (error) {
    // Deleted meanwhile, or replaced by a link (ELOOP under O_NOFOLLOW; EMLINK on FreeBSD):
    // nothing of ours to flush. A loop of links in a parent directory (ELOOP too) is skipped
    // alike: nothing the store wrote can be reached through one.
    if (isMissing(error) || systemErrorCode(error) === "ELOOP" || systemErrorCode(error) === "EMLINK") return;
    throw storageFailure(error, key, "open the file to flush it");
  }
  try {
    const info = await handle.stat().catch((error: unknown) => {
      throw storageFailure(error, key, "inspect the file to flush it");
    });
    if (info.isFile()) {
      await handle.datasync().catch((error: unknown) => {
        throw storageFailure(error, key, "flush the file");
      });
    }
  } catch (error) {
    // The first failure is the one to report, not a failed close after it.
    await handle.close().catch(() => undefined);
    throw error;
  }
  await handle.close().catch((error: unknown) => {
    throw storageFailure(error, key, "close the file after flushing it");
  });
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
