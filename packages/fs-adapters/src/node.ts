/**
 * Node-only store adapter: {@link FileSystemStore}, a store whose keys are files under a root
 * directory. Import it from `@fmt/fs-adapters/node`.
 *
 * @example
 * ```ts
 * import { FileSystemStore } from "@fmt/fs-adapters/node";
 * const store = new FileSystemStore("/data/prices.bcolz");
 * console.log(await store.list("data/")); // ["data/__0.blp", "data/__1.blp"]
 * ```
 * @packageDocumentation
 */

import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import { mkdir, open, readdir, readFile, rename, stat, unlink } from "node:fs/promises";
import type { FileHandle } from "node:fs/promises";
import * as nodePath from "node:path";
import { ConflictError, UsageError } from "@fmt/errors";
import { checkPutOptions, resolveRange, validateKey, validatePrefix } from "./index.js";
import type { ByteRange, PutOptions, WritableStore } from "./index.js";

export type { ByteRange, PutOptions, ReadableStore, WritableStore } from "./index.js";

// Temporary files written by `put` end with this marker plus random hex; `list` hides them so
// that a crash between write and rename never makes a half-written file look like a key.
const TEMP_MARKER = ".fmt-tmp-";
const TEMP_PATTERN = /\.fmt-tmp-[0-9a-f]{16}$/;

function errorCode(error: unknown): string | undefined {
  if (typeof error === "object" && error !== null && "code" in error) {
    const code = (error as { code: unknown }).code;
    return typeof code === "string" ? code : undefined;
  }
  return undefined;
}

/** Errors that mean "there is no file at this key". */
function isMissing(error: unknown): boolean {
  const code = errorCode(error);
  return code === "ENOENT" || code === "ENOTDIR" || code === "EISDIR";
}

/**
 * A {@link WritableStore} over a directory of the local file system: key `"data/__0.blp"` is the
 * file `<root>/data/__0.blp`.
 *
 * - `get` / `getRange` give `undefined` when the file is missing, when a parent is not a
 *   directory, or when the key names a directory. `getRange` reads only the requested bytes.
 * - `list(prefix)` walks the directories recursively and returns the keys of regular files (and
 *   of symbolic links to them), sorted; a missing root gives `[]`. Temporary files of unfinished
 *   `put`s (`*.fmt-tmp-<16 hex>`) are not listed.
 * - `put` creates parent directories, writes a uniquely named temporary file next to the target,
 *   flushes it to disk (fsync) and renames it over the target, then flushes the directory, so
 *   readers see the old or the new content, never a partial one, and the new content survives a
 *   power loss once `put` resolves. With `{ durable: false }` both flushes are left to the next
 *   {@link FileSystemStore.sync}, which flushes each such file and each touched directory once
 *   (the replacement is as atomic for readers either way). If a file stands where a directory is
 *   needed, or a directory where the file should go, it throws `ConflictError` `ALREADY_EXISTS`.
 * - `delete` unlinks the file; a missing file (or a directory) is not an error. Directories are
 *   kept even when they become empty.
 *
 * Keys are checked with {@link validateKey} and the resolved path must stay inside `root`
 * (`UsageError` `UNSAFE_NAME` otherwise). The check is lexical: symbolic links inside the root are
 * followed. Other I/O failures (permissions, disk full) are passed on as Node's own errors.
 *
 * @example
 * ```ts
 * const store = new FileSystemStore("/tmp/example.bcolz");
 * await store.put("__attrs__", new TextEncoder().encode("{}\n"));
 * const head = await store.getRange("data/__0.blp", { offset: 0, length: 16 }); // undefined: no such file
 * ```
 */
export class FileSystemStore implements WritableStore {
  /** The absolute root directory. */
  readonly root: string;
  /** Files renamed into place by non-durable puts since the last sync, and their directories. */
  #unsyncedFiles = new Set<string>();
  #unsyncedDirectories = new Set<string>();
  #lastSync: Promise<void> = Promise.resolve();

  /** Uses `root` (resolved to an absolute path; it need not exist yet) as the store root. */
  constructor(root: string) {
    if (typeof root !== "string" || root === "" || root.includes("\0")) {
      throw new UsageError("INVALID_ARGUMENT", "root must be a non-empty path", { field: "root", actual: root });
    }
    this.root = nodePath.resolve(root);
  }

  /**
   * The file-system path of `key`, after validation.
   *
   * @example
   * ```ts
   * new FileSystemStore("/data/x.bcolz").pathOf("meta/sizes"); // "/data/x.bcolz/meta/sizes"
   * ```
   */
  pathOf(key: string): string {
    validateKey(key);
    const full = nodePath.resolve(this.root, ...key.split("/"));
    const relative = nodePath.relative(this.root, full);
    if (relative === "" || relative.startsWith("..") || nodePath.isAbsolute(relative)) {
      throw new UsageError("UNSAFE_NAME", "store key resolves outside the store root", { field: "key", actual: key });
    }
    return full;
  }

