/**
 * Where a Node pool stages what travels to a worker and back (the inputs of decode runs and of
 * compress calls, the outputs of `compressInto`): reused buffers by size, and the offset each
 * chunk takes in them (its own alignment modulo 8). Used by the Node pool (pool-node.ts).
 *
 * @example
 * ```ts
 * const staging = new StagingBuffers();
 * const at = packedAt(0, chunk);
 * ```
 * @module
 */
// Inputs are copied into buffers that travel to the worker and back and are then reused: fresh
// memory for every chunk (a slice() per call) costs more in page faults than the copy itself, and
// V8 copies into SharedArrayBuffers several times slower than into ordinary ones.
const STAGING_MIN = 64 * 1024;
const STAGING_KEEP_BYTES = 64 * 1024 * 1024;

/**
 * The size of the staging buffer for `length` bytes: a power of two from 64 KiB, so that buffers
 * of one size serve many lengths.
 *
 * @example
 * ```ts
 * stagingSize(100_000); // 131072
 * ```
 */
export function stagingSize(length: number): number {
  let size = STAGING_MIN;
  while (size < length) size *= 2;
  return size;
}

/**
 * The first offset from `at` with the chunk's own alignment modulo 8: V8 copies into a
 * `SharedArrayBuffer` word by word only when both sides have the same alignment, byte by byte
 * (5–10× slower) otherwise; and the worker's copy out of the staging memory into its kernels
 * (which match the alignment they are given) is then a word copy too. @internal
 *
 * @example
 * ```ts
 * packedAt(100, new Uint8Array(new ArrayBuffer(64), 3)); // 107
 * ```
 */
export function packedAt(at: number, chunk: Uint8Array): number {
  return at + ((chunk.byteOffset - at) & 7);
}

/**
 * Staging buffers kept for reuse by size, up to 64 MiB in all: an input is copied into one,
 * transferred to a worker, and released when the worker's answer gives it back.
 *
 * @example
 * ```ts
 * const buffer = staging.acquire(chunk, chunk.length); // chunk copied in
 * staging.release(buffer);                            // once it came back
 * ```
 */
export class StagingBuffers {
  readonly #free = new Map<number, ArrayBuffer[]>();
  #kept = 0;

  /** A buffer of at least `length` bytes (its contents are whatever it held). */
  take(length: number): ArrayBuffer {
    const size = stagingSize(length);
    const buffer = this.#free.get(size)?.pop();
    if (buffer === undefined) return new ArrayBuffer(size);
    this.#kept -= size;
    return buffer;
  }

  /** A buffer holding the first `length` bytes of `bytes`. */
  acquire(bytes: Uint8Array, length: number): ArrayBuffer {
    const buffer = this.take(length);
    new Uint8Array(buffer, 0, length).set(length === bytes.length ? bytes : bytes.subarray(0, length));
    return buffer;
  }

  /** Keeps `buffer` for a later `take`, unless keeping it would pass 64 MiB. */
  release(buffer: ArrayBuffer): void {
    if (this.#kept + buffer.byteLength > STAGING_KEEP_BYTES) return;
    let list = this.#free.get(buffer.byteLength);
    if (list === undefined) this.#free.set(buffer.byteLength, (list = []));
    list.push(buffer);
    this.#kept += buffer.byteLength;
  }
}
