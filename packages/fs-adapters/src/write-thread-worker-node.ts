/**
 * The write thread's loop (started by write-thread-node.ts): takes queued files in order from the
 * shared ring, writes each in place with the calling thread's own code ({@link writeNewFileSync};
 * through a temporary file when another process takes the name, as the calling thread would) and
 * records the outcome in its descriptor. If the loop ever ends, it says so in `STOPPED`, so that
 * a calling thread blocked waiting for it stops waiting.
 *
 * @example
 * ```ts
 * new Worker(new URL("./write-thread-worker-node.js", import.meta.url), { workerData: { ring, control } });
 * ```
 * @module
 */
import { isAbsolute } from "node:path";
import { workerData } from "node:worker_threads";
import { temporaryPathFor } from "./file-safety-node.js";
import { InPlaceStepFailure, writeNewFileSync, writeThroughTemporarySync } from "./in-place-file-node.js";
import { DELAY, descriptor, F_ERRNO, F_OFFSET, F_PATH, F_STATUS, F_SYSCALL, F_VALUE, F_VALUE_AT, FINISHED, PROTOCOL, QUEUED, READY, STATUS, STOPPED, SYSCALLS } from "./write-thread-protocol-node.js";

const { ring, control } = workerData as { ring: SharedArrayBuffer; control: Int32Array };
const bytes = new Uint8Array(ring);
const text = Buffer.from(ring);
const STEP_STATUS = { create: STATUS.createFailed, replace: STATUS.replaceFailed, write: STATUS.writeFailed } as const;

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
    if (writeNewFileSync(path, value, false) === "taken") writeThroughTemporarySync(path, temporaryPathFor(path), value, false);
    return STATUS.written;
  } catch (error) {
    if (error instanceof InPlaceStepFailure) {
      const cause = error.error as { errno?: unknown; syscall?: unknown };
      if (typeof cause.errno === "number") {
        control[descriptor(n, F_ERRNO)] = cause.errno;
        control[descriptor(n, F_SYSCALL)] = Math.max(0, SYSCALLS.indexOf(cause.syscall as (typeof SYSCALLS)[number]));
        return STEP_STATUS[error.step];
      }
    }
    return STATUS.internal;
  }
}

try {
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
