/**
 * The file-system steps of a put's writes, shared by the calling thread (write-sync-node.ts) and
 * the write thread (write-thread-worker-node.ts): the in-place write (a new file created at the
 * key's own name and written there), the atomic one (a temporary file renamed over it) and the
 * positional write into an existing file (`writeAt`). Only `node:fs`: a failure comes back as the system error and the
 * step it happened in, and each caller turns it into the store's typed error the same way
 * (`inPlaceFailure` in write-sync-node.ts).
 *
 * @module
 */
import { closeSync, fdatasyncSync, fstatSync, constants as fsConstants, fsyncSync, openSync, renameSync, unlinkSync, writeSync, writevSync } from "node:fs";

/**
 * Open flags of an in-place write: a new file, never an existing one (and so never a FIFO, a
 * device, a hard link's shared inode or a symbolic link's target). O_NOFOLLOW is absent on
 * Windows, where O_EXCL alone refuses an existing link.
 */
const IN_PLACE_FLAGS = fsConstants.O_WRONLY | fsConstants.O_CREAT | fsConstants.O_EXCL | (fsConstants.O_NOFOLLOW ?? 0);

/** The step of an in-place write that failed: creating the file, removing what stood there, or writing. */
export type InPlaceStep = "create" | "replace" | "write";

/**
 * A failed step of {@link writeNewFileSync}, with the system error as it came.
 *
 * @example
 * ```ts
 * try { writeNewFileSync(file, bytes, false); } catch (e) { if (e instanceof InPlaceStepFailure) console.log(e.step); }
 * ```
 */
export class InPlaceStepFailure extends Error {
  /** The step that failed. */
  readonly step: InPlaceStep;
  /** The error of the system call (`code`, `errno`, `syscall`). */
  readonly error: unknown;

  constructor(step: InPlaceStep, error: unknown) {
    super(`in-place write failed at ${step}`);
    this.step = step;
    this.error = error;
  }
}

/**
 * Creates `file` anew and writes `value` into it (flushed when `durable`). When something stands
 * at the name (a file, a link — never what it points to — or a FIFO) it is removed and the file
 * created then. `"taken"` when the name is taken again between the removal and the second
 * creation (another process): nothing was written, and the caller writes atomically instead.
 * A failed write removes the file this call created. Throws {@link InPlaceStepFailure}.
 *
 * @example
 * ```ts
 * if (writeNewFileSync("/data/t.bcolz/data/__9.blp", bytes, false) === "taken") writeAtomically();
 * ```
 */
export function writeNewFileSync(file: string, value: Uint8Array, durable: boolean): "written" | "taken" {
  // The name is usually free (a new chunk): creating first and removing only what is found there
  // saves a removal that fails with ENOENT for every new file (a thrown error costs ~50 µs here,
  // 9 % of a create of 153 chunk files).
  let fd = createExclusively(file);
  if (fd === undefined) {
    try {
      unlinkSync(file);
    } catch (error) {
      if (codeOf(error) !== "ENOENT") throw new InPlaceStepFailure("replace", error);
    }
    fd = createExclusively(file);
    if (fd === undefined) return "taken";
  }
  try {
    writeAndClose(fd, value, durable);
  } catch (error) {
    // Only the file this call created is removed.
    removeQuietly(file);
    throw new InPlaceStepFailure("write", error);
  }
  return "written";
}

/** A new file at `file`, open for writing; `undefined` when something stands at the name. */
function createExclusively(file: string): number | undefined {
  try {
    return openSync(file, IN_PLACE_FLAGS, 0o666);
  } catch (error) {
    if (codeOf(error) === "EEXIST") return undefined;
    throw new InPlaceStepFailure("create", error);
  }
}

function codeOf(error: unknown): unknown {
  return typeof error === "object" && error !== null && "code" in error ? error.code : undefined;
}

/**
 * The atomic write: `value` written to `temp` (a new name next to `file`), flushed when
 * `durable`, then renamed over `file`. The calling thread's `writeFileAtomicallySync` is this, and
 * the write thread falls back to it when {@link writeNewFileSync} says `"taken"`. A failure
 * removes `temp` and throws {@link InPlaceStepFailure} at step `"create"` (reported as a failed
 * write of the file, or ALREADY_EXISTS when a directory stands at its name).
 *
 * @example
 * ```ts
 * writeThroughTemporarySync(file, temporaryPathFor(file), bytes, false);
 * ```
 */
export function writeThroughTemporarySync(file: string, temp: string, value: Uint8Array, durable: boolean): void {
  try {
    writeAndClose(openSync(temp, "wx"), value, durable);
    renameSync(temp, file);
  } catch (error) {
    removeQuietly(temp);
    throw new InPlaceStepFailure("create", error);
  }
}

