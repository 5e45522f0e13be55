/**
 * Reads of {@link FileSystemStore} done on the calling thread (`io: "sync"`, the default).
 *
 * Why: an asynchronous read of a file is four trips through libuv's thread pool (open, fstat,
 * read, close), each a promise and a wake-up of the event loop. For the chunk files of a dataset
 * (a few hundred KiB each, usually in the page cache) those trips cost five to seven times the
 * read itself: 153 chunk files of a 10 M-row carray took 40 ms one after another through
 * `fs/promises` and 6 ms with `readSync` (tools/bench/README.md). The calls here block the event
 * loop for as long as the kernel takes to copy the bytes, which for a cached file is microseconds
 * per chunk; a server that must never block sets `io: "async"`.
 *
 * The checks are those of the asynchronous path: one open without blocking (`O_NONBLOCK`, so a
 * FIFO never hangs), `fstat` of the opened descriptor, only regular files read, at most the size
 * `fstat` reported.
 *
 * @example
 * ```ts
 * const bytes = readFileChecked("/data/x.bcolz/meta/sizes", "meta/sizes", undefined, 1 << 20);
 * ```
 * @module
 */
import { closeSync, constants as fsConstants, fstatSync, openSync, readSync, readvSync } from "node:fs";
import { FormatError, StorageError } from "@fmt/errors";
import { isMissing, storageFailure } from "./file-safety-node.js";
import { READ_BUFFER_OFFSET, resolveRangeInto } from "./index.js";
import type { ByteRange } from "./index.js";

const READ_FLAGS = fsConstants.O_RDONLY | (fsConstants.O_NONBLOCK ?? 0);

/**
 * How `fstat` describes something that is neither a regular file nor a directory.
 *
 * @example
 * ```ts
 * fileKind(fstatSync(fd)); // "a FIFO"
 * ```
 */
export function fileKind(info: { isFIFO(): boolean; isSocket(): boolean; isCharacterDevice(): boolean; isBlockDevice(): boolean }): string {
  if (info.isFIFO()) return "a FIFO";
  if (info.isSocket()) return "a socket";
  if (info.isCharacterDevice()) return "a character device";
  if (info.isBlockDevice()) return "a block device";
  return "not a regular file";
}

/**
 * Reads a regular file, or the bytes `[start, end)` of it clipped at its end, synchronously.
 * `range` absent: the whole file, refused over `maxBytes` (`SIZE_LIMIT`). `undefined` when the
 * file is missing, a parent is not a directory, or the path is a directory.
 *
 * @param file - the absolute path.
 * @param key - the store key, for errors.
 * @param range - `resolve(size)` gives the byte window once the size is known.
 * @param maxBytes - the largest whole file read.
 * @param into - read into this buffer when the bytes fit (the result is then a view of it).
 * @example
 * ```ts
 * const head = readFileChecked(path, key, (size) => ({ start: 0, end: Math.min(16, size) }), Infinity);
 * ```
 */
export function readFileChecked(
  file: string,
  key: string,
  range: ((size: number) => { start: number; end: number }) | undefined,
  maxBytes: number,
  into?: Uint8Array,
): Uint8Array | undefined {
  return withRegularFile(file, key, (fd, size) => {
    let start = 0;
    let end = size;
    if (range === undefined) {
      if (size > maxBytes) {
        throw new FormatError("SIZE_LIMIT", "file is larger than the store's maxValueBytes", { path: key, field: "size", expected: `<= ${maxBytes}`, actual: size });
      }
    } else {
      ({ start, end } = range(size));
    }
    return readWindow(fd, key, start, end, into);
  });
}

