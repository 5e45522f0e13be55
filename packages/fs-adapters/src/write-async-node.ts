/**
 * The file part of `FileSystemStore.put` through libuv's thread pool (`io: "async"`): links
 * refused, parents created, a temporary file written, flushed when durable, renamed over the
 * target. write-sync-node.ts does the same steps on the calling thread (the default); the
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
import { directoryFailure, directoryInTheWay, mayBeDirectoryInTheWay, refuseLinksBetween, storageFailure, temporaryPathFor } from "./file-safety-node.js";

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
