/**
 * Flushing to disk for {@link FileSystemStore}: `fsync` of a stored file by name, `fsync` of a
 * directory (which makes a rename into it durable), how many files `FileSystemStore.sync`
 * flushes at once, and what is pending for it ({@link PendingFlushes}).
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
import * as nodePath from "node:path";
import { UsageError } from "@fmt/errors";
import { isMissing, keyOfPath, refuseLinksBetween, storageFailure, systemErrorCode } from "./file-safety-node.js";

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

/**
 * What `FileSystemStore.sync` has to flush: the files written without a flush since the last
 * sync and the directories whose new entries they are, plus whatever a failed sync had taken.
 * Syncs run one at a time: one that resolves has seen every earlier write flushed, even those an
 * overlapping sync had taken (or failed on: a failed run's files go to the next run).
 *
 * @example
 * ```ts
 * const pending = new PendingFlushes(() => "/data/t.bcolz");
 * pending.add("/data/t.bcolz/data/__0.blp", "/data/t.bcolz/data");
 * await pending.flush(); // one fsync for the file, one for its directory
 * ```
 */
export class PendingFlushes {
  /** The store's root, read at each flush: `root` is read-only to TypeScript only (see `FileSystemStore.pathOf`). */
  readonly #root: () => string;
  #files = new Set<string>();
  #directories = new Set<string>();
  // What a failed sync had taken: the next sync flushes it too.
  #failedFiles = new Set<string>();
  #failedDirectories = new Set<string>();
  #last: Promise<void> = Promise.resolve();

  /** Pending flushes of files below the root `root()` gives when a flush runs. */
  constructor(root: () => string) {
    this.#root = root;
  }

  /**
   * `file` was written, or queued to the write thread, without a flush; `directory` too, when the
   * write made a new entry in it.
   */
  add(file: string, directory?: string): void {
    this.#files.add(file);
    if (directory !== undefined) this.#directories.add(directory);
  }

  /** `file` was flushed on its own (a durable put): an earlier pending write of it is covered. */
  forget(file: string): void {
    this.#files.delete(file);
    this.#failedFiles.delete(file);
  }

  /**
   * Flushes every file pending now (each once, {@link SYNC_PARALLELISM} at a time), then each
   * directory (each once). The caller settles the write thread first, so that every file queued
   * there is written when this is called. What is pending is taken in the call: a write added
   * after it, even one under way, waits for the next flush. Taken later, its file could be flushed
   * before it was written (or found missing and skipped), and then dropped. On failure everything
   * taken stays pending for the next flush.
   */
  async flush(): Promise<void> {
    const files = [...this.#files];
    const directories = [...this.#directories];
    this.#files.clear();
    this.#directories.clear();
    // One flush at a time, after the one before whatever its outcome (its failures come along).
    const run = this.#last.catch(() => undefined).then(() => this.#flush(files, directories));
    this.#last = run;
    await run;
  }

  async #flush(taken: string[], takenDirectories: string[]): Promise<void> {
    const files = [...new Set([...this.#failedFiles, ...taken])];
    const directories = [...new Set([...this.#failedDirectories, ...takenDirectories])];
    this.#failedFiles.clear();
    this.#failedDirectories.clear();
    const root = this.#root();
    // A directory of pending files replaced meanwhile by a link (or by anything but a directory)
    // holds nothing the store wrote, since writes refuse links between the root and their file:
    // its files and the directory itself are skipped, so that a sync never flushes outside the
    // root. One check per distinct directory; the root itself may be a link (the caller's choice).
    const inside = new Map<string, Promise<boolean>>();
    const stillOurs = (dir: string): Promise<boolean> => {
      let answer = inside.get(dir);
      if (answer === undefined) {
        const key = keyOfPath(root, dir);
        answer = key === "" ? Promise.resolve(true) : refuseLinksBetween(root, key, true).catch((error: unknown) => {
          if (error instanceof UsageError && error.code === "UNSAFE_NAME") return false;
          throw error;
        });
        inside.set(dir, answer);
      }
      return answer;
    };
    try {
      let next = 0;
      const worker = async (): Promise<void> => {
        while (next < files.length) {
          const file = files[next++]!;
          if (await stillOurs(nodePath.dirname(file))) await syncFile(file, keyOfPath(root, file));
        }
      };
      // Every worker settles before this run ends (a failure included), so the next sync never
      // starts while flushes of this one are still in flight.
      const outcomes = await Promise.allSettled(Array.from({ length: Math.min(SYNC_PARALLELISM, files.length) }, worker));
      const failed = outcomes.find((outcome) => outcome.status === "rejected");
      if (failed !== undefined) throw failed.reason;
      for (const dir of directories) if (await stillOurs(dir)) await syncDirectory(dir);
    } catch (error) {
      // Nothing is known to be durable: keep everything for the next attempt.
      for (const f of files) this.#failedFiles.add(f);
      for (const d of directories) this.#failedDirectories.add(d);
      throw error;
    }
  }
}