/**
 * Several windows of a regular file, read synchronously through one descriptor: each of `ranges`
 * is resolved into its window (as `resolveRange` does) once the size is known. `into[i]`, when given and
 * long enough, receives window `i` (which is then a view of it). `undefined` as
 * {@link readFileChecked}.
 *
 * No closure is made per call: V8 keeps the optimized code of a closure made per call only while
 * one lives, and every garbage collection then sent the next reads through the interpreter.
 *
 * @example
 * ```ts
 * const parts = readRangesChecked(path, key, [{ offset: 0, length: 16 }]);
 * ```
 */
export function readRangesChecked(file: string, key: string, ranges: readonly ByteRange[], into?: readonly (Uint8Array | undefined)[]): Uint8Array[] | undefined {
  const opened = openRegularFileSync(file, key);
  if (opened === undefined) return undefined;
  const { fd, size } = opened;
  try {
    // The windows' offsets go into arrays kept between calls (this function never yields, so no
    // other call uses them meanwhile): a `where` pass reads eight windows of each chunk file, and
    // what a pass allocates per file costs page faults in a young process (tools/bench/README.md).
    const starts = windowStarts;
    const ends = windowEnds;
    // One allocation for the windows without a lent buffer (a single row reads eight, some of
    // one byte): they share its memory.
    let total = 0;
    const window = resolvedWindow;
    for (let i = 0; i < ranges.length; i++) {
      resolveRangeInto(ranges[i]!, size, window);
      starts[i] = window.start;
      ends[i] = window.end;
      if (lentFor(into, i, window.end - window.start) === undefined) total += window.end - window.start;
    }
    // The offset also for a few bytes (a chunk's container header): with allocations of 16
    // bytes a `where` pass took ~30 page faults in every run, with these 2 (tools/bench/README.md).
    const memory = total === 0 ? undefined : new ArrayBuffer(total + READ_BUFFER_OFFSET);
    let at = READ_BUFFER_OFFSET;
    const parts: Uint8Array[] = [];
    for (let i = 0; i < ranges.length; i++) {
      const start = starts[i]!;
      const end = ends[i]!;
      let destination = lentFor(into, i, end - start);
      if (destination === undefined) {
        // No memory of its own when every part was lent a buffer or is empty.
        destination = memory === undefined ? new Uint8Array(0) : new Uint8Array(memory, at, end - start);
        at += end - start;
      }
      parts.push(destination);
    }
    for (let i = 0; i < ranges.length; i++) {
      const start = starts[i]!;
      const end = ends[i]!;
      // Two windows that meet (a chunk file's container header and the chunk's head) in one
      // system call: a `where` pass makes ten or so per chunk file, and they are most of its time.
      if (i + 1 < ranges.length && end === starts[i + 1] && start < end && end < ends[i + 1]!) {
        const next = ends[i + 1]!;
        const pair = [exactly(parts[i]!, end - start), exactly(parts[i + 1]!, next - end)];
        if (readPair(fd, key, start, pair) === next - start) {
          parts[i] = pair[0]!;
          parts[i + 1] = pair[1]!;
          i++;
          continue;
        }
      }
      parts[i] = readWindow(fd, key, start, end, parts[i]);
    }
    return parts;
  } finally {
    closeQuietly(fd);
  }
}

/** Bytes read by one `preadv` into `pair` from `start` (fewer where the file ends: the caller then reads each window alone). */
function readPair(fd: number, key: string, start: number, pair: Uint8Array[]): number {
  try {
    return readvSync(fd, pair, start);
  } catch (error) {
    throw storageFailure(error, key, "read the file");
  }
}

/** The first `length` bytes of `buffer`: itself when that is all of it. */
function exactly(buffer: Uint8Array, length: number): Uint8Array {
  return buffer.length === length ? buffer : buffer.subarray(0, length);
}

/** The windows of the current {@link readRangesChecked} call. */
const windowStarts: number[] = [];
const windowEnds: number[] = [];
const resolvedWindow = { start: 0, end: 0 };

/** The buffer lent for window `i` when it holds `length` bytes. */
function lentFor(into: readonly (Uint8Array | undefined)[] | undefined, i: number, length: number): Uint8Array | undefined {
  const buffer = into?.[i];
  return buffer !== undefined && buffer.length >= length ? buffer : undefined;
}

