/**
 * The worker side of the pool protocol (`./pool-protocol.ts`), shared by the Node worker thread
 * and the Web Worker: turns one request into its reply and the buffers to transfer with it.
 * Browser-safe.
 *
 * @example
 * ```ts
 * import { answerPoolMessage } from "./pool-serve.js";
 * port.on("message", (message) => port.postMessage(...answerPoolMessage(message)));
 * ```
 * @module
 */
import { serializeError, UsageError } from "@fmt/errors";
import { compress, compressInto } from "./compress.js";
import type { CompressOptions } from "./compress.js";
import { decompress, decompressInto } from "./decompress.js";
import type { PoolDecodeReply, PoolDecodeRequest, PoolReply, PoolRequest, PoolResult, PoolTask } from "./pool-protocol.js";

function run(task: PoolTask): Uint8Array {
  const data = new Uint8Array(task.input, task.offset, task.length);
  // Options crossed the thread boundary as plain data; compress and decompress check every field.
  if (task.op === "decompress") return decompress(data, task.options);
  if (task.op === "compressInto") {
    const { output, headroom = 0 } = task;
    if (!(output instanceof ArrayBuffer)) {
      throw new UsageError("INVALID_ARGUMENT", "a compressInto task needs an output buffer", { field: "task.output", expected: "ArrayBuffer", actual: typeof output });
    }
    if (!Number.isSafeInteger(headroom) || headroom < 0 || headroom > output.byteLength) {
      throw new UsageError("INVALID_ARGUMENT", "a compressInto task's headroom must lie inside its output buffer", { field: "task.headroom", expected: `0..${output.byteLength}`, actual: headroom });
    }
    const cbytes = compressInto(data, task.options as unknown as CompressOptions, new Uint8Array(output, headroom));
    return new Uint8Array(output, headroom, cbytes);
  }
  return compress(data, task.options as unknown as CompressOptions);
}

// One output buffer for the whole run: one allocation (and one transfer) instead of one per chunk.
function decodeRun(request: PoolDecodeRequest): [PoolDecodeReply, ArrayBuffer[]] {
  const started = performance.now();
  let total = 0;
  for (const n of request.nbytes) total += n;
  const output = request.target === undefined ? new ArrayBuffer(total) : new ArrayBuffer(0);
  const into = request.target ?? output;
  const errors: PoolDecodeReply["errors"] = [];
  let at = request.target === undefined ? 0 : (request.targetOffset ?? 0);
  const claims = request.claims === undefined || request.target === undefined ? undefined : new Int32Array(request.claims);
  for (let i = 0; i < request.nbytes.length; i++) {
    const n = request.nbytes[i]!;
    if (claims !== undefined && Atomics.compareExchange(claims, i, 0, 1) !== 0) break;
    let state = 2;
    try {
      const chunk = new Uint8Array(request.input, request.offsets[i], request.lengths[i]);
      decompressInto(chunk, new Uint8Array(into, at, n), request.options?.[i]);
    } catch (error) {
      errors.push([i, serializeError(error)]);
      state = 3;
    }
    if (claims !== undefined) {
      Atomics.store(claims, i, state);
      Atomics.notify(claims, i);
    }
    at += n;
  }
  return [{ kind: "decodeRun", batch: request.batch, input: request.input, output, errors, elapsed: performance.now() - started }, request.input instanceof ArrayBuffer ? [request.input, output] : [output]];
}

function answerTasks(request: PoolRequest): [PoolReply, ArrayBuffer[]] {
  const results: PoolResult[] = [];
  const transfer: ArrayBuffer[] = [];
  for (const task of request.tasks) {
    try {
      const value = run(task);
      results.push({ ok: true, value });
      // Our results own whole, unshared buffers (or are views of the task's own output buffer);
      // anything else is cloned, not transferred.
      if (value.buffer === task.output) transfer.push(task.output);
      else if (value.byteOffset === 0 && value.byteLength === value.buffer.byteLength && value.buffer instanceof ArrayBuffer) transfer.push(value.buffer);
    } catch (error) {
      results.push({ ok: false, error: serializeError(error) });
    }
  }
  const inputs = request.tasks.map((task) => task.input);
  return [{ batch: request.batch, inputs, results }, [...transfer, ...inputs]];
}

/**
 * The reply to one pool message and the buffers to transfer with it (the inputs go back for
 * reuse, the results without a copy). Failures of single tasks or chunks are part of the reply.
 *
 * @example
 * ```ts
 * const [reply, transfer] = answerPoolMessage({ batch: 1, tasks: [task] });
 * postMessage(reply, transfer);
 * ```
 */
export function answerPoolMessage(message: PoolRequest | PoolDecodeRequest): [PoolReply | PoolDecodeReply, ArrayBuffer[]] {
  return message.kind === "decodeRun" ? decodeRun(message) : answerTasks(message);
}
