/**
 * Body of a Node worker thread of `createBloscPool` (`./pool-node.ts`): decodes or encodes the
 * batches it receives with this package's own functions and transfers the results back.
 *
 * @example
 * ```ts
 * new Worker(new URL("./pool-worker-node.js", import.meta.url));
 * ```
 * @module
 */
/// <reference types="node" />
import { parentPort } from "node:worker_threads";
import { UsageError } from "@fmt/errors";
import * as api from "./index.js";
import { serializeError } from "./pool-protocol.js";
import type { PoolDecodeReply, PoolDecodeRequest, PoolReply, PoolRequest, PoolResult, PoolTask } from "./pool-protocol.js";

type Compress = (data: Uint8Array, options: unknown) => Uint8Array;

function run(task: PoolTask): Uint8Array {
  const data = new Uint8Array(task.input, task.offset, task.length);
  if (task.op === "decompress") return api.decompress(data, task.options);
  const compress = (api as Record<string, unknown>)["compress"];
  if (typeof compress !== "function") throw new UsageError("INVALID_ARGUMENT", "this build of @fmt/blosc has no compress()", { field: "op", actual: task.op });
  return (compress as Compress)(data, task.options);
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
      const chunk = new Uint8Array(request.input, request.offsets[i]!, request.lengths[i]!);
      api.decompressInto(chunk, new Uint8Array(into, at, n), request.options?.[i]);
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

const port = parentPort;
// The zstd encoder loads asynchronously; load it before listening so every compress request can
// use it (the port queues messages that arrive meanwhile).
await api.initCompression();
if (port !== null) {
  port.on("message", (message: PoolRequest | PoolDecodeRequest) => {
    if (message.kind === "decodeRun") {
      port.postMessage(...decodeRun(message));
      return;
    }
    const request = message;
    const results: PoolResult[] = [];
    const transfer: ArrayBuffer[] = [];
    for (const task of request.tasks) {
      try {
        const value = run(task);
        results.push({ ok: true, value });
        // Our results own whole, unshared buffers; anything else is cloned, not transferred.
        if (value.byteOffset === 0 && value.byteLength === value.buffer.byteLength && value.buffer instanceof ArrayBuffer) transfer.push(value.buffer);
      } catch (error) {
        results.push({ ok: false, error: serializeError(error) });
      }
    }
    const inputs = request.tasks.map((task) => task.input);
    const reply: PoolReply = { batch: request.batch, inputs, results };
    port.postMessage(reply, [...transfer, ...inputs]);
  });
}
