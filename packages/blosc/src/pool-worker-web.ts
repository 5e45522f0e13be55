/**
 * Body of a Web Worker of `createWebBloscPool` (`./pool-web.ts`): answers the batches it receives
 * with this package's own functions (see `./pool-serve.ts`) and transfers the results back.
 * Browser-safe: start it as a module worker.
 *
 * @example
 * ```ts
 * new Worker(new URL("./pool-worker-web.js", import.meta.url), { type: "module" });
 * ```
 * @module
 */
import { initCompression } from "./compress.js";
import type { PoolDecodeRequest, PoolRequest } from "./pool-protocol.js";
import { answerPoolMessage } from "./pool-serve.js";

/** The part of a dedicated worker's global scope this script uses. */
interface WorkerScope {
  addEventListener(type: "message", listener: (event: MessageEvent<PoolRequest | PoolDecodeRequest>) => void): void;
  postMessage(message: unknown, transfer: Transferable[]): void;
}

const scope = globalThis as unknown as WorkerScope;
// Browsers compile the SIMD kernels and the zstd encoder asynchronously; every request waits for
// that, and requests are answered in the order they came (one promise, callbacks in order). If
// loading fails the requests are still answered: the TypeScript codecs need nothing loaded, and
// zstd then fails per task with the encoder's own error.
const ready = initCompression().catch(() => undefined);
scope.addEventListener("message", (event) => {
  void ready.then(() => {
    scope.postMessage(...answerPoolMessage(event.data));
  });
});
