/**
 * Input buffers inside a WebAssembly kernels instance of their own, for a reader that reads chunk
 * files straight into the decoder's memory: the decoder then reads each chunk where it lies
 * instead of first copying it in (a chunk's worth of bytes per chunk, 7–15 % of a pass over
 * local files). Browser-safe: no `node:` imports.
 *
 * Why an instance of its own, sized once: growing a `WebAssembly.Memory` detaches every view of
 * its old buffer, so buffers lent to reads that are still in flight, or chunks not yet decoded,
 * would read as empty (or, on an engine that moves the memory, land in freed memory). Nothing but
 * the decoding of the chunks read into this instance's slots (and sums of what they decoded to,
 * which allocate nothing) runs on it, and that decoding only runs here when its arena fits in the
 * memory grown at the start ({@link WasmKernels.decodesInPlace}); otherwise the shared kernels
 * decode the chunk, copying it in as before.
 *
 * With `shared`, the instance's memory is a `SharedArrayBuffer` (the same kernels, see
 * `withSharedMemory`): format-2 readers hand the runs they read there to a checksum thread, which
 * reads them where they lie, since a WebAssembly memory cannot be transferred.
 *
 * @example
 * ```ts
 * const inputs = ResidentInputs.acquire({ slotBytes: 540672, slots: 6, chunkBytes: 524288 });
 * const buffer = inputs?.take(540672) ?? new Uint8Array(540672);
 * // … read a chunk file into buffer, decode it with decompressPlannedInto …
 * inputs?.giveBack(buffer);
 * inputs?.release();
 * ```
 * @module
 */
import { activeWasm } from "./decode-backend.js";
import { loadSharedWasmKernels, loadWasmKernels } from "./wasm/index.js";
import type { WasmKernels } from "./wasm/index.js";

/** The kernels whose reserved inputs live in a given memory buffer, for the decoders to find. */
const owners = new WeakMap<ArrayBufferLike, WasmKernels>();
/**
 * Instances whose passes ended with every slot given back, for the next passes of this thread:
 * those with ordinary memory, and those with shared memory.
 */
const idle: WasmKernels[] = [];
const idleShared: WasmKernels[] = [];
/** At most this many idle instances are kept (two passes side by side: a two-column query). */
const MAX_IDLE = 2;
/** An instance is not made for a pass that needs more memory than this: ordinary buffers then. */
const MAX_RESIDENT_BYTES = 32 * 1024 * 1024;
/** Slots start this far past a page boundary (see `READ_BUFFER_OFFSET` of @fmt/fs-adapters). */
const PAGE = 4096;

/**
 * How `ResidentInputs.acquire` sizes its instance. @internal
 *
 * @example
 * ```ts
 * const options: ResidentInputsOptions = { slotBytes: 540672, slots: 6, chunkBytes: 524288, slotOffset: 2032 };
 * ```
 */
export interface ResidentInputsOptions {
  /** Bytes of one slot (one fetch: a chunk file with room to spare). */
  slotBytes: number;
  /** How many slots may be lent at once (reads in flight plus the one being decoded). */
  slots: number;
  /** The largest decoded chunk the pass decodes (its output and scratch must fit). */
  chunkBytes: number;
  /** Where in its page each slot starts (file reads into some offsets run slower). Default 0. */
  slotOffset?: number;
  /**
   * An instance whose memory is a `SharedArrayBuffer` (the same kernels), so that another thread
   * can read the slots without a transfer (format 2's checksum thread). Default false; without
   * shared memory (a browser page that is not cross-origin isolated) `acquire` gives nothing.
   */
  shared?: boolean;
}

/**
 * The kernels whose reserved inputs `view` lies in, or `undefined`. @internal
 *
 * @example
 * ```ts
 * const kernels = residentKernelsOf(chunk) ?? activeWasm();
 * ```
 */
export function residentKernelsOf(view: Uint8Array): WasmKernels | undefined {
  return owners.get(view.buffer);
}

/**
 * Whether `view` lies in the memory of a {@link ResidentInputs} instance: a chunk read into one
 * of its slots, or bytes decoded there, which only that pass overwrites: a slot once given back
 * (and read into again), the decoded bytes when it decodes its next chunk. @internal
 *
 * @example
 * ```ts
 * const stable = isResidentView(decompressPlannedTransient(chunk, plan)!);
 * ```
 */
export function isResidentView(view: Uint8Array): boolean {
  return owners.has(view.buffer);
}

/**
 * The slots of one pass of a reader, in an instance of the kernels that nothing else uses. Lend
 * a slot per fetch ({@link ResidentInputs.take}), take it back once the chunks read into it are
 * decoded ({@link ResidentInputs.giveBack}), end with {@link ResidentInputs.release}. Chunks in a
 * slot decode through `decompressPlannedInto`, `decompressPlannedTransient` and the other
 * decoders of this package as any chunk does. @internal
 *
 * @example
 * ```ts
 * const inputs = ResidentInputs.acquire({ slotBytes: 540672, slots: 6, chunkBytes: 524288 });
 * ```
 */
