// The setup the write thread's tests share: a scratch directory for their stores (removed after
// the file), the process's write thread started before the first test, and a fresh root per case.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll } from "vitest";
import { startWriteThread } from "@fmt/fs-adapters/node";
import { startedWriteThread } from "../src/write-thread-node.js";
import type { WriteThread } from "../src/write-thread-node.js";

/**
 * The scratch directory and the write thread of a test file, ready once its `beforeAll` ran.
 *
 * @example
 * ```ts
 * const scratch = useWriteThreadScratch("fmt-write-thread-");
 * it("...", async () => { const store = new FileSystemStore(scratch.freshRoot()); });
 * ```
 */
export interface WriteThreadScratch {
  /** The scratch directory. */
  readonly dir: string;
  /** The process's write thread (its counters). */
  readonly thread: WriteThread;
  /** A new directory name under the scratch directory (not created). */
  freshRoot(): string;
}

/** Registers the hooks that make a {@link WriteThreadScratch} for the calling test file. */
export function useWriteThreadScratch(prefix: string): WriteThreadScratch {
  let dir: string | undefined;
  let thread: WriteThread | undefined;
  let counter = 0;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), prefix));
    await startWriteThread();
    thread = await startedWriteThread();
  });
  afterAll(async () => {
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  });
  const ready = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error("useWriteThreadScratch: used before its beforeAll ran");
    return value;
  };
  return {
    get dir() {
      return ready(dir);
    },
    get thread() {
      return ready(thread);
    },
    freshRoot: () => join(ready(dir), `case-${counter++}`),
  };
}
