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

import { hostname } from "node:os";
import { mkdir, open, stat, unlink } from "node:fs/promises";
import type { FileHandle } from "node:fs/promises";
import * as nodePath from "node:path";
import { ConflictError, FormatError, UsageError } from "@fmt/errors";
import { DEFAULT_MAX_VALUE_BYTES } from "./file-system-options.js";
import type { FileSystemStoreOptions } from "./file-system-options.js";
import { isMissing, keyOfPath, refuseLinksBetween, refuseLinksBetweenSync, removeTemporaryFiles, storageFailure, systemErrorCode as errorCode } from "./file-safety-node.js";
import { PendingFlushes, syncDirectory } from "./flush-node.js";
import { checkPutOptions, resolveRange, resolveRangeInto, validateKey, validatePrefix } from "./index.js";
import { walk, walkSync } from "./list-node.js";
import { openRegularFile, readAt } from "./read-async-node.js";
import { readFileChecked, readRangesChecked, regularFileSize } from "./read-sync-node.js";
import { writeFileAtomically, writeIntoFile } from "./write-async-node.js";
import { checkSummedWrite, writeSummedInTwo } from "./write-summed-node.js";
import { deleteFileSync, makeParentsSync, writeFileAtomicallySync, writeFileInPlaceSync, writeIntoFileSync } from "./write-sync-node.js";
import { LARGEST_QUEUED, readyWriteThread, runningWriteThread, settleWriteThread } from "./write-thread-node.js";
import type { WriteThread } from "./write-thread-node.js";
import type { ByteRange, PutOptions, WritableStore } from "./index.js";

export type { ByteRange, PutOptions, ReadableStore, WritableStore } from "./index.js";
export { DEFAULT_MAX_VALUE_BYTES } from "./file-system-options.js";
export type { FileSystemStoreOptions } from "./file-system-options.js";
export { startWriteThread } from "./write-thread-node.js";

// Where getRanges checks its ranges (the window itself is not used): no object per range.
const checkedWindow = { start: 0, end: 0 };

// Keys whose resolved paths a store remembers at most (pathOf).
const KNOWN_PATHS = 4096;