export class ResidentInputs {
  readonly #kernels: WasmKernels;
  readonly #idle: WasmKernels[];
  readonly #region: Uint8Array;
  readonly #first: number;
  readonly #stride: number;
  readonly #slotBytes: number;
  readonly #lent: boolean[];
  #released = false;
  #pooled = false;

  private constructor(kernels: WasmKernels, region: Uint8Array, options: Required<ResidentInputsOptions>, stride: number) {
    this.#kernels = kernels;
    this.#idle = options.shared ? idleShared : idle;
    this.#region = region;
    // Slots start `slotOffset` bytes past a page boundary of the instance's memory, `stride` (a
    // page multiple) apart.
    this.#first = Math.ceil(region.byteOffset / PAGE) * PAGE + options.slotOffset;
    this.#stride = stride;
    this.#slotBytes = options.slotBytes;
    this.#lent = new Array<boolean>(options.slots).fill(false);
  }

  /**
   * Slots for one pass, in an idle instance of this thread or a new one; `undefined` when the
   * WebAssembly decoder is unavailable or not in use, or the pass would need more than 32 MiB
   * (slots and the decoder's arena; the module's own few pages come on top).
   */
  static acquire(options: ResidentInputsOptions): ResidentInputs | undefined {
    const settings = { slotOffset: 0, shared: false, ...options };
    const { slotBytes, slots, chunkBytes, slotOffset } = settings;
    if (![slotBytes, slots, chunkBytes, slotOffset].every((n) => Number.isSafeInteger(n) && n >= 0) || slots === 0 || slotOffset >= PAGE) return undefined;
    const stride = Math.ceil((slotOffset + slotBytes) / PAGE) * PAGE;
    const bytes = PAGE + slots * stride;
    // The decoder's arena above the slots: the decoded chunk and two blocks of scratch (a block
    // is at most the chunk), with alloc's alignment and slack.
    const arenaBytes = 3 * chunkBytes + 512;
    // Nothing would decode in place without the WebAssembly decoder (setDecodeBackend("js")).
    if (bytes + arenaBytes > MAX_RESIDENT_BYTES || activeWasm() === undefined) return undefined;
    const kernels = settings.shared ? (idleShared.pop() ?? loadSharedWasmKernels()) : (idle.pop() ?? loadWasmKernels());
    if (kernels === undefined) return undefined;
    let region: Uint8Array;
    try {
      region = kernels.reserveInputs(bytes, arenaBytes);
    } catch {
      return undefined;
    }
    owners.set(region.buffer, kernels);
    return new ResidentInputs(kernels, region, settings, stride);
  }

  /** A free slot of at least `bytes` bytes, or `undefined` (none free, too small, or released). */
  take(bytes: number): Uint8Array | undefined {
    // A detached region (its memory grew after all) lends nothing more.
    if (this.#released || bytes > this.#slotBytes || this.#region.buffer.byteLength === 0) return undefined;
    const i = this.#lent.indexOf(false);
    if (i < 0) return undefined;
    this.#lent[i] = true;
    return new Uint8Array(this.#region.buffer, this.#first + i * this.#stride, this.#slotBytes);
  }

  /**
   * Takes back the slot `view` lies in. `true` when `view` lies in this instance's memory (lent
   * or not), so that the caller does not look for it among its other buffers.
   */
  giveBack(view: Uint8Array): boolean {
    if (view.buffer !== this.#region.buffer || view.byteOffset < this.#first) return false;
    const i = Math.floor((view.byteOffset - this.#first) / this.#stride);
    if (i >= this.#lent.length) return false;
    this.#lent[i] = false;
    this.#pool();
    return true;
  }

  /**
   * The end of the pass: no slot is lent any more. The instance goes back to this thread's idle
   * instances once every slot has been given back (now, or later, as reads still in flight
   * settle and their slots come back): a slot still lent may still be written into, so the
   * instance serves no other pass before. `pool` false: never (the caller keeps using bytes
   * decoded in it).
   */
  release(pool = true): void {
    this.#released = true;
    // Not pooled: the caller still uses bytes decoded here; the instance is left to the collector.
    if (!pool) this.#pooled = true;
    this.#pool();
  }

  #pool(): void {
    if (this.#released && !this.#pooled && this.#lent.every((lent) => !lent) && this.#idle.length < MAX_IDLE) {
      this.#pooled = true;
      this.#idle.push(this.#kernels);
    }
  }
}

/** Idle instances kept now, with ordinary memory or (`shared`) shared memory (tests). @internal */
export function idleResidentInstances(shared = false): number {
  return (shared ? idleShared : idle).length;
}
