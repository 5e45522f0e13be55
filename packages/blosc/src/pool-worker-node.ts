/**
 * Body of a Node worker thread of `createBloscPool` (`./pool-node.ts`): answers the batches it
 * receives with this package's own functions (see `./pool-serve.ts`) and transfers the results back.
 *
 * @example
 * ```ts
 * new Worker(new URL("./pool-worker-node.js", import.meta.url));
 * ```
 * @module
 */
/// <reference types="node" />
import { parentPort } from "node:worker_threads";
import { initCompression } from "./compress.js";
import type { PoolDecodeRequest, PoolRequest } from "./pool-protocol.js";
import { answerPoolMessage } from "./pool-serve.js";

const port = parentPort;
// The zstd encoder loads asynchronously; load it before listening so every compress request can
// use it (the port queues messages that arrive meanwhile).
await initCompression();
if (port !== null) {
  port.on("message", (message: PoolRequest | PoolDecodeRequest) => {
    port.postMessage(...answerPoolMessage(message));
  });
}
