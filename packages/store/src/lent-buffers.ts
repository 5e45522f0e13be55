/**
 * Input buffers a chunk reader lends to its layout (see `InputBuffers` in layout.ts): one per
 * fetch, given back once the chunks read into it have been used, so that reading many chunk
 * files (format 1) or runs of superchunk slots (format 2) one after another neither allocates
 * nor later collects a buffer per read.
 *
 * @example
 * ```ts
 * const lent = new LentBuffers(chunklen * atomSize);
 * const buffer = lent.take();
 * lent.giveBack(buffer);
 * ```
 * @module
 */
import { ResidentInputs } from "@fmt/blosc";
import type { ResidentInputsOptions } from "@fmt/blosc";
import { READ_BUFFER_OFFSET } from "@fmt/fs-adapters";
import type { InputBuffers } from "./layout.js";

// Lent buffers start READ_BUFFER_OFFSET bytes into their memory, where file reads run at full speed.
function readBuffer(bytes: number): Uint8Array {
  return new Uint8Array(new ArrayBuffer(bytes + READ_BUFFER_OFFSET), READ_BUFFER_OFFSET, bytes);
}

function lendable(buffer: ArrayBufferLike): Uint8Array {
  return new Uint8Array(buffer, READ_BUFFER_OFFSET, buffer.byteLength - READ_BUFFER_OFFSET);
}

/**
 * The input buffers of one pass of the chunk reader (`chunksInOrder`, or single-row reads): lent
 * to the layout for each fetch and given back once the chunks read into it have been used. Only
 * buffers made here and currently lent are taken back, each once: a store may hand back other
 * memory (a larger file, a store without `getInto`), which is never written into, and the
 * chunks of one format-2 run share one buffer, which must not be lent twice.
 *
 * @example
 * ```ts
 * const lent = new LentBuffers(65536 * 8);
 * const stored = await layout.read(3, lent.take());
 * lent.giveBack(stored.chunk);
 * ```
 */
export class LentBuffers implements InputBuffers {
  readonly #size: number;
  readonly #lent = new Set<ArrayBufferLike>();
  readonly #spare: Uint8Array[] = [];
  readonly #idle: IdleBuffers | undefined;
  // How the resident slots are asked for at the first fetch; undefined: none (not asked, or refused).
  #residentOptions: ResidentInputsOptions | undefined;
  #resident: ResidentInputs | undefined;
  #released = false;

