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
import { open } from "node:fs/promises";
import type { FileHandle } from "node:fs/promises";
import { isMissing, storageFailure } from "./file-safety-node.js";

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
 * A file deleted or replaced meanwhile is skipped.
 *
 * @example
 * ```ts
 * await syncFile("/data/t.bcolz/data/__0.blp");
 * ```
 */
export async function syncFile(file: string): Promise<void> {
  let handle: FileHandle;
  try {
    handle = await open(file, "r");
  } catch (error) {
    if (isMissing(error)) return; // deleted or replaced meanwhile: nothing of ours to flush
    throw storageFailure(error, file, "open the file to flush it");
  }
  try {
    await handle.datasync();
  } catch (error) {
    throw storageFailure(error, file, "flush the file");
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
    handle = await open(dir, "r");
    await handle.sync();
  } catch {
    // best effort, see above
  } finally {
    await handle?.close().catch(() => undefined);
  }
}