/**
 * A {@link WritableStore} over a directory of the local file system: key `"data/__0.blp"` is the
 * file `<root>/data/__0.blp`.
 *
 * - `get` / `getRange` give `undefined` when the file is missing, when a parent is not a
 *   directory, or when the key names a directory. Both open the file once without blocking
 *   (`O_NONBLOCK`), check the opened descriptor with `fstat` and read only a regular file: a key
 *   that is a FIFO, a socket or a device (or a symbolic link to `/dev/zero`) gives `StorageError`
 *   `IO_ERROR` without reading a byte. `get` reads at most the size `fstat` reported and refuses
 *   files over `maxValueBytes` (`FormatError` `SIZE_LIMIT`); `getRange` reads only the requested
 *   bytes. That is one open, one fstat, the reads and one close per call, on the calling thread
 *   by default (see {@link FileSystemStoreOptions.io}: a cached chunk file reads in microseconds,
 *   while the thread pool would cost four round trips per file).
 * - `list(prefix)` walks the real directories recursively and returns, sorted, the key of every
 *   other entry: regular files, and symbolic links as themselves, whatever they point to (a link
 *   to a directory is one key, its contents are not walked). So a link cycle or a link to `/`
 *   costs one entry, and a writer that deletes every listed key of a tree removes links, never
 *   files outside the root. A missing root gives `[]`. Temporary files of unfinished `put`s
 *   (`*.fmt-tmp-<16 hex>`) are not listed. The directory of the prefix itself is reached like
 *   any read path (links there are followed). With `io: "sync"` the walk happens in the call, so
 *   a put called after `list` is never seen by it, and a file that stood before is (even while a
 *   later in-place put replaces it).
 * - `put` creates parent directories, writes a uniquely named temporary file next to the target,
 *   flushes it to disk (fsync) and renames it over the target, then flushes the directory, so
 *   readers see the old or the new content, never a partial one, and the new content survives a
 *   power loss once `put` resolves. With `{ durable: false }` both flushes are left to the next
 *   {@link FileSystemStore.sync}, which flushes each such file and each touched directory once
 *   (the replacement is as atomic for readers either way). If a file stands where a directory is
 *   needed, or a directory where the file should go, it throws `ConflictError` `ALREADY_EXISTS`.
 * - `delete` unlinks the file (with `io: "sync"` in the call); a missing file (or a directory) is
 *   not an error. Directories are kept even when they become empty. A key that is itself a
 *   symbolic link loses the link, never the file it points to.
 * - {@link FileSystemStore.removeStaleTemporaries} deletes the temporary files killed writers
 *   left; writers call it once they hold a dataset's lock.
 *
 * Keys are checked with {@link validateKey} and the resolved path must stay inside `root`
 * (`UsageError` `UNSAFE_NAME` otherwise); only a real `..` segment climbs, so `..foo` is an
 * ordinary name. Reads follow symbolic links, wherever they point (only regular files are read,
 * and at most the size `fstat` reports, so a link to `/proc/self/environ` reads as empty).
 * Writes never do: `put`, `putExclusive`, `delete` and `createDirectory` `lstat` every existing
 * directory between the root and the target and refuse (`UsageError` `UNSAFE_NAME`) when one is
 * a link, so a link planted in a dataset cannot make a write or a delete land outside the root.
 * (The root itself may be a link.)
 *
 * Operating-system failures never escape as plain `Error`s: a name too long for the file system
 * is `UsageError` `UNSAFE_NAME`; a link loop, permission denied, a device error or a full disk is
 * `StorageError` `IO_ERROR` with the key as `path` and the system code (`ELOOP`, `EACCES`, …) as
 * `actual`.
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
  /** Largest file `get` reads; see {@link FileSystemStoreOptions.maxValueBytes}. */
  readonly maxValueBytes: number;
  /** How reads are done; see {@link FileSystemStoreOptions.io}. */
  readonly io: "sync" | "async";
  /** Whether writes are flushed to disk; see {@link FileSystemStoreOptions.fsync}. */
  readonly fsync: boolean;
  /** Whether new chunk files may go to the write thread; see {@link FileSystemStoreOptions.writeThread}. */
  readonly writeThread: boolean;
  // Resolved paths of the keys seen last (pathOf), and the root they were resolved under.
  readonly #paths = new Map<string, string>();
  #pathsRoot = "";
  #resolvedRoot = "";
  /** Files written by non-durable puts and writes since the last sync, their directories, and what a failed sync took. */
  readonly #pending: PendingFlushes;

  /**
   * With `io: "sync"`, this class's `put` writes the file before it returns (see
   * {@link WritableStore.putsAtOnce}); `false` with `io: "async"`, and in a subclass that replaces
   * `put` unless it says otherwise itself.
   */
  get putsAtOnce(): boolean {
    return this.io === "sync" && this.put === FileSystemStore.prototype.put;
  }

  /**
   * With `io: "sync"`, this class's `writeAt` takes the bytes before it returns (see
   * {@link WritableStore.positionalWritesAtOnce}); `false` with `io: "async"`, and in a subclass
   * that replaces `writeAt` unless it says otherwise itself.
   */
  get positionalWritesAtOnce(): boolean {
    return this.io === "sync" && this.writeAt === FileSystemStore.prototype.writeAt;
  }

  /** Uses `root` (resolved to an absolute path; it need not exist yet) as the store root. */
  constructor(root: string, options: FileSystemStoreOptions = {}) {
    if (typeof root !== "string" || root === "" || root.includes("\0")) {
      throw new UsageError("INVALID_ARGUMENT", "root must be a non-empty path", { field: "root", actual: root });
    }
    const maxValueBytes = options.maxValueBytes ?? DEFAULT_MAX_VALUE_BYTES;
    if (!Number.isSafeInteger(maxValueBytes) || maxValueBytes < 0) {
      throw new UsageError("INVALID_ARGUMENT", "maxValueBytes must be a non-negative safe integer", { field: "maxValueBytes", actual: maxValueBytes });
    }
    const io = options.io ?? "sync";
    if (io !== "sync" && io !== "async") {
      throw new UsageError("INVALID_ARGUMENT", "io must be \"sync\" or \"async\"", { field: "io", expected: "sync or async", actual: io });
    }
    this.root = nodePath.resolve(root);
    this.#pending = new PendingFlushes(() => this.root);
    this.maxValueBytes = maxValueBytes;
    this.io = io;
    if (options.fsync !== undefined && typeof options.fsync !== "boolean") {
      throw new UsageError("INVALID_ARGUMENT", "fsync must be true or false", { field: "fsync", expected: "boolean", actual: options.fsync });
    }
    this.fsync = options.fsync ?? true;
    if (options.writeThread !== undefined && typeof options.writeThread !== "boolean") {
      throw new UsageError("INVALID_ARGUMENT", "writeThread must be true or false", { field: "writeThread", expected: "boolean", actual: options.writeThread });
    }
    this.writeThread = options.writeThread ?? true;
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
    // A pure function of the key (the root never changes), remembered for the keys seen last: a
    // single-row read costs a few microseconds, and checking and resolving its key was 5 % of it.
    if (this.#pathsRoot !== this.root) {
      // `root` is read-only to TypeScript only: a changed root forgets the old paths, and is
      // resolved as the constructor resolves it (keys are joined to it below).
      this.#paths.clear();
      this.#pathsRoot = this.root;
      this.#resolvedRoot = nodePath.resolve(this.root);
    }
    const known = this.#paths.get(key);
    if (known !== undefined) return known;
    validateKey(key);
    let full: string;
    if (nodePath.sep === "/") {
      // A valid key has no empty, "." or ".." segment and no backslash, and the root is resolved:
      // on POSIX the two joined are the resolved path, and below the root (a fifth of the
      // per-file cost of reading a new store's chunk files went to resolving and checking).
      const root = this.#resolvedRoot;
      full = root.endsWith("/") ? root + key : `${root}/${key}`;
    } else {
      // Elsewhere a segment can still leave the root ("C:" names a drive on Windows).
      full = nodePath.resolve(this.#resolvedRoot, ...key.split("/"));
      const relative = nodePath.relative(this.#resolvedRoot, full);
      const climbs = relative === ".." || relative.startsWith(`..${nodePath.sep}`);
      if (relative === "" || climbs || nodePath.isAbsolute(relative)) {
        throw new UsageError("UNSAFE_NAME", "store key resolves outside the store root", { path: key, field: "key", actual: key });
      }
    }
    if (this.#paths.size >= KNOWN_PATHS) this.#paths.clear();
    this.#paths.set(key, full);
    return full;
  }

  /** The whole file; `undefined` if missing. */
  async get(key: string): Promise<Uint8Array | undefined> {
    settleWriteThread();
    if (this.io === "sync") return readFileChecked(this.pathOf(key), key, undefined, this.maxValueBytes);
    const opened = await openRegularFile(this.pathOf(key), key);
    if (opened === undefined) return undefined;
    try {
      if (opened.size > this.maxValueBytes) {
        throw new FormatError("SIZE_LIMIT", "file is larger than the store's maxValueBytes", { path: key, field: "size", expected: `<= ${this.maxValueBytes}`, actual: opened.size });
      }
      return await readAt(opened.handle, opened.size, 0, key);
    } finally {
      await opened.handle.close().catch(() => undefined);
    }
  }

  /**
   * {@link get} (or with `range`, {@link getRange}) into `buffer` when the bytes fit in it (the
   * result is then a view of `buffer`), else into a new array: a reader going through many chunk
   * files, or runs of a superchunk, one after another reuses one buffer instead of allocating
   * (and later collecting) one per read. With `io: "async"` it is `get` or `getRange`.
   *
   * @example
   * ```ts
   * const buffer = new Uint8Array(1 << 20);
   * const bytes = await store.getInto("data/__0.blp", buffer); // bytes.buffer === buffer.buffer when it fits
   * const run = await store.getInto("data/__1__.bin", buffer, { offset: 4096, length: 65536 });
   * ```
   */
  async getInto(key: string, buffer: Uint8Array, range?: ByteRange): Promise<Uint8Array | undefined> {
    settleWriteThread();
    if (this.io !== "sync") return range === undefined ? this.get(key) : this.getRange(key, range);
    if (range === undefined) return readFileChecked(this.pathOf(key), key, undefined, this.maxValueBytes, buffer);
    const path = this.pathOf(key);
    resolveRange(range, 0);
    return readFileChecked(path, key, (size) => resolveRange(range, size), Infinity, buffer);
  }

  /** Only the requested bytes of the file (clipped at its end); `undefined` if missing. */
  async getRange(key: string, range: ByteRange): Promise<Uint8Array | undefined> {
    settleWriteThread();
    const path = this.pathOf(key);
    resolveRange(range, 0);
    if (this.io === "sync") return readFileChecked(path, key, (size) => resolveRange(range, size), Infinity);
    const opened = await openRegularFile(this.pathOf(key), key);
    if (opened === undefined) return undefined;
    try {
      const { start, end } = resolveRange(range, opened.size);
      return await readAt(opened.handle, end - start, start, key);
    } finally {
      await opened.handle.close().catch(() => undefined);
    }
  }

  /**
   * Several parts of the file (each clipped at its end) through one open; `undefined` if missing.
   * With `io: "sync"` a part is read into its buffer in `into` when it fits there, and the other
   * parts are views of one allocation (transferring one's `buffer` detaches the others); with
   * `io: "async"` every part comes in memory of its own.
   *
   * @example
   * ```ts
   * const [a, b] = (await store.getRanges("data/__0.blp", [{ offset: 16, length: 4 }, { offset: 9000, length: 1 }]))!;
   * const [c] = (await store.getRanges("data/__0.blp", [{ offset: 16, length: 4096 }], [new Uint8Array(4096)]))!;
   * ```
   */
  async getRanges(key: string, ranges: readonly ByteRange[], into?: readonly (Uint8Array | undefined)[]): Promise<Uint8Array[] | undefined> {
    settleWriteThread();
    const path = this.pathOf(key);
    // Checked before the file is opened (a bad range throws even for a missing file).
    for (const range of ranges) resolveRangeInto(range, 0, checkedWindow);
    if (this.io === "sync") return readRangesChecked(path, key, ranges, into);
    const opened = await openRegularFile(this.pathOf(key), key);
    if (opened === undefined) return undefined;
    try {
      const out: Uint8Array[] = [];
      for (const range of ranges) {
        const { start, end } = resolveRange(range, opened.size);
        out.push(await readAt(opened.handle, end - start, start, key));
      }
      return out;
    } finally {
      await opened.handle.close().catch(() => undefined);
    }
  }

  /** Sorted keys of the files and links (not walked into) whose key starts with `prefix`; `[]` when none. */
  async list(prefix: string): Promise<string[]> {
    settleWriteThread();
    validatePrefix(prefix);
    const cut = prefix.lastIndexOf("/");
    const dirKey = cut < 0 ? "" : prefix.slice(0, cut);
    const keys: string[] = [];
    const dir = dirKey === "" ? this.root : this.pathOf(dirKey);
    // With io "sync" the walk happens in the call, like get's read: a put called after list (and
    // not awaited) cannot run between list's call and its readdir. An in-place put removes the
    // old file before the write thread creates the new one, so a walk running later on the
    // thread pool could find neither.
    if (this.io === "sync") walkSync(dir, dirKey, prefix, keys);
    else await walk(dir, dirKey, prefix, keys);
    return keys.sort();
  }

  /**
   * Atomically replaces the file of `key` with `value` (temp file, fsync, rename, directory
   * fsync); with `{ durable: false }` the fsyncs wait for {@link FileSystemStore.sync}. With
   * `{ unreferenced: true }` (and `io: "sync"`) the file is written in place: whatever stands at
   * the name removed, a new file created and written, without a temporary file or a rename.
   */
  async put(key: string, value: Uint8Array, options?: PutOptions): Promise<void> {
    const file = this.pathOf(key);
    if (!(value instanceof Uint8Array)) {
      throw new UsageError("INVALID_ARGUMENT", "a stored value must be a Uint8Array", { field: "value", expected: "Uint8Array", actual: typeof value });
    }
    const durable = checkPutOptions(options) && this.fsync;
    const dir = nodePath.dirname(file);
    const inPlace = this.io === "sync" && options?.unreferenced === true;
    const thread = inPlace && !durable && this.writeThread ? readyWriteThread(value.length) : undefined;
    if (thread !== undefined) {
      // Queued after every file queued before it (the thread writes them in order); the bytes
      // are copied before this returns, as a put on this thread writes them. A parent to create
      // is made after the files queued before (one of them may stand where it would go).
      makeParentsSync(this.root, key, file, settleWriteThread);
      const written = thread.queue(file, key, value);
      // undefined: the thread stopped before it took the bytes; they are written here below.
      if (written !== undefined) {
        if (this.fsync) this.#pending.add(file, dir);
        return written;
      }
    }
    settleWriteThread();
    if (this.io !== "sync") await writeFileAtomically(this.root, key, file, value, durable);
    else if (inPlace) writeFileInPlaceSync(this.root, key, file, value, durable);
    else writeFileAtomicallySync(this.root, key, file, value, durable);
    if (durable) {
      // An earlier non-durable put of this key is covered now; its directory entry is too.
      this.#pending.forget(file);
      await syncDirectory(dir);
      return;
    }
    if (!this.fsync) return;
    this.#pending.add(file, dir);
  }

  /**
   * Flushes to disk every file stored by a non-durable `put` called before this sync and not yet
   * flushed (each once, a few in parallel), then each directory those files were renamed into
   * (each once). Files deleted meanwhile are skipped. Afterwards those puts are as durable as
   * default ones. A put called after `sync`, even one not awaited, waits for the next sync; so
   * does every file of a sync that failed. With `io: "async"` await the puts before `sync`: a put
   * still under way when `sync` is called is left to the next one.
   *
   * @example
   * ```ts
   * for (const [key, bytes] of chunks) await store.put(key, bytes, { durable: false });
   * await store.sync();                   // one fsync per file, one per directory
   * await store.put("meta/sizes", sizes); // the commit, durable on its own
   * ```
   */
  async sync(): Promise<void> {
    settleWriteThread();
    if (!this.fsync) return;
    // Every queued file is written by now (settleWriteThread above): what the flush takes in the
    // call is on disk. A put called after sync, even one not awaited, stays pending for the next.
    await this.#pending.flush();
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
    settleWriteThread();
    const file = this.pathOf(key);
    if (!(value instanceof Uint8Array)) {
      throw new UsageError("INVALID_ARGUMENT", "a stored value must be a Uint8Array", { field: "value", expected: "Uint8Array", actual: typeof value });
    }
    await this.createDirectory(keyOfPath(this.root, nodePath.dirname(file)));
    let handle: FileHandle;
    try {
      handle = await open(file, "wx");
    } catch (error) {
      if (errorCode(error) === "EEXIST") return false;
      throw storageFailure(error, key, "create the file");
    }
    try {
      let written = 0;
      while (written < value.length) {
        const { bytesWritten } = await handle.write(value, written, value.length - written, written);
        written += bytesWritten;
      }
      if (this.fsync) await handle.sync();
    } catch (error) {
      throw storageFailure(error, key, "write the file");
    } finally {
      await handle.close().catch(() => undefined);
    }
    if (this.fsync) await syncDirectory(nodePath.dirname(file));
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
    settleWriteThread();
    const dir = key === "" ? this.root : this.pathOf(key);
    if (key !== "" && (await refuseLinksBetween(this.root, key, true))) return;
    try {
      await mkdir(dir, { recursive: true });
    } catch (error) {
      const code = errorCode(error);
      if (code === "EEXIST" || code === "ENOTDIR") {
        throw new ConflictError("ALREADY_EXISTS", "a file stands where a directory is needed", { path: key, field: "key", cause: error });
      }
      throw storageFailure(error, key === "" ? "." : key, "create the directory");
    }
  }

  /**
   * Deletes the temporary files (`*.fmt-tmp-<16 hex>`) that writers killed between writing and
   * renaming left in the directory of `path` (`""`: the whole store) and below, and resolves to
   * their keys. Symbolic links are never followed, and a `path` reached through one is refused
   * (`UsageError` `UNSAFE_NAME`). Call it only while holding the lock of the dataset at `path`:
   * a temporary file of a live writer is indistinguishable from a dead one's. The dataset writers
   * of `@fmt/store` call it right after taking the lock.
   *
   * @example
   * ```ts
   * const removed = await store.removeStaleTemporaries("prices.bcolz"); // ["prices.bcolz/data/__3.blp.fmt-tmp-…"]
   * ```
   */
  async removeStaleTemporaries(path: string): Promise<string[]> {
    settleWriteThread();
    const dir = path === "" ? this.root : this.pathOf(path);
    if (path !== "" && !(await refuseLinksBetween(this.root, path, true))) return [];
    return removeTemporaryFiles(dir, path);
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

  /** The size of the file of `key` (with `io: "sync"` looked at in the call); `undefined` if missing (or a directory). */
  async byteLength(key: string): Promise<number | undefined> {
    settleWriteThread();
    if (this.io === "sync") return regularFileSize(this.pathOf(key), key);
    const opened = await openRegularFile(this.pathOf(key), key);
    if (opened === undefined) return undefined;
    await opened.handle.close().catch(() => undefined);
    return opened.size;
  }

  /**
   * Writes `bytes` into the existing file of `key` at `offset` (at most the file's size) with
   * positional writes, in place. With `durable` (the default) the file is flushed before this
   * resolves; with `{ durable: false }` the flush waits for {@link FileSystemStore.sync}. With
   * `io: "sync"` the bytes are taken before this returns ({@link FileSystemStore.positionalWritesAtOnce}); with
   * `{ durable: false, unreferenced: true }` (a file no reader follows yet) they go to the write
   * thread, as such puts do.
   */
  async writeAt(key: string, offset: number, bytes: Uint8Array, options?: PutOptions): Promise<void> {
    const file = this.pathOf(key);
    const durable = checkPutOptions(options) && this.fsync;
    if (!(bytes instanceof Uint8Array)) {
      throw new UsageError("INVALID_ARGUMENT", "written bytes must be a Uint8Array", { field: "bytes", expected: "Uint8Array", actual: typeof bytes });
    }
    if (this.io === "sync") {
      const thread = this.#threadForWriteAt(key, offset, durable, options, bytes.length, true);
      if (thread !== undefined) {
        const written = thread.queue(file, key, bytes, offset);
        if (written !== undefined) {
          if (this.fsync) this.#pending.add(file);
          return written;
        }
      }
      settleWriteThread();
      if (!refuseLinksBetweenSync(this.root, key, false)) throw new FormatError("MISSING_FILE", "writeAt needs an existing file", { path: key, field: "file" });
      writeIntoFileSync(key, file, offset, bytes, durable);
      if (!durable && this.fsync) this.#pending.add(file);
      return;
    }
    settleWriteThread();
    if (!(await refuseLinksBetween(this.root, key, false))) throw new FormatError("MISSING_FILE", "writeAt needs an existing file", { path: key, field: "file" });
    await writeIntoFile(key, file, offset, bytes, durable);
    if (!durable && this.fsync) this.#pending.add(file);
  }

  /**
   * {@link WritableStore.writeAtWithAdler32}. When `writeAt` would queue `bytes` on the running
   * write thread (`io: "sync"`, `{ durable: false, unreferenced: true }`, at most 2 MiB with the
   * sum and the zeros), the thread computes the sum and writes all of it (the zeros from memory
   * of its own: they take no room in the ring, and count towards the 2 MiB). Otherwise the sum is
   * computed here and two `writeAt`s follow (a subclass's own, when it has one). `zeros` is at
   * most 2^31; bytes that are not a `Uint8Array` or a bad offset fail as `writeAt` fails,
   * nothing written.
   */
  async writeAtWithAdler32(key: string, offset: number, bytes: Uint8Array, xor: number, zeros: number, options?: PutOptions): Promise<number> {
    checkSummedWrite(key, xor, zeros);
    if (!(bytes instanceof Uint8Array) || !Number.isSafeInteger(offset) || offset < 0) {
      // writeAt's own error, with nothing written (the sum and the zeros included).
      await this.writeAt(key, offset, bytes, options);
      throw new UsageError("INVALID_ARGUMENT", "bytes must be a Uint8Array written at a non-negative offset", { path: key, field: "offset", expected: ">= 0", actual: offset });
    }
    // A subclass that replaces writeAt gets its own writeAt, below.
    if (this.io === "sync" && this.writeAt === FileSystemStore.prototype.writeAt) {
      const file = this.pathOf(key);
      const durable = checkPutOptions(options) && this.fsync;
      // When it does not run, the writes below count the bytes towards its start.
      const thread = this.#threadForWriteAt(key, offset, durable, options, bytes.length + 4 + zeros, false);
      if (thread !== undefined) {
        const stored = thread.queueSummed(file, key, bytes, offset, xor, zeros);
        if (stored !== undefined) {
          if (this.fsync) this.#pending.add(file);
          return stored;
        }
      }
    }
    // Unless writeAt takes its bytes at once (io "async", a subclass's own writeAt), the two
    // writes are chained.
    return writeSummedInTwo(this, key, offset, bytes, xor, zeros, this.positionalWritesAtOnce, options);
  }

  /**
   * The write thread when a positional write of `length` bytes into `key` goes there: not
   * durable, `unreferenced`, a valid offset, at most 2 MiB, no link on the way, the thread running
   * (or started by these bytes, counted, with `countTowardsStart`). The parents exist once the
   * files queued before are written; a missing one is reported by a write on this thread.
   */
  #threadForWriteAt(key: string, offset: number, durable: boolean, options: PutOptions | undefined, length: number, countTowardsStart: boolean): WriteThread | undefined {
    if (durable || options?.unreferenced !== true || !this.writeThread || !Number.isSafeInteger(offset) || offset < 0) return undefined;
    const thread = countTowardsStart ? readyWriteThread(length) : length <= LARGEST_QUEUED ? runningWriteThread() : undefined;
    return thread !== undefined && refuseLinksBetweenSync(this.root, key, false) ? thread : undefined;
  }

  /** Unlinks the file of `key` (with `io: "sync"` in the call); a missing file is ignored, directories are kept. */
  async delete(key: string): Promise<void> {
    settleWriteThread();
    const file = this.pathOf(key);
    // With io "sync" in the call, like list: a put of the key called after delete (and not
    // awaited) must find the file gone, never be unlinked later by this delete.
    if (this.io === "sync") return deleteFileSync(this.root, key, file);
    // A missing parent (or one that is a file) means there is nothing to delete.
    if (!(await refuseLinksBetween(this.root, key, false))) return;
    try {
      await unlink(file);
    } catch (error) {
      if (isMissing(error)) return;
      if (errorCode(error) === "EPERM") {
        // macOS reports EPERM for unlink on a directory; a directory is not a key.
        const existing = await stat(file).catch(() => undefined);
        if (existing?.isDirectory()) return;
      }
      throw storageFailure(error, key, "delete the file");
    }
  }
}