  /** The whole file; `undefined` if missing. */
  async get(key: string): Promise<Uint8Array | undefined> {
    const file = this.pathOf(key);
    try {
      const buffer = await readFile(file);
      // A Buffer may be a slice of a shared pool; only hand out memory nobody else can see.
      const whole = buffer.byteOffset === 0 && buffer.byteLength === buffer.buffer.byteLength;
      return whole ? new Uint8Array(buffer.buffer, 0, buffer.byteLength) : new Uint8Array(buffer);
    } catch (error) {
      if (isMissing(error)) return undefined;
      throw error;
    }
  }

  /** Only the requested bytes of the file (clipped at its end); `undefined` if missing. */
  async getRange(key: string, range: ByteRange): Promise<Uint8Array | undefined> {
    const file = this.pathOf(key);
    resolveRange(range, 0);
    let handle: FileHandle;
    try {
      handle = await open(file, "r");
    } catch (error) {
      if (isMissing(error)) return undefined;
      throw error;
    }
    try {
      const info = await handle.stat();
      if (!info.isFile()) return undefined;
      const { start, end } = resolveRange(range, info.size);
      const out = new Uint8Array(end - start);
      let filled = 0;
      while (filled < out.length) {
        const { bytesRead } = await handle.read(out, filled, out.length - filled, start + filled);
        if (bytesRead === 0) break; // the file shrank meanwhile: return what exists
        filled += bytesRead;
      }
      return filled === out.length ? out : out.slice(0, filled);
    } catch (error) {
      if (isMissing(error)) return undefined;
      throw error;
    } finally {
      await handle.close();
    }
  }

  /** Sorted keys of the files whose key starts with `prefix`; `[]` when none. */
  async list(prefix: string): Promise<string[]> {
    validatePrefix(prefix);
    const cut = prefix.lastIndexOf("/");
    const dirKey = cut < 0 ? "" : prefix.slice(0, cut);
    const keys: string[] = [];
    await this.#walk(dirKey === "" ? this.root : this.pathOf(dirKey), dirKey, prefix, keys);
    return keys.sort();
  }

