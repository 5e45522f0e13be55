/**
 * CRC-32s computed on another thread: format-2 readers verify a checksum over every chunk they
 * decode, and on one thread that pass costs about as much as decoding an lz4 chunk. A reader that
 * reads a run of chunks into a buffer of its own hands the buffer to that thread (transferred,
 * not copied) and decodes the run before while the checksums are computed; the buffer comes back
 * with them. An offload that {@link Crc32Offload.sharesMemory} is also given runs read into
 * shared memory (the decoder's, where they then decode without a copy), which stays usable here.
 * The browser-safe side is only this registry; `useCrc32Worker` of `@fmt/header/node` installs a
 * Node worker thread.
 *
 * @example
 * ```ts
 * import { crc32Offload } from "@fmt/header";
 * const answer = await crc32Offload()?.crc32(run.buffer, [{ offset: 0, length: 4096 }]);
 * ```
 * @module
 */
import { crc32 } from "./checksum.js";

/**
 * What {@link Crc32Offload.crc32} answers: the buffer, back, and the CRC-32 of each span.
 *
 * @example
 * ```ts
 * const { buffer, sums } = await offload.crc32(run.buffer, spans);
 * ```
 */
export interface Crc32Answer {
  /** The buffer that was handed over, with the same bytes (for a `SharedArrayBuffer`, the same memory). */
  buffer: ArrayBufferLike;
  /** CRC-32 (zlib's) of each span, in the order asked. */
  sums: number[];
}

/**
 * Computes CRC-32s of parts of a buffer elsewhere (another thread).
 *
 * @example
 * ```ts
 * const { buffer, sums } = await offload.crc32(run.buffer, [{ offset: 64, length: 4000 }]);
 * const again = new Uint8Array(buffer); // `run` itself is detached until then
 * ```
 */
export interface Crc32Offload {
  /**
   * The CRC-32 of each span of `buffer`. An `ArrayBuffer` is transferred to the other thread: it
   * is detached (unusable) here until the answer gives it back. A `SharedArrayBuffer` (only to an
   * offload that {@link Crc32Offload.sharesMemory}) is shared, not moved, and stays usable; its
   * spans must not change until the answer. Rejects when the other thread cannot answer; an
   * `ArrayBuffer` may then be lost, and callers read their bytes again.
   */
  crc32(buffer: ArrayBufferLike, spans: readonly { offset: number; length: number }[]): Promise<Crc32Answer>;
  /**
   * Whether {@link Crc32Offload.crc32} also takes a `SharedArrayBuffer` (read in place by the other
   * thread). Without it readers give it only `ArrayBuffer`s.
   */
  readonly sharesMemory?: boolean;
}

let current: Crc32Offload | undefined;

/**
 * Makes format-2 readers of this process hand their CRC-32s to `offload` (or to nobody, with
 * `undefined`), after checking that it gives the values of {@link crc32} on known inputs and the
 * bytes back unchanged; resolves to whether it is now in use.
 *
 * @example
 * ```ts
 * await useCrc32Offload(myWorkerOffload); // true when its answers agree with crc32
 * await useCrc32Offload(undefined);       // checksums on the reading thread again
 * ```
 */
export async function useCrc32Offload(offload: Crc32Offload | undefined): Promise<boolean> {
  current = undefined;
  if (offload === undefined) return false;
  try {
    const probe = new Uint8Array(1031);
    for (let i = 0; i < probe.length; i++) probe[i] = (i * 131 + 7) & 0xff;
    const copy = probe.slice();
    const spans = [{ offset: 0, length: probe.length }, { offset: 100, length: 931 }, { offset: 5, length: 0 }];
    const { buffer, sums } = await offload.crc32(probe.buffer, spans);
    const back = new Uint8Array(buffer);
    const same = back.length === copy.length && back.every((b, i) => b === copy[i]);
    let agrees = same && sums.length === spans.length && spans.every((s, k) => sums[k] === crc32(copy.subarray(s.offset, s.offset + s.length)));
    if (agrees && offload.sharesMemory === true && typeof SharedArrayBuffer !== "undefined") {
      // Shared memory is read where it lies: the same answers, and the memory still usable here.
      const shared = new Uint8Array(new SharedArrayBuffer(copy.length));
      shared.set(copy);
      const answer = await offload.crc32(shared.buffer, spans);
      agrees = shared.every((b, i) => b === copy[i]) && answer.sums.length === spans.length && spans.every((s, k) => answer.sums[k] === crc32(copy.subarray(s.offset, s.offset + s.length)));
    }
    if (agrees) current = offload;
  } catch {
    // an offload that fails its probe is not used
  }
  return current !== undefined;
}

/**
 * The offload in use, if any.
 *
 * @example
 * ```ts
 * if (crc32Offload() !== undefined) console.log("CRC-32s on another thread");
 * ```
 */
export function crc32Offload(): Crc32Offload | undefined {
  return current;
}
