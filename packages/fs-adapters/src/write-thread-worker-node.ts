/**
 * The write thread's loop (started by write-thread-node.ts): takes queued files in order from the
 * shared ring, writes each in place with the calling thread's own code ({@link writeNewFileSync})
 * and records the outcome in its descriptor.
 *
 * @example
 * ```ts
 * new Worker(new URL("./write-thread-worker-node.js", import.meta.url), { workerData: { ring, control } });
 * ```
 * @module
 */
import { workerData } from "node:worker_threads";
import { InPlaceStepFailure, writeNewFileSync } from "./in-place-file-node.js";
import { descriptor, F_ERRNO, F_OFFSET, F_PATH, F_STATUS, F_SYSCALL, F_VALUE, F_VALUE_AT, FINISHED, QUEUED, READY, STATUS, SYSCALLS } from "./write-thread-protocol-node.js";

const { ring, control } = workerData as { ring: SharedArrayBuffer; control: Int32Array };
const bytes = new Uint8Array(ring);
const text = Buffer.from(ring);
const STEP_STATUS = { create: STATUS.createFailed, replace: STATUS.replaceFailed, write: STATUS.writeFailed } as const;

Atomics.store(control, READY, 1);
Atomics.notify(control, READY);
for (;;) {
  const n = Atomics.load(control, FINISHED);
  while (Atomics.load(control, QUEUED) === n) Atomics.wait(control, QUEUED, n);
  const at = control[descriptor(n, F_OFFSET)]!;
  const path = text.toString("utf8", at, at + control[descriptor(n, F_PATH)]!);
  const valueAt = at + control[descriptor(n, F_VALUE_AT)]!;
  const value = bytes.subarray(valueAt, valueAt + control[descriptor(n, F_VALUE)]!);
  let status: number;
  try {
    status = writeNewFileSync(path, value, false) === "written" ? STATUS.written : STATUS.taken;
  } catch (error) {
    status = STATUS.internal;
    if (error instanceof InPlaceStepFailure) {
      const cause = error.error as { errno?: unknown; syscall?: unknown };
      if (typeof cause.errno === "number") {
        status = STEP_STATUS[error.step];
        control[descriptor(n, F_ERRNO)] = cause.errno;
        control[descriptor(n, F_SYSCALL)] = Math.max(0, SYSCALLS.indexOf(cause.syscall as (typeof SYSCALLS)[number]));
      }
    }
  }
  control[descriptor(n, F_STATUS)] = status;
  Atomics.store(control, FINISHED, (n + 1) | 0);
  Atomics.notify(control, FINISHED);
}
