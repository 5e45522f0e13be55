/**
 * Node-only fast path of `@fmt/header`: {@link useNativeCrc32} makes its CRC-32 (the checksum
 * format-2 readers verify over every chunk) run on Node's native `zlib.crc32` where the running
 * Node has it (20.15 and later, 22.2 and later), about five times the speed of the built-in
 * TypeScript code. Nothing happens on import; the browser-safe entry `@fmt/header` never imports
 * this file.
 *
 * @example
 * ```ts
 * import { useNativeCrc32 } from "@fmt/header/node";
 * useNativeCrc32(); // true on Node 20.15+
 * ```
 * @module
 */
import { Worker } from "node:worker_threads";
import * as zlib from "node:zlib";
import { useCrc32 } from "./checksum.js";
import type { Crc32Function } from "./checksum.js";
import { useCrc32Offload } from "./checksum-offload.js";
import type { Crc32Answer, Crc32Offload } from "./checksum-offload.js";

/**
 * Node's native CRC-32, or `undefined` on a Node without `zlib.crc32`.
 *
 * @example
 * ```ts
 * nativeCrc32?.(new TextEncoder().encode("123456789")); // 0xcbf43926
 * ```
 */
export const nativeCrc32: Crc32Function | undefined = (zlib as unknown as { crc32?: Crc32Function }).crc32;

/**
 * Makes `crc32` of `@fmt/header` (and so every format-2 checksum of this process) use
 * {@link nativeCrc32}, after checking it against the built-in code; resolves to whether it did.
 * Programs call it once at start-up (the `bcolz-ts` command and the conformance adapter do).
 *
 * @example
 * ```ts
 * if (!useNativeCrc32()) console.warn("CRC-32 in TypeScript: format-2 reads verify more slowly");
 * ```
 */
export function useNativeCrc32(): boolean {
  return useCrc32(nativeCrc32);
}

// The worker's whole program: CRC-32s of spans of a buffer with the platform's zlib.crc32. A
// transferred ArrayBuffer goes back with the answer; a SharedArrayBuffer is read where it lies
// and not sent back. A failure is answered, never dropped.
const CRC32_WORKER_SOURCE = `
const { parentPort } = require("node:worker_threads");
const { crc32 } = require("node:zlib");
parentPort.on("message", ({ id, buffer, spans }) => {
  const moved = buffer instanceof ArrayBuffer;
  try {
    const bytes = new Uint8Array(buffer);
    const sums = new Array(spans.length / 2);
    for (let k = 0; k < sums.length; k++) sums[k] = crc32(bytes.subarray(spans[2 * k], spans[2 * k] + spans[2 * k + 1]));
    if (moved) parentPort.postMessage({ id, buffer, sums }, [buffer]);
    else parentPort.postMessage({ id, sums });
  } catch (error) {
    const message = String((error && error.message) || error);
    if (moved) parentPort.postMessage({ id, buffer, error: message }, [buffer]);
    else parentPort.postMessage({ id, error: message });
  }
});
`;

/**
 * A {@link Crc32Offload} on one Node worker thread running `zlib.crc32`; buffers travel to it and
 * back by transfer (no copy), and shared memory is read where it lies
 * ({@link Crc32Worker.sharesMemory}). An `ArrayBuffer` that cannot be transferred (a WebAssembly
 * memory's, the pool of small Node Buffers) is refused: the sums would be of a copy. The thread
 * keeps the process alive only while it has work; {@link Crc32Worker.close} ends it.
 *
 * @example
 * ```ts
 * const worker = new Crc32Worker();
 * const run = new Uint8Array(4096);
 * const { buffer, sums } = await worker.crc32(run.buffer, [{ offset: 0, length: 4096 }]);
 * await worker.close();
 * ```
 */
export class Crc32Worker implements Crc32Offload {
  readonly #worker: Worker;
  readonly #pending = new Map<number, { buffer: ArrayBufferLike; resolve: (answer: Crc32Answer) => void; reject: (error: Error) => void }>();
  /** A `SharedArrayBuffer` is read by the thread without a transfer. */
  readonly sharesMemory = true;
  #next = 0;
  #failure: Error | undefined;

