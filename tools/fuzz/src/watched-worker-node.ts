/**
 * A fuzz worker thread under a watchdog: a V8 heap limit (`resourceLimits`), a per-input time
 * limit and a process-RSS limit. When an input runs too long or memory goes over the limit the
 * worker is terminated and the input it was running is reported.
 *
 * @example
 * ```ts
 * const w = new WatchedWorker("dtype", corpusDir, limits, status);
 * await w.start();
 * const outcome = await w.replay(input);
 * await w.stop();
 * ```
 * @packageDocumentation
 */
import { Worker } from "node:worker_threads";
import type { FuzzInput } from "./input.js";
import { toEntries } from "./input.js";
import { classifyError, type Outcome } from "./outcome.js";
import { SLOT, STATUS_BYTES, type FromWorker, type ToWorker, type WorkerSetup } from "./protocol.js";

/**
 * Limits of one worker.
 *
 * @example
 * ```ts
 * const limits: Limits = { timeoutMs: 2000, memoryMb: 512, rssMb: 3072 };
 * ```
 */
export interface Limits {
  /** Per-input time limit. */
  timeoutMs: number;
  /** The worker's V8 old-generation heap limit. */
  memoryMb: number;
  /** Resident set size of the whole process above which running workers are stopped (typed arrays live outside the V8 heap). */
  rssMb: number;
}

/**
 * How a worker ended a task: normally, or killed by the watchdog or by an error (with the index
 * of the input that was running).
 *
 * @example
 * ```ts
 * if (end.kind === "killed") console.log(end.index, end.outcome.kind);
 * ```
 */
export type TaskEnd = { kind: "done"; next: number; ran: number } | { kind: "fatal"; message: string } | { kind: "outcome"; outcome: Outcome } | { kind: "killed"; index: number; outcome: Outcome };

const POLL_MS = 25;

/**
 * One watched worker thread running one target.
 *
 * @example
 * ```ts
 * const end = await worker.range({ type: "range", seed: 1, start: 0, stride: 1, count: 100, deadline: 0 }, onFinding);
 * ```
 */
export class WatchedWorker {
  readonly target: string;
  readonly corpusDir: string;
  readonly limits: Limits;
  /** Counters shared with the worker (kept across restarts). */
  readonly status: Int32Array;
  #worker: Worker | undefined;
  #statusBuffer: SharedArrayBuffer;

  readonly targetModule: string | undefined;

  /** `targetModule`: URL of a module exporting `target`, used instead of the registry entry `target`. */
  constructor(target: string, corpusDir: string, limits: Limits, status?: SharedArrayBuffer, targetModule?: string) {
    this.target = target;
    this.targetModule = targetModule;
    this.corpusDir = corpusDir;
    this.limits = limits;
    this.#statusBuffer = status ?? new SharedArrayBuffer(STATUS_BYTES);
    this.status = new Int32Array(this.#statusBuffer);
  }

  /** Spawns the worker (if none runs) and waits until its target is loaded. */
  async start(): Promise<void> {
    if (this.#worker !== undefined) return;
    const setup: WorkerSetup = { target: this.target, targetModule: this.targetModule, corpusDir: this.corpusDir, status: this.#statusBuffer };
    const worker = new Worker(new URL("./worker-node.js", import.meta.url), {
      workerData: setup,
      // The worker loads the built packages whatever export conditions the parent runs with (vitest adds "development").
      execArgv: [],
      resourceLimits: { maxOldGenerationSizeMb: this.limits.memoryMb, maxYoungGenerationSizeMb: 32 },
      stdout: true,
      stderr: true,
    });
    // Targets must not print; output of a misbehaving one is dropped rather than flooding the report.
    worker.stdout.resume();
    worker.stderr.resume();
    await new Promise<void>((resolve, reject) => {
      const onMessage = (m: FromWorker): void => {
        if (m.type === "ready") {
          worker.off("error", reject);
          worker.off("message", onMessage);
          resolve();
        }
      };
      worker.on("message", onMessage);
      worker.once("error", reject);
    });
    this.#worker = worker;
  }

  /** Terminates the worker. */
  async stop(): Promise<void> {
    const worker = this.#worker;
    this.#worker = undefined;
    if (worker !== undefined) await worker.terminate();
  }

  /**
   * Runs one task and resolves how it ended; `onFinding` receives untyped errors the worker
   * reports without dying.
   */
  async run(message: ToWorker, onFinding: (index: number, outcome: Outcome) => void = () => {}): Promise<TaskEnd> {
    await this.start();
    const worker = this.#worker!;
    const status = this.status;
    return new Promise<TaskEnd>((resolve) => {
      let lastStarted = Atomics.load(status, SLOT.started);
      let lastChange = Date.now();
      let settled = false;
      const finish = (end: TaskEnd, kill: boolean): void => {
        if (settled) return;
        settled = true;
        clearInterval(timer);
        worker.off("message", onMessage);
        worker.off("error", onError);
        worker.off("exit", onExit);
        if (kill) {
          this.#worker = undefined;
          void worker.terminate();
        }
        resolve(end);
      };
      const killed = (outcome: Outcome): void => {
        Atomics.store(status, SLOT.busy, 0);
        finish({ kind: "killed", index: Atomics.load(status, SLOT.index), outcome }, true);
      };
      const timer = setInterval(() => {
        const started = Atomics.load(status, SLOT.started);
        const now = Date.now();
        if (started !== lastStarted) {
          lastStarted = started;
          lastChange = now;
        } else if (Atomics.load(status, SLOT.busy) === 1 && now - lastChange > this.limits.timeoutMs) {
          killed({ kind: "hang", message: `no result after ${this.limits.timeoutMs} ms` });
          return;
        }
        const rssMb = process.memoryUsage.rss() / (1 << 20);
        if (rssMb > this.limits.rssMb) killed({ kind: "memory", message: `process RSS ${Math.round(rssMb)} MB > ${this.limits.rssMb} MB` });
      }, POLL_MS);
      const onMessage = (m: FromWorker): void => {
        if (m.type === "finding") onFinding(m.index, m.outcome);
        else if (m.type === "done") finish({ kind: "done", next: m.next, ran: m.ran }, false);
        else if (m.type === "outcome") finish({ kind: "outcome", outcome: m.outcome }, false);
        else if (m.type === "fatal") finish({ kind: "fatal", message: m.message }, false);
      };
      const onError = (error: Error): void => {
        const code = (error as { code?: unknown }).code;
        if (code === "ERR_WORKER_OUT_OF_MEMORY") killed({ kind: "memory", message: `worker heap over ${this.limits.memoryMb} MB` });
        else {
          // An error that escapes the target's promise (an unhandled rejection, a throw from a
          // callback) kills the worker: it is an untyped error of the running input.
          const outcome = classifyError(error);
          killed(outcome.kind === "typed" ? { kind: "untyped", message: `escaped the call: ${error.message}` } : outcome);
        }
      };
      const onExit = (): void => killed({ kind: "untyped", message: "worker exited" });
      worker.on("message", onMessage);
      worker.on("error", onError);
      worker.on("exit", onExit);
      worker.postMessage(message);
    });
  }

  /** Runs one given input and returns its outcome (a killed worker is restarted on the next call). */
  async replay(input: FuzzInput): Promise<Outcome> {
    const end = await this.run({ type: "replay", files: toEntries(input) });
    return end.kind === "outcome" ? end.outcome : end.kind === "killed" ? end.outcome : { kind: "ok" };
  }
}
