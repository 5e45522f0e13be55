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
import type { PoolReply, PoolRequest, PoolResult, PoolTask } from "./pool-protocol.js";

type Compress = (data: Uint8Array, options: unknown) => Uint8Array;

function run(task: PoolTask): Uint8Array {
  const data = new Uint8Array(task.input, task.offset, task.length);
  if (task.op === "decompress") return api.decompress(data, task.options);
  const compress = (api as Record<string, unknown>)["compress"];
  if (typeof compress !== "function") throw new UsageError("INVALID_ARGUMENT", "this build of @fmt/blosc has no compress()", { field: "op", actual: task.op });
  return (compress as Compress)(data, task.options);
}

const port = parentPort;
if (port !== null) {
  port.on("message", (request: PoolRequest) => {
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
