/**
 * The options of {@link FileSystemStore}: {@link FileSystemStoreOptions} and its default size
 * limit, {@link DEFAULT_MAX_VALUE_BYTES}. `@fmt/fs-adapters/node` re-exports both. Apart from the
 * store so that the option types and their documentation read on their own, as the S3 store's do
 * (s3-options.ts); a constant and a type, so no `node:` imports.
 *
 * @packageDocumentation
 */

/**
 * The largest file `get` reads by default: a little more than the largest chunk file format
 * version 1 allows (a 16-byte `blpk` header plus a Blosc chunk of at most 2^31 − 1 bytes).
 *
 * @example
 * ```ts
 * new FileSystemStore("/data/x.bcolz", { maxValueBytes: DEFAULT_MAX_VALUE_BYTES / 2 });
 * ```
 */
export const DEFAULT_MAX_VALUE_BYTES = 2 ** 31 + 16;

/**
 * Options of {@link FileSystemStore}.
 *
 * @example
 * ```ts
 * const options: FileSystemStoreOptions = { maxValueBytes: 64 * 1024 * 1024 };
 * ```
 */
export interface FileSystemStoreOptions {
  /**
   * `get` refuses (`FormatError` `SIZE_LIMIT`) a file larger than this many bytes before
   * allocating anything. Default {@link DEFAULT_MAX_VALUE_BYTES}. `getRange` reads at most the
   * requested length and is not limited.
   */
  maxValueBytes?: number;
  /**
   * How reads (`get`, `getRange`, `getRanges`, `getInto`), writes (`put`, `writeAt`), `list`,
   * `byteLength` and `delete` do their file work: `"sync"` (default) on the calling thread, in the
   * call (so a call not awaited still keeps its place before the calls made after it; the write
   * thread's puts take their place in its queue), `"async"` through libuv's thread pool. A synchronous read
   * of a cached chunk file takes microseconds; an asynchronous one costs four thread-pool round
   * trips (open, fstat, read, close), five to seven times the read itself for chunk files (see
   * tools/bench/README.md). Choose `"async"` when the files are on a slow or network file system
   * and the event loop must never wait for a disk (nor for the listing of a large tree).
   * Writes follow the same choice: `put` on the calling thread (temporary file, write, rename as
   * system calls in a row) or through the thread pool.
   */
  io?: "sync" | "async";
  /**
   * Whether writes are flushed to the disk (`fsync`) at the points that make them survive a power
   * loss: each durable `put`, each {@link FileSystemStore.sync}. Default `true`. With `false` the
   * store never flushes, as bcolz and numpy never do: the write order that keeps a dataset readable
   * when a writer is killed is unchanged, but after a power loss or a kernel crash recently written
   * files may be empty or old. Creating a 10 M-row carray costs about 60 ms less here (153 chunk
   * files), which is the whole difference between a durable create and bcolz's.
   */
  fsync?: boolean;
  /**
   * Whether new chunk files (in-place puts of keys no reader follows yet, not flushed at once:
   * what a create or an append writes) may be written by the process's write thread while this
   * thread goes on compressing the next chunk. Default `true`. `put` still takes the bytes before
   * it returns (they are copied into the thread's shared memory) and resolves once the file is
   * written, with the same errors; every other call of the store first waits for the files
   * queued before it, so calls keep their order. One thread serves all the stores of a JavaScript thread: it starts
   * once the stores have written 16 MiB of such files without it (or at
   * {@link startWriteThread}), never keeps the process alive while idle, and writes what is
   * queued before the process exits. Values over 2 MiB,
   * `io: "async"` and durable puts are written as before. With `false` this store writes every
   * file on the calling thread.
   */
  writeThread?: boolean;
}