  async #walk(dir: string, dirKey: string, prefix: string, out: string[]): Promise<void> {
    let entries;
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch (error) {
      if (isMissing(error)) return;
      throw error;
    }
    for (const entry of entries) {
      const name = entry.name;
      if (TEMP_PATTERN.test(name)) continue;
      const key = dirKey === "" ? name : `${dirKey}/${name}`;
      // Skip subtrees that cannot contain a match: the key must extend the prefix or vice versa.
      if (!key.startsWith(prefix) && !prefix.startsWith(`${key}/`)) continue;
      let isDir = entry.isDirectory();
      let isFile = entry.isFile();
      if (entry.isSymbolicLink()) {
        try {
          const target = await stat(nodePath.join(dir, name));
          isDir = target.isDirectory();
          isFile = target.isFile();
        } catch (error) {
          if (isMissing(error) || errorCode(error) === "ELOOP") continue;
          throw error;
        }
      }
      if (isDir) await this.#walk(nodePath.join(dir, name), key, prefix, out);
      else if (isFile && key.startsWith(prefix)) out.push(key);
    }
  }

  /**
   * Atomically replaces the file of `key` with `value` (temp file, fsync, rename, directory
   * fsync); with `{ durable: false }` the fsyncs wait for {@link FileSystemStore.sync}.
   */
  async put(key: string, value: Uint8Array, options?: PutOptions): Promise<void> {
    const file = this.pathOf(key);
    if (!(value instanceof Uint8Array)) {
      throw new UsageError("INVALID_ARGUMENT", "a stored value must be a Uint8Array", { field: "value", expected: "Uint8Array", actual: typeof value });
    }
    const durable = checkPutOptions(options);
    const dir = nodePath.dirname(file);
    try {
      await mkdir(dir, { recursive: true });
    } catch (error) {
      const code = errorCode(error);
      if (code === "EEXIST" || code === "ENOTDIR") {
        throw new ConflictError("ALREADY_EXISTS", "a file stands where a directory of the key is needed", { path: key, field: "key", cause: error });
      }
      throw error;
    }
    const temp = `${file}${TEMP_MARKER}${randomBytes(8).toString("hex")}`;
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
      const code = errorCode(error);
      if (code === "EISDIR" || code === "ENOTEMPTY" || code === "EEXIST" || code === "EPERM") {
        const existing = await stat(file).catch(() => undefined);
        if (existing?.isDirectory()) {
          throw new ConflictError("ALREADY_EXISTS", "a directory stands where the key's file should go", { path: key, field: "key", cause: error });
        }
      }
      throw error;
    }
    if (durable) {
      // An earlier non-durable put of this key is covered now; its directory entry is too.
      this.#unsyncedFiles.delete(file);
      await syncDirectory(dir);
      return;
    }
    this.#unsyncedFiles.add(file);
    this.#unsyncedDirectories.add(dir);
  }

  /**
   * Flushes to disk every file stored by a non-durable `put` since the last sync (each once,
   * a few in parallel), then each directory those files were renamed into (each once). Files
   * deleted meanwhile are skipped. Afterwards those puts are as durable as default ones.
   *
   * @example
   * ```ts
   * for (const [key, bytes] of chunks) await store.put(key, bytes, { durable: false });
   * await store.sync();                   // one fsync per file, one per directory
   * await store.put("meta/sizes", sizes); // the commit, durable on its own
   * ```
   */
  async sync(): Promise<void> {
    // One sync at a time, each flushing what is pending when it starts: a sync that resolves has
    // seen every earlier put flushed, even those an overlapping sync had taken (or failed on).
    const run = this.#lastSync.catch(() => undefined).then(() => this.#flushPending());
    this.#lastSync = run;
    await run;
  }

  async #flushPending(): Promise<void> {
    const files = [...this.#unsyncedFiles];
    const directories = [...this.#unsyncedDirectories];
    this.#unsyncedFiles.clear();
    this.#unsyncedDirectories.clear();
    try {
      let next = 0;
      const worker = async (): Promise<void> => {
        while (next < files.length) await syncFile(files[next++]!);
      };
      await Promise.all(Array.from({ length: Math.min(SYNC_PARALLELISM, files.length) }, worker));
      for (const dir of directories) await syncDirectory(dir);
    } catch (error) {
      // Nothing is known to be durable: keep everything for the next attempt.
      for (const f of files) this.#unsyncedFiles.add(f);
      for (const d of directories) this.#unsyncedDirectories.add(d);
      throw error;
    }
  }

  /**
   * Creates the file of `key` with `value` only if no file exists there (`open` with the `wx`
   * flag, which is an atomic test-and-create on local file systems), fsyncs it, and resolves to
   * `true`; resolves to `false` when the file already exists. Parent directories are created.
   * The content is written after the creation, so a reader may briefly see it shorter.
   *
   * @example
   * ```ts
   * const mine = await store.putExclusive(".lock", new TextEncoder().encode('{"pid": 1}\n'));
   * ```
   */
  async putExclusive(key: string, value: Uint8Array): Promise<boolean> {
    const file = this.pathOf(key);
    if (!(value instanceof Uint8Array)) {
      throw new UsageError("INVALID_ARGUMENT", "a stored value must be a Uint8Array", { field: "value", expected: "Uint8Array", actual: typeof value });
    }
    await this.createDirectory(nodePath.relative(this.root, nodePath.dirname(file)).split(nodePath.sep).join("/"));
    let handle: FileHandle;
    try {
      handle = await open(file, "wx");
    } catch (error) {
      if (errorCode(error) === "EEXIST") return false;
      throw error;
    }
    try {
      let written = 0;
      while (written < value.length) {
        const { bytesWritten } = await handle.write(value, written, value.length - written, written);
        written += bytesWritten;
      }
      await handle.sync();
    } finally {
      await handle.close();
    }
    await syncDirectory(nodePath.dirname(file));
    return true;
  }

  /**
   * Creates the directory of `key` and its parents (nothing happens if it exists); `""` is the
   * root. A file in the way gives `ConflictError` `ALREADY_EXISTS`.
   *
   * @example
   * ```ts
   * await store.createDirectory("data"); // bcolz creates data/ even for an empty carray
   * ```
   */
  async createDirectory(key: string): Promise<void> {
    const dir = key === "" ? this.root : this.pathOf(key);
    try {
      await mkdir(dir, { recursive: true });
    } catch (error) {
      const code = errorCode(error);
      if (code === "EEXIST" || code === "ENOTDIR") {
        throw new ConflictError("ALREADY_EXISTS", "a file stands where a directory is needed", { path: key, field: "key", cause: error });
      }
      throw error;
    }
  }

  /**
   * The process id and host name of this Node process, recorded in lock files.
   *
   * @example
   * ```ts
   * store.writerIdentity(); // { pid: 4242, hostname: "build-7" }
   * ```
   */
  writerIdentity(): { [key: string]: string | number } {
    return { pid: process.pid, hostname: hostname() };
  }

  /** Unlinks the file of `key`; a missing file is ignored, directories are kept. */
  async delete(key: string): Promise<void> {
    const file = this.pathOf(key);
    try {
      await unlink(file);
    } catch (error) {
      if (isMissing(error)) return;
      if (errorCode(error) === "EPERM") {
        // macOS reports EPERM for unlink on a directory; a directory is not a key.
        const existing = await stat(file).catch(() => undefined);
        if (existing?.isDirectory()) return;
      }
      throw error;
    }
  }
}

// fsyncs in flight at once during sync(): enough to keep a disk queue busy without taking every
// thread of libuv's pool (4 by default) away from other I/O.
const SYNC_PARALLELISM = 3;

// Flushes a file's data (and the metadata needed to read it back) through any descriptor of it.
async function syncFile(file: string): Promise<void> {
  let handle: FileHandle;
  try {
    handle = await open(file, "r");
  } catch (error) {
    if (isMissing(error)) return; // deleted or replaced meanwhile: nothing of ours to flush
    throw error;
  }
  try {
    await handle.datasync();
  } finally {
    await handle.close();
  }
}

// Makes the rename itself durable. Not every platform can open a directory (Windows cannot),
// and durability of the directory entry is a best effort there.
async function syncDirectory(dir: string): Promise<void> {
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
