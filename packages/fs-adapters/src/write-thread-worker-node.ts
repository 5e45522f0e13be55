/**
 * The write thread's loop (started by write-thread-node.ts): takes queued files in order from the
 * shared ring, writes each in place with the calling thread's own code ({@link writeNewFileSync};
 * through a temporary file when another process takes the name, as the calling thread would) and
 * records the outcome in its descriptor. A positional write may also ask for the Adler-32 of its
 * first bytes (the thread computes it and puts it in the record after them before it writes, so
 * that the calling thread does not pay for it; in the ring itself when the ring is a shared
 * WebAssembly memory, see ring-checksum-node.ts) and for zero bytes after its value. If the loop
 * ever ends, it says so in `STOPPED`, so that a calling thread blocked waiting for it stops
 * waiting.
 *
 * @example
 * ```ts
 * new Worker(new URL("./write-thread-worker-node.js", import.meta.url), { workerData: { ring, control, memory } });
 * ```
 * @module
 */
import { isAbsolute } from "node:path";
import { workerData } from "node:worker_threads";
import { adler32 } from "@fmt/header";
import { temporaryPathFor } from "./file-safety-node.js";
import { ringAdler32 } from "./ring-checksum-node.js";
import { InPlaceStepFailure, WriteAtFailure, writeAtSync, writeNewFileSync, writeThroughTemporarySync } from "./in-place-file-node.js";
import {
  DELAY, descriptor, F_AT_HIGH, F_AT_LOW, F_ERRNO, F_KIND, F_OFFSET, F_PATH, F_STATUS, F_SUM, F_SUM_XOR, F_SUMMED, F_SYSCALL, F_VALUE, F_VALUE_AT, F_ZEROS, FINISHED, KIND, PROTOCOL, QUEUED, READY, STATUS, STOPPED,
  SUMS_IN_RING, SYSCALLS,
} from "./write-thread-protocol-node.js";

// `memory`, when given, is the shared WebAssembly memory whose buffer is the ring.
const { ring, control, memory } = workerData as { ring: SharedArrayBuffer; control: Int32Array; memory?: WebAssembly.Memory };
/** The Adler-32 of bytes at an offset of the ring, where they lie; `undefined`: copied out first (@fmt/header). */
const adler32InRing = memory === undefined ? undefined : ringAdler32(memory);
const bytes = new Uint8Array(ring);
const text = Buffer.from(ring);
const STEP_STATUS = { create: STATUS.createFailed, replace: STATUS.replaceFailed, write: STATUS.writeFailed } as const;
const AT_STEP_STATUS = { open: STATUS.atOpenFailed, kind: STATUS.atNotAFile, range: STATUS.atOutOfRange, write: STATUS.atWriteFailed } as const;

/** Writes queued file `n`; its status. */
function write(n: number): number {
  const at = control[descriptor(n, F_OFFSET)]!;
  const path = text.toString("utf8", at, at + control[descriptor(n, F_PATH)]!);
  // Only absolute paths are ever queued: anything else is a damaged record, never a file to
  // write relative to the working directory.
  if (!isAbsolute(path)) return STATUS.internal;
  const valueAt = at + control[descriptor(n, F_VALUE_AT)]!;
  const value = bytes.subarray(valueAt, valueAt + control[descriptor(n, F_VALUE)]!);
  try {
    const summed = control[descriptor(n, F_SUMMED)]!;
    if (summed >= 0) {
      // A record without room for the sum after the summed bytes is damaged: never written.
      if (summed + 4 > value.length || control[descriptor(n, F_KIND)] !== KIND.writeAt) return STATUS.internal;
      putSum(n, value, summed);
    }
    const zeros = control[descriptor(n, F_ZEROS)]!;
    if (control[descriptor(n, F_KIND)] === KIND.writeAt) {
      // The calling thread queues a value with its zeros only up to a quarter of the ring
      // (LARGEST_QUEUED): more is damage.
      if (zeros < 0 || value.length + zeros > ring.byteLength / 4) return STATUS.internal;
      writeAtSync(path, (control[descriptor(n, F_AT_LOW)]! >>> 0) + (control[descriptor(n, F_AT_HIGH)]! >>> 0) * 2 ** 32, value, false, zeros);
    } else if (zeros !== 0) {
      return STATUS.internal;
    } else if (writeNewFileSync(path, value, false) === "taken") {
      writeThroughTemporarySync(path, temporaryPathFor(path), value, false);
    }
    return STATUS.written;
  } catch (error) {
    if (error instanceof WriteAtFailure) {
      if (error.step === "range") {
        control[descriptor(n, F_AT_LOW)] = error.size % 2 ** 32;
        control[descriptor(n, F_AT_HIGH)] = Math.floor(error.size / 2 ** 32);
        return STATUS.atOutOfRange;
      }
      if (error.step === "kind") return STATUS.atNotAFile;
      return recordSystemError(n, error.error) ? AT_STEP_STATUS[error.step] : STATUS.internal;
    }
    if (error instanceof InPlaceStepFailure && recordSystemError(n, error.error)) return STEP_STATUS[error.step];
    return STATUS.internal;
  }
}

/**
 * Puts the Adler-32 of the first `summed` bytes of `value` (a view of the ring: its `byteOffset` is
 * its offset there; XOR the record's `F_SUM_XOR`) into the four bytes after them, little-endian,
 * and into the descriptor for the calling thread.
 */
function putSum(n: number, value: Uint8Array, summed: number): void {
  const sum = adler32InRing === undefined ? adler32(value.subarray(0, summed)) : adler32InRing(value.byteOffset, summed);
  const stored = (sum ^ control[descriptor(n, F_SUM_XOR)]!) >>> 0;
  value[summed] = stored & 0xff;
  value[summed + 1] = (stored >>> 8) & 0xff;
  value[summed + 2] = (stored >>> 16) & 0xff;
  value[summed + 3] = stored >>> 24;
  control[descriptor(n, F_SUM)] = stored | 0;
}

/** Puts a system error's errno and call in descriptor `n`; `false` for anything else. */
function recordSystemError(n: number, error: unknown): boolean {
  const cause = error as { errno?: unknown; syscall?: unknown } | undefined;
  if (typeof cause?.errno !== "number") return false;
  control[descriptor(n, F_ERRNO)] = cause.errno;
  control[descriptor(n, F_SYSCALL)] = Math.max(0, SYSCALLS.indexOf(cause.syscall as (typeof SYSCALLS)[number]));
  return true;
}

try {
  Atomics.store(control, SUMS_IN_RING, adler32InRing === undefined ? 0 : 1);
  Atomics.store(control, READY, PROTOCOL);
  Atomics.notify(control, READY);
  for (;;) {
    const n = Atomics.load(control, FINISHED);
    while (Atomics.load(control, QUEUED) === n) Atomics.wait(control, QUEUED, n);
    const delay = Atomics.load(control, DELAY);
    if (delay > 0) Atomics.wait(control, DELAY, delay, delay);
    control[descriptor(n, F_STATUS)] = write(n);
    Atomics.store(control, FINISHED, (n + 1) | 0);
    Atomics.notify(control, FINISHED);
  }
} finally {
  Atomics.store(control, STOPPED, 1);
  Atomics.notify(control, FINISHED);
}
