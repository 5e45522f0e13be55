/**
 * What the calling thread and the write thread share (write-thread-node.ts,
 * write-thread-worker-node.ts): a ring of bytes holding each queued file's path and content, and
 * an `Int32Array` of counters and one descriptor per queued file. Both sides wait on and wake
 * each other through `Atomics`, never through messages: a message costs a round trip through
 * both event loops per file, which is what made an earlier writer thread slower than none.
 *
 * @module
 */

/** Index of the count of files queued so far (written by the calling thread). */
export const QUEUED = 0;
/** Index of the count of files the write thread has finished (written by the write thread). */
export const FINISHED = 1;
/** Index where the write thread puts {@link PROTOCOL} once it waits for work. */
export const READY = 2;
/** Index of the flag the write thread sets when its loop ends (a bug): nothing more gets finished. */
export const STOPPED = 3;
/** Index of a pause, in milliseconds, the write thread takes before each file (tests only). */
export const DELAY = 4;
/**
 * Index where the write thread puts 1, before {@link READY}, when it sums chunks in the ring itself
 * (the ring is a shared WebAssembly memory: ring-checksum-node.ts); 0 when it copies them first.
 */
export const SUMS_IN_RING = 5;
/** Descriptors begin after the counters. */
export const COUNTERS = 8;
/**
 * The version of this layout, which the write thread announces in {@link READY}: a worker script
 * from another build (the TypeScript sources run against an old `dist`) is refused, not misread.
 */
export const PROTOCOL = 6;
/** Descriptors in the control array (a power of two): at most this many files queued at once. */
export const DESCRIPTORS = 256;
/** Int32 fields per descriptor. */
export const FIELDS = 16;

/** Descriptor field: offset of the record (path, padding, value) in the ring. */
export const F_OFFSET = 0;
/** Descriptor field: bytes of the path (UTF-8). */
export const F_PATH = 1;
/** Descriptor field: offset of the value from the record's start (the path plus its padding). */
export const F_VALUE_AT = 2;
/** Descriptor field: bytes of the value. */
export const F_VALUE = 3;
/** Descriptor field: the outcome ({@link STATUS}), set by the write thread. */
export const F_STATUS = 4;
/** Descriptor field: the system error's `errno` when a step failed. */
export const F_ERRNO = 5;
/** Descriptor field: index of the failed system call in {@link SYSCALLS}. */
export const F_SYSCALL = 6;
/** Descriptor field: what to do ({@link KIND}). */
export const F_KIND = 7;
/**
 * Descriptor fields: a positional write's offset, low and high 32 bits (unsigned); when the
 * offset lies past the end of the file, the write thread puts the file's size there.
 */
export const F_AT_LOW = 8;
export const F_AT_HIGH = 9;
/**
 * Descriptor field: for a positional write whose record also asks for a checksum, how many of its
 * bytes, from the value's start, the Adler-32 covers (-1: no checksum). The four bytes after them
 * in the record are the sum's room, where the write thread puts the sum XOR {@link F_SUM_XOR},
 * little-endian, before it writes the whole value ({@link F_VALUE} covers them).
 */
export const F_SUMMED = 10;
/** Descriptor field: what the Adler-32 is XORed with before it is stored (an unsigned 32-bit value, as an int32). */
export const F_SUM_XOR = 11;
/** Descriptor field: the value stored (the sum XOR {@link F_SUM_XOR}), set by the write thread, as an int32. */
export const F_SUM = 12;
/**
 * Descriptor field: for a positional write, how many zero bytes the write thread writes after the
 * value (0: none). They are not in the ring: the calling thread would fill them in one byte at a
 * time (V8 fills shared memory with relaxed atomic stores), ~1.8 ms of a 10 M-row format-2 create.
 */
export const F_ZEROS = 13;

/** What a queued record asks for. */
export const KIND = {
  /** A new file at the path with the value (a put of a key no reader follows yet). */
  newFile: 0,
  /** The value written into the existing file at the offset (`writeAt`). */
  writeAt: 1,
} as const;

/** Outcomes of a queued file. */
export const STATUS = {
  written: 1,
  createFailed: 3,
  replaceFailed: 4,
  writeFailed: 5,
  /** Anything but a system error (a bug): reported without details. */
  internal: 6,
  /** `writeAt`: the file could not be opened. */
  atOpenFailed: 7,
  /** `writeAt`: something other than a regular file stands at the path. */
  atNotAFile: 8,
  /** `writeAt`: the offset lies past the end of the file (its size in `F_AT_LOW`, `F_AT_HIGH`). */
  atOutOfRange: 9,
  /** `writeAt`: writing failed. */
  atWriteFailed: 10,
} as const;

/** The system calls an in-place write makes, by index (`F_SYSCALL`). */
export const SYSCALLS = ["", "open", "write", "close", "unlink", "fsync", "rename", "fstat", "fdatasync"] as const;

/**
 * Index of descriptor field `field` of queued file number `n`.
 *
 * @example
 * ```ts
 * control[descriptor(7, F_STATUS)] = STATUS.written;
 * ```
 */
export function descriptor(n: number, field: number): number {
  // Counts are int32 and wrap; the mask keeps a wrapped (negative) count in range.
  return COUNTERS + (n & (DESCRIPTORS - 1)) * FIELDS + field;
}