/**
 * Open flags of a positional write: an existing file, never a symbolic link's target; without
 * waiting at a FIFO that has no reader (ENXIO instead, reported as something other than a file).
 * Also `FileSystemStore.writeAt`'s with `io: "async"`.
 */
export const WRITE_AT_FLAGS = fsConstants.O_WRONLY | (fsConstants.O_NOFOLLOW ?? 0) | (fsConstants.O_NONBLOCK ?? 0);

/**
 * The step of a positional write that failed: opening the file, finding something other than a
 * regular file, an offset past its end, or writing (and flushing).
 */
export type WriteAtStep = "open" | "kind" | "range" | "write";

/**
 * A failed step of {@link writeAtSync}: the system error as it came (`open`, `write`), or the
 * file's size (`range`).
 *
 * @example
 * ```ts
 * try { writeAtSync(file, 8, bytes, false); } catch (e) { if (e instanceof WriteAtFailure && e.step === "range") console.log(e.size); }
 * ```
 */
export class WriteAtFailure extends Error {
  /** The step that failed. */
  readonly step: WriteAtStep;
  /** The error of the system call (`open`, `write`). */
  readonly error: unknown;
  /** The file's size (`range`). */
  readonly size: number;

  constructor(step: WriteAtStep, error?: unknown, size = 0) {
    super(`positional write failed at ${step}`);
    this.step = step;
    this.error = error;
    this.size = size;
  }
}

/**
 * Writes `value` into the existing regular file `file` at `offset` (at most its size: writing at
 * the end appends), then `zeros` zero bytes after it, flushed when `durable`. Throws
 * {@link WriteAtFailure}.
 *
 * @example
 * ```ts
 * writeAtSync("/data/t.bcolz/data/__1__.bin", 0, header, false);
 * writeAtSync("/data/t.bcolz/data/__1__.bin", 4160, chunkAndSum, false, 52428); // then spare room
 * ```
 */
export function writeAtSync(file: string, offset: number, value: Uint8Array, durable: boolean, zeros = 0): void {
  let fd: number;
  try {
    fd = openSync(file, WRITE_AT_FLAGS);
  } catch (error) {
    throw new WriteAtFailure(codeOf(error) === "ENXIO" ? "kind" : "open", error);
  }
  let size: number;
  try {
    const info = fstatSync(fd);
    if (!info.isFile()) throw new WriteAtFailure("kind");
    size = info.size;
    if (!Number.isSafeInteger(offset) || offset < 0 || offset > size) throw new WriteAtFailure("range", undefined, size);
  } catch (error) {
    closeQuietly(fd);
    throw error instanceof WriteAtFailure ? error : new WriteAtFailure("write", error);
  }
  try {
    writeAndClose(fd, value, durable, offset, fdatasyncSync, zeros);
  } catch (error) {
    throw new WriteAtFailure("write", error);
  }
}

/** Zero bytes, grown by doubling to the most asked for: the source of the zeros `writeAtSync` writes. */
let zeroBytes = new Uint8Array(0);

function zerosOf(length: number): Uint8Array {
  if (zeroBytes.length < length) zeroBytes = new Uint8Array(Math.max(length, 2 * zeroBytes.length));
  return zeroBytes.subarray(0, length);
}

/**
 * Writes all of `value` into `fd` at `offset`, and `zeros` zero bytes after it, flushes it with
 * `flush` when `durable` (a new file's size and name need `fsync`; a write into an existing file,
 * its data), and closes it (also when a step fails).
 */
function writeAndClose(fd: number, value: Uint8Array, durable: boolean, offset = 0, flush: (fd: number) => void = fsyncSync, zeros = 0): void {
  let open = true;
  try {
    // Value and zeros in one call as a rule; whatever a short write left, one piece at a time.
    let written = zeros > 0 ? writevSync(fd, [value, zerosOf(zeros)], offset) : 0;
    const total = value.length + zeros;
    while (written < total) {
      written += written < value.length
        ? writeSync(fd, value, written, value.length - written, offset + written)
        : writeSync(fd, zerosOf(total - written), 0, total - written, offset + written);
    }
    if (durable) flush(fd);
    open = false;
    closeSync(fd);
  } catch (error) {
    if (open) closeQuietly(fd);
    throw error;
  }
}

function closeQuietly(fd: number): void {
  try {
    closeSync(fd);
  } catch {
    // A step already failed; its error is the one to report.
  }
}

/** Removes the file a failed write created; a failure to do so changes nothing to report. */
function removeQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // The write already failed; its error is the one to report.
  }
}
