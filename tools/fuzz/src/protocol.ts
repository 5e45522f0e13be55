/**
 * Messages and shared counters between the fuzz driver and its worker threads.
 *
 * The worker writes its progress into a shared Int32Array so the driver's watchdog can see which
 * input is running (and for how long) even while the worker is stuck in a synchronous loop, and
 * so the outcome counts survive a worker that is terminated or dies.
 *
 * @example
 * ```ts
 * const status = new Int32Array(new SharedArrayBuffer(STATUS_BYTES));
 * Atomics.load(status, SLOT.index);
 * ```
 * @packageDocumentation
 */
import { ERROR_CODES } from "@fmt/errors";
import type { Outcome } from "./outcome.js";

/**
 * The error codes in a fixed order: typed outcomes are counted in slot `SLOT.typed + position`.
 *
 * @example
 * ```ts
 * CODES.indexOf("TRUNCATED"); // 0
 * ```
 */
export const CODES: readonly string[] = Object.keys(ERROR_CODES);

/**
 * Slots of the shared status array.
 *
 * @example
 * ```ts
 * Atomics.add(status, SLOT.ok, 1);
 * ```
 */
export const SLOT = {
  /** Incremented when an input starts: the watchdog's sign of progress. */
  started: 0,
  /** 1 while an input runs. */
  busy: 1,
  /** Index of the running (or last) input. */
  index: 2,
  ok: 3,
  untyped: 4,
  memory: 5,
  /** Typed outcomes whose code is not in {@link CODES} (cannot happen unless the codes change). */
  otherTyped: 6,
  typed: 7,
} as const;

/**
 * Size of the shared status buffer in bytes.
 *
 * @example
 * ```ts
 * new SharedArrayBuffer(STATUS_BYTES);
 * ```
 */
export const STATUS_BYTES = (SLOT.typed + CODES.length) * 4;

/**
 * What the worker is started with (`workerData`).
 *
 * @example
 * ```ts
 * new Worker(url, { workerData: { target: "dtype", corpusDir, status } satisfies WorkerSetup });
 * ```
 */
export interface WorkerSetup {
  target: string;
  /** URL of a module whose `target` export replaces the registry entry (tests of the driver). */
  targetModule?: string | undefined;
  corpusDir: string;
  status: SharedArrayBuffer;
}

/**
 * Driver → worker: run generated inputs `start, start + stride, …` (at most `count`, and stop
 * at `deadline` ms since the epoch unless 0), or run one given input.
 *
 * @example
 * ```ts
 * worker.postMessage({ type: "range", seed: 1, start: 0, stride: 2, count: 1000, deadline: 0 } satisfies ToWorker);
 * ```
 */
export type ToWorker =
  | { type: "range"; seed: number; start: number; stride: number; count: number; deadline: number }
  | { type: "replay"; files: [string, Uint8Array][] };

/**
 * Worker → driver.
 *
 * @example
 * ```ts
 * worker.on("message", (m: FromWorker) => { if (m.type === "finding") console.log(m.index); });
 * ```
 */
export type FromWorker =
  | { type: "ready"; seeds: number }
  | { type: "finding"; index: number; outcome: Outcome }
  | { type: "done"; next: number; ran: number }
  | { type: "outcome"; outcome: Outcome }
  /** The target cannot run at all (no seeds, seeds that fail to build): a fuzzer bug, not a finding. */
  | { type: "fatal"; message: string };
