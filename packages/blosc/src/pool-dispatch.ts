/**
 * The dispatch loop both worker pools share (`pool-node.ts` for Node worker threads,
 * `pool-web.ts` for Web Workers): the queue of single-chunk tasks, the choice of the least busy
 * worker, batching, the routing of each reply (or failure) to the callers waiting on it, the loss
 * of a worker and the rejection of everything still waiting at close. What differs between the
 * hosts (how a message is posted, keeping an idle Node worker from holding the process open,
 * recycling input buffers) comes in as {@link DispatchHost} hooks. Browser-safe. @internal
 *
 * @packageDocumentation
 */
import { reviveError, UsageError } from "@fmt/errors";
import type { PoolDecodeReply, PoolReply, PoolRequest, PoolTask } from "./pool-protocol.js";

/** One task waiting for a worker, with its caller's promise. @internal */
export interface PendingTask {
  task: PoolTask;
  /** Bytes the task moves, for closing batches. */
  cost: number;
  resolve(value: Uint8Array): void;
  reject(error: unknown): void;
}

/** What a worker owes for one message it was sent: handle its reply, or its failure. @internal */
export interface InFlight {
  reply(message: PoolReply | PoolDecodeReply): void;
  fail(error: unknown): void;
}

/** A worker as the dispatcher sees it: its messages still unanswered, by batch id. @internal */
export interface DispatchSlot {
  inflight: Map<number, InFlight>;
}

/** The host-specific part of a pool. @internal */
export interface DispatchHost<S extends DispatchSlot> {
  /** Send a batch of tasks to a worker, transferring the tasks' input buffers. */
  post(slot: S, request: PoolRequest, transfer: ArrayBuffer[]): void;
  /** The worker had nothing in flight and now has (Node: `ref()` it). */
  busy?(slot: S): void;
  /** The worker's last message in flight was answered (Node: `unref()` it). */
  idle?(slot: S): void;
  /** A batch reply arrived, before its results are handed out (Node: recycle its input buffers). */
  batchReplied?(message: PoolReply): void;
  /** A failed worker was dropped from the pool (Web: terminate it). */
  dropped?(slot: S): void;
}

// A batch closes at this many tasks or bytes; two batches per worker stay in flight so that a
// worker never waits for its next message.
const BATCH_TASKS = 8;
const BATCH_BYTES = 2 * 1024 * 1024;
const BATCHES_PER_WORKER = 2;

/**
 * Queue, batches and workers of one pool.
 *
 * @example
 * ```ts
 * const dispatcher = new TaskDispatcher<Slot>({ post: (slot, request, transfer) => slot.worker.postMessage(request, transfer) });
 * dispatcher.addSlot(slot);
 * const bytes = await dispatcher.submit({ op: "compress", input, offset: 0, length, options }, length);
 * ```
 * @internal
 */
export class TaskDispatcher<S extends DispatchSlot> {
  /** The live workers. */
  readonly slots: S[] = [];
  readonly #queue: PendingTask[] = [];
  readonly #host: DispatchHost<S>;
  #nextBatch = 1;
  #lastFailure: unknown;

  constructor(host: DispatchHost<S>) {
    this.#host = host;
  }

  addSlot(slot: S): void {
    this.slots.push(slot);
  }

  /** What a task gets when no worker is left: the last worker's failure, else a UsageError. */
  noWorkers(): unknown {
    return this.#lastFailure ?? new UsageError("INVALID_ARGUMENT", "the Blosc pool has no workers", { field: "pool" });
  }

  /** A fresh message id (batches and the Node pool's decode runs share the numbering). */
  nextBatchId(): number {
    return this.#nextBatch++;
  }

  /** Record a message sent to `slot` under `id`. */
  track(slot: S, id: number, inflight: InFlight): void {
    if (slot.inflight.size === 0) this.#host.busy?.(slot);
    slot.inflight.set(id, inflight);
  }

  /** Queue a task; it leaves at once while a worker has room, otherwise as replies come back. */
  submit(task: PoolTask, cost: number): Promise<Uint8Array> {
    if (this.slots.length === 0) return Promise.reject(this.noWorkers());
    return new Promise<Uint8Array>((resolve, reject) => {
      this.#queue.push({ task, cost, resolve, reject });
      this.dispatch();
    });
  }

  /** Route a worker's reply to the message it answers, then send more work. */
  onReply(slot: S, reply: PoolReply | PoolDecodeReply): void {
    const run = slot.inflight.get(reply.batch);
    if (run === undefined) return;
    slot.inflight.delete(reply.batch);
    if (slot.inflight.size === 0) this.#host.idle?.(slot);
    run.reply(reply);
    this.dispatch();
  }

  /** A worker failed: what it owed fails with `error`, and it leaves the pool. */
  failSlot(slot: S, error: unknown): void {
    this.#lastFailure = error;
    for (const run of slot.inflight.values()) run.fail(error);
    slot.inflight.clear();
    const i = this.slots.indexOf(slot);
    if (i >= 0) this.slots.splice(i, 1);
    this.#host.dropped?.(slot);
    if (this.slots.length === 0) for (const p of this.#queue.splice(0)) p.reject(error);
    else this.dispatch();
  }

  /** Reject everything queued or in flight with `error`; returns the workers, now out of the pool. */
  close(error: unknown): S[] {
    for (const p of this.#queue.splice(0)) p.reject(error);
    const all = this.slots.splice(0);
    for (const s of all) {
      for (const run of s.inflight.values()) run.fail(error);
      s.inflight.clear();
    }
    return all;
  }

  /** Send queued tasks, in batches, to the least busy workers that have room. */
  dispatch(): void {
    while (this.#queue.length > 0) {
      let best: S | undefined;
      for (const s of this.slots) if (s.inflight.size < BATCHES_PER_WORKER && (best === undefined || s.inflight.size < best.inflight.size)) best = s;
      if (best === undefined) return;
      const batch: PendingTask[] = [];
      let bytes = 0;
      while (this.#queue.length > 0 && batch.length < BATCH_TASKS && bytes < BATCH_BYTES) {
        const p = this.#queue.shift()!;
        batch.push(p);
        bytes += p.cost;
      }
      const id = this.nextBatchId();
      const request: PoolRequest = { batch: id, tasks: batch.map((p) => p.task) };
      this.track(best, id, {
        reply: (message) => {
          if (message.kind === "decodeRun") return;
          this.#host.batchReplied?.(message);
          batch.forEach((p, k) => {
            const r = message.results[k];
            if (r === undefined) p.reject(new UsageError("INVALID_ARGUMENT", "worker reply is missing a result", { field: "pool.reply" }));
            else if (r.ok) p.resolve(r.value);
            else p.reject(reviveError(r.error));
          });
        },
        fail: (error) => {
          for (const p of batch) p.reject(error);
        },
      });
      const transfer: ArrayBuffer[] = [];
      for (const p of batch) {
        transfer.push(p.task.input);
        if (p.task.output !== undefined) transfer.push(p.task.output);
      }
      this.#host.post(best, request, transfer);
    }
  }
}