/**
 * The size of the regular file `file` (checked as {@link readFileChecked} checks it), read
 * synchronously; `undefined` when it is missing or a directory.
 *
 * @example
 * ```ts
 * const size = regularFileSize(path, "data/__0.blp");
 * ```
 */
export function regularFileSize(file: string, key: string): number | undefined {
  return withRegularFile(file, key, (_fd, size) => size);
}

// Opens `file` for reading, checks it is a regular file and runs `read` with its descriptor and
// size; `undefined` when it is missing or a directory. The descriptor is always closed.
function withRegularFile<T>(file: string, key: string, read: (fd: number, size: number) => T): T | undefined {
  const opened = openRegularFileSync(file, key);
  if (opened === undefined) return undefined;
  try {
    return read(opened.fd, opened.size);
  } finally {
    closeQuietly(opened.fd);
  }
}

// Opens `file` for reading and checks it is a regular file: its descriptor and size, which the
// caller closes; `undefined` when it is missing or a directory (read-async-node.ts's
// openRegularFile, on this thread).
function openRegularFileSync(file: string, key: string): { fd: number; size: number } | undefined {
  let fd: number;
  try {
    fd = openSync(file, READ_FLAGS);
  } catch (error) {
    if (isMissing(error)) return undefined;
    throw storageFailure(error, key, "open the file");
  }
  try {
    let info;
    try {
      info = fstatSync(fd);
    } catch (error) {
      throw storageFailure(error, key, "inspect the file");
    }
    if (!info.isFile()) {
      if (info.isDirectory()) {
        closeQuietly(fd);
        return undefined;
      }
      throw new StorageError("IO_ERROR", "the key names something other than a regular file", { path: key, field: "key", expected: "a regular file", actual: fileKind(info) });
    }
    return { fd, size: info.size };
  } catch (error) {
    closeQuietly(fd);
    throw error;
  }
}

function closeQuietly(fd: number): void {
  try {
    closeSync(fd);
  } catch {
    // A failed close of a descriptor opened only for reading loses nothing.
  }
}

/**
 * Uninitialised memory for `length` bytes read from a file, starting {@link READ_BUFFER_OFFSET}
 * bytes into its allocation (zeroed), where the kernel's copy from the page cache runs at full
 * speed; every byte of the view is overwritten by the read (a short read is cut off by the
 * caller). @internal
 *
 * @example
 * ```ts
 * const out = readDestination(size); // then readSync(fd, out, 0, size, 0)
 * ```
 */
export function readDestination(length: number): Uint8Array {
  const raw = Buffer.allocUnsafeSlow(length + READ_BUFFER_OFFSET);
  // The bytes before the view are reachable through its `buffer`: no stale heap there.
  raw.fill(0, 0, READ_BUFFER_OFFSET);
  return new Uint8Array(raw.buffer, raw.byteOffset + READ_BUFFER_OFFSET, length);
}

// Bytes [start, end) of an open file, cut short where the file ends.
function readWindow(fd: number, key: string, start: number, end: number, into: Uint8Array | undefined): Uint8Array {
  // Uninitialised memory: every byte is overwritten by the read (a short read is cut off below),
  // and zero-filling each chunk file's buffer first cost a measurable part of a whole-array read.
  const length = end - start;
  // A lent buffer of the window's exact size is read into as it is (no view made per read).
  const out = into !== undefined && into.length >= length ? exactly(into, length) : readDestination(length);
  let filled = 0;
  try {
    while (filled < out.length) {
      const n = readSync(fd, out, filled, out.length - filled, start + filled);
      if (n === 0) break;
      filled += n;
    }
  } catch (error) {
    throw storageFailure(error, key, "read the file");
  }
  return filled === out.length ? out : out.slice(0, filled);
}