  constructor() {
    this.#worker = new Worker(CRC32_WORKER_SOURCE, { eval: true });
    this.#worker.on("message", (reply: { id: number; buffer?: ArrayBuffer; sums?: number[]; error?: string }) => {
      const waiting = this.#pending.get(reply.id);
      if (waiting === undefined) return;
      this.#pending.delete(reply.id);
      if (this.#pending.size === 0) this.#worker.unref();
      if (reply.sums !== undefined) waiting.resolve({ buffer: reply.buffer ?? waiting.buffer, sums: reply.sums });
      else waiting.reject(new Error(`CRC-32 worker: ${reply.error ?? "no answer"}`));
    });
    const fail = (error: Error): void => {
      this.#failure = error;
      for (const waiting of this.#pending.values()) waiting.reject(error);
      this.#pending.clear();
    };
    this.#worker.on("error", fail);
    this.#worker.on("exit", (code) => fail(new Error(`CRC-32 worker exited (code ${code})`)));
    // After the listeners: adding a "message" listener refs the worker again.
    this.#worker.unref();
  }

  crc32(buffer: ArrayBufferLike, spans: readonly { offset: number; length: number }[]): Promise<Crc32Answer> {
    if (this.#failure !== undefined) return Promise.reject(this.#failure);
    const flat: number[] = [];
    for (const { offset, length } of spans) {
      if (!Number.isInteger(offset) || !Number.isInteger(length) || offset < 0 || length < 0 || offset + length > buffer.byteLength) {
        return Promise.reject(new Error(`CRC-32 worker: span ${offset}+${length} outside ${buffer.byteLength} bytes`));
      }
      flat.push(offset, length);
    }
    return new Promise((resolve, reject) => {
      const id = this.#next++;
      const moved = buffer instanceof ArrayBuffer && buffer.byteLength > 0;
      try {
        this.#worker.postMessage({ id, buffer, spans: flat }, buffer instanceof ArrayBuffer ? [buffer] : []);
      } catch (error) {
        reject(error instanceof Error ? error : new Error(String(error)));
        return;
      }
      // Node copies, silently, an ArrayBuffer it cannot transfer (a WebAssembly memory's, or the
      // pool behind small Node Buffers): the sums would be of a copy. Refused; the thread's answer
      // to it is dropped.
      if (moved && buffer.byteLength > 0) {
        reject(new Error("CRC-32 worker: the buffer cannot be transferred (a WebAssembly memory, or a pooled Node Buffer's); give it a SharedArrayBuffer or an ArrayBuffer of its own"));
        return;
      }
      if (this.#pending.size === 0) this.#worker.ref(); // an answer is awaited: keep the process up
      this.#pending.set(id, { buffer, resolve, reject });
    });
  }

  /** Ends the thread; pending requests reject. */
  async close(): Promise<void> {
    await this.#worker.terminate();
  }
}

let installed: Crc32Worker | undefined;

/**
 * Makes format-2 readers of this process verify the CRC-32 checksums of runs of chunks on a
 * worker thread while they decode (see `useCrc32Offload` of `@fmt/header`), after probing it;
 * resolves to whether it is in use. One worker per process; calling again reuses it. On a Node
 * without `zlib.crc32` nothing is installed.
 *
 * @example
 * ```ts
 * import { useCrc32Worker, useNativeCrc32 } from "@fmt/header/node";
 * useNativeCrc32();
 * await useCrc32Worker(); // true: reads of CRC-32 superchunks overlap checksums and decoding
 * ```
 */
export async function useCrc32Worker(): Promise<boolean> {
  if (nativeCrc32 === undefined) return false;
  installed ??= new Crc32Worker();
  const used = await useCrc32Offload(installed);
  if (!used) {
    await installed.close();
    installed = undefined;
  }
  return used;
}

/**
 * Stops the worker of {@link useCrc32Worker}; checksums are computed on the reading thread again.
 *
 * @example
 * ```ts
 * await stopCrc32Worker();
 * ```
 */
export async function stopCrc32Worker(): Promise<void> {
  await useCrc32Offload(undefined);
  const worker = installed;
  installed = undefined;
  await worker?.close();
}
