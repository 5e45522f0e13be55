/**
 * Reads of {@link FileSystemStore} through libuv's thread pool (`io: "async"`): the one open of a
 * key's file (without blocking, and only a regular file gets through) and the positional read of
 * a byte window of it. read-sync-node.ts is the calling-thread counterpart, with the same checks.
 *
 * Apart from the store because the open and the read are the same for `get`, `getRange`,
 * `getRanges` and `byteLength`, and none of them needs more of the store than the file's path.
 *
 * @example
 * ```ts
 * const opened = await openRegularFile("/data/x.bcolz/meta/sizes", "meta/sizes");
 * if (opened !== undefined) bytes = await readAt(opened.handle, opened.size, 0, "meta/sizes");
 * ```
 * @module
 */
import { constants as fsConstants } from "node:fs";
import { open } from "node:fs/promises";
import type { FileHandle } from "node:fs/promises";
import { StorageError } from "@fmt/errors";
import { isMissing, storageFailure } from "./file-safety-node.js";
import { fileKind, readDestination } from "./read-sync-node.js";

/**
 * The flags every read opens a file with.
 *
 * O_NONBLOCK makes opening a FIFO return at once instead of waiting for a writer; the fstat that
 * follows then refuses it. Windows has no such flag and no FIFOs to open by path.
 *
 * @example
 * ```ts
 * const handle = await open("/data/x.bcolz/meta/sizes", READ_FLAGS);
 * ```
 */
export const READ_FLAGS = fsConstants.O_RDONLY | (fsConstants.O_NONBLOCK ?? 0);

/**
 * A regular file opened for reading, with its size at the time of opening.
 *
 * @example
 * ```ts
 * const { handle, size } = (await openRegularFile(path, key))!;
 * ```
 */
export interface OpenedFile {
  handle: FileHandle;
  size: number;
}

/**
 * The one place reads open files: without blocking, and only regular files get through.
 * `undefined` when the file is missing, a parent is not a directory, or `file` is a directory;
 * `StorageError` `IO_ERROR` for a FIFO, a socket or a device.
 *
 * @param file - the absolute path (`FileSystemStore.pathOf(key)`).
 * @param key - the store key, for errors.
 * @example
 * ```ts
 * const opened = await openRegularFile(store.pathOf("data/__0.blp"), "data/__0.blp");
 * ```
 */
export async function openRegularFile(file: string, key: string): Promise<OpenedFile | undefined> {
  let handle: FileHandle;
  try {
    handle = await open(file, READ_FLAGS);
  } catch (error) {
    if (isMissing(error)) return undefined;
    throw storageFailure(error, key, "open the file");
  }
  let info;
  try {
    info = await handle.stat();
  } catch (error) {
    await handle.close().catch(() => undefined);
    throw storageFailure(error, key, "inspect the file");
  }
  if (info.isFile()) return { handle, size: info.size };
  await handle.close().catch(() => undefined);
  if (info.isDirectory()) return undefined;
  throw new StorageError("IO_ERROR", "the key names something other than a regular file", { path: key, field: "key", expected: "a regular file", actual: fileKind(info) });
}

/**
 * Reads `length` bytes from `position`; a file that shrank meanwhile gives what exists.
 *
 * @example
 * ```ts
 * const head = await readAt(opened.handle, 16, 0, "data/__0.blp");
 * ```
 */
export async function readAt(handle: FileHandle, length: number, position: number, key: string): Promise<Uint8Array> {
  const out = readDestination(length);
  let filled = 0;
  try {
    while (filled < length) {
      const { bytesRead } = await handle.read(out, filled, length - filled, position + filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
  } catch (error) {
    throw storageFailure(error, key, "read the file");
  }
  return filled === length ? out : out.slice(0, filled);
}