  /**
   * `idle`: buffers earlier passes gave up ({@link LentBuffers.release}), drawn on when this pass
   * has none of its own that fits, so that it reads into memory already in use rather than into
   * fresh pages. `resident`: with `slots` > 0, the pass lends first the slots of a
   * {@link ResidentInputs} (files read straight into the decoder's WebAssembly memory, decoded
   * there without a copy in), as many as `slots`, each of `slotBytes` (default: a chunk file's
   * worth), in shared memory when `shared`, and ordinary buffers beyond them.
   */
  constructor(chunkBytes: number, idle?: IdleBuffers, resident?: { slots: number; slotBytes?: number; shared?: boolean }) {
    // A chunk file: the 16-byte blpk header, a Blosc chunk of at most nbytes + 16 bytes when
    // stored raw, and room for the block starts and stream sizes of a compressed one.
    this.#size = chunkBytes + Math.ceil(chunkBytes / 64) + 4096;
    this.#idle = idle;
    if (resident !== undefined && resident.slots > 0) {
      const slotBytes = Math.max(this.#size, resident.slotBytes ?? 0);
      this.#residentOptions = { slotBytes, slots: resident.slots, chunkBytes, slotOffset: READ_BUFFER_OFFSET, shared: resident.shared ?? false };
    }
  }

  /**
   * The end of a pass: the buffers given back go to the idle buffers (those that fit in their
   * budget), the resident slots to their thread's idle instances once all are back, unless
   * `shareResident` is false (the caller still holds bytes decoded there). Buffers still lent
   * stay with their borrowers.
   */
  release(shareResident = true): void {
    this.#released = true;
    this.#idle?.keep(this.#spare.splice(0));
    this.#resident?.release(shareResident);
  }

  /** A buffer of at least `bytes` bytes (default: one chunk file's worth). */
  take(bytes = this.#size): Uint8Array {
    // The resident slots are acquired at the first fetch: a pass that fetches nothing needs none.
    if (this.#resident === undefined && this.#residentOptions !== undefined && !this.#released) {
      this.#resident = ResidentInputs.acquire(this.#residentOptions);
      this.#residentOptions = undefined; // asked once: given, or refused for this pass
    }
    const slot = this.#resident?.take(bytes);
    if (slot !== undefined) return slot;
    const at = this.#spare.findIndex((b) => b.length >= bytes);
    let buffer = at >= 0 ? this.#spare.splice(at, 1)[0]! : this.#idle?.take(bytes);
    if (buffer === undefined) {
      // Grow rather than keep buffers of many sizes: one too small is dropped, and a larger one
      // is made a power of two, so that the next runs of slots (of slightly varying lengths, up
      // to the layout's cap) fit in it.
      this.#spare.pop();
      buffer = readBuffer(bytes <= this.#size ? this.#size : 2 ** Math.ceil(Math.log2(bytes)));
    }
    this.#lent.add(buffer.buffer);
    return buffer;
  }

  /** Takes back the buffer `chunk` lies in, if it is one lent here and not yet given back. */
  giveBack(chunk: Uint8Array): void {
    if (this.#resident?.giveBack(chunk) === true) return;
    if (this.#lent.delete(chunk.buffer)) this.#spare.push(lendable(chunk.buffer));
  }

  /**
   * A lent buffer came back as another `ArrayBuffer` with the same memory (transferred to a
   * checksum thread and back): it is still lent, under its new identity.
   */
  replace(before: ArrayBufferLike, after: ArrayBufferLike): void {
    if (this.#lent.delete(before)) this.#lent.add(after);
  }
}

/**
 * Input buffers that finished passes gave up, for the next passes of any reader on this thread: a
 * pass draws on them when it has no buffer of its own that fits, and gives its buffers back when
 * it ends. Reading into memory already touched saves the zeroing or page faults of fresh memory
 * and its collection later, most of all in format 2, whose runs of slots are read into buffers of
 * up to 2 MiB from local files (a remote store's `rangeRequestBytes`: 1 MiB over HTTP, 4 MiB over
 * S3 by default), about five per pass from local files — more than one reader's old budget of
 * spare memory (six chunk files at most). The buffers stay with the thread until it ends.
 *
 * @example
 * ```ts
 * const lent = new LentBuffers(65536 * 8, idleInputs);
 * // … the pass …
 * lent.release(); // its buffers wait in idleInputs for the next pass
 * ```
 */
export class IdleBuffers {
  /** At most this many bytes are kept. */
  readonly maxBytes: number;
  readonly #buffers: Uint8Array[] = [];
  #bytes = 0;

  constructor(maxBytes: number) {
    this.maxBytes = maxBytes;
  }

  /** Bytes kept now. */
  get bytes(): number {
    return this.#bytes;
  }

  /** The smallest kept buffer of at least `bytes` bytes, no longer kept; `undefined` if none. */
  take(bytes: number): Uint8Array | undefined {
    let best = -1;
    this.#buffers.forEach((b, i) => {
      if (b.length >= bytes && (best < 0 || b.length < this.#buffers[best]!.length)) best = i;
    });
    if (best < 0) return undefined;
    const buffer = this.#buffers.splice(best, 1)[0]!;
    this.#bytes -= buffer.length;
    return buffer;
  }

  /**
   * Keeps `buffers`, largest first, within {@link IdleBuffers.maxBytes}: kept buffers smaller than
   * a new one make room for it (smallest first), since a large buffer serves any smaller read and
   * a pool full of small ones would turn every larger read away for good.
   */
  keep(buffers: readonly Uint8Array[]): void {
    for (const buffer of [...buffers].sort((a, b) => b.length - a.length)) {
      // Kept in increasing size, so that the smaller ones evicted first are at the front.
      const smaller = this.#buffers.filter((b) => b.length < buffer.length).sort((a, b) => a.length - b.length);
      const evictable = smaller.reduce((n, b) => n + b.length, 0);
      if (this.#bytes - evictable + buffer.length > this.maxBytes) continue; // no room even so: evict nothing
      for (const small of smaller) {
        if (this.#bytes + buffer.length <= this.maxBytes) break;
        this.#buffers.splice(this.#buffers.indexOf(small), 1);
        this.#bytes -= small.length;
      }
      this.#buffers.push(buffer);
      this.#bytes += buffer.length;
    }
  }
}

/**
 * The idle input buffers of this thread's chunk readers: enough for a format-2 pass (its prefetch
 * window of runs and the run being decoded) and a second one beside it.
 */
export const idleInputs = new IdleBuffers(24 * 1024 * 1024);
