/**
 * The `WasmKernels` class: typed calls into one instance of kernels.wasm (filters, stream
 * codecs, block and whole-chunk decoding, block encoding, the zstd sequence arena), each copying
 * its input into the module's memory, running one kernel and copying the result out. Single
 * streams live in kernel-streams.ts, block encoding in kernel-encode.ts and the zstd arena in
 * zstd-arena.ts, each working on the instance's {@link KernelArena}.
 * Browser-safe: no `node:` imports, no `Buffer`.
 *
 * @example
 * ```ts
 * import { loadWasmKernels } from "./index.js";
 * const kernels = loadWasmKernels();
 * const planes = kernels?.shuffle(new Uint8Array([1, 2, 3, 4, 5, 6, 7, 8]), 4); // 1 5 2 6 3 7 4 8
 * ```
 * @module
 */
import { FormatError, UsageError } from "@fmt/errors";
import { useInPlaceChecksums } from "@fmt/header";
import type { InPlaceChecksums } from "@fmt/header";
import { ERR_CODEC, checkTypesize, kernelError, readI32, sharedShift } from "./kernel-abi.js";
import type { KernelArena, KernelExports } from "./kernel-abi.js";
import { compareChunkIn } from "./kernel-compare.js";
import type { PlaneComparison } from "./kernel-compare.js";
import { encodeBlockIn, encodeBlockIntoIn, encodeChunkTransientIn } from "./kernel-encode.js";
import { decodeStreamIn, decodeStreamPrefixIn, encodeStreamIn } from "./kernel-streams.js";
import { zstdArenaIn } from "./zstd-arena.js";
import type { DecodeChunkOptions, EncodeBlockOptions, WasmCodecName, ZstdArena } from "./types.js";

/**
 * The instance whose memory each buffer is, for checksums of bytes that lie there (registered as
 * views of the memory are taken; a grown memory's old buffer is detached and drops out).
 */
const kernelsByMemory = new WeakMap<ArrayBufferLike, WasmKernels>();
let inPlaceChecksumsInstalled = false;
// The provider installed before this module's (another copy of @fmt/blosc, an application's).
let providerBefore: InPlaceChecksums | undefined;

/**
 * The provider @fmt/header asks before copying bytes into its own checksum module: bytes read
 * into, or encoded in, a kernels instance's memory (format-2 chunks) are checksummed there; other
 * bytes go to the provider installed before.
 */
function adler32InPlace(name: "adler32", bytes: Uint8Array, previous: number): number | undefined {
  const here = name === "adler32" ? kernelsByMemory.get(bytes.buffer)?.adler32Here(bytes, previous) : undefined;
  return here ?? providerBefore?.(name, bytes, previous);
}

/**
 * Typed wrapper over one instance of the kernels module. Every method copies its input into the
 * module's memory in bulk, runs its kernels and copies the result out (the `…Transient` methods
 * leave it there, as a view; a chunk already in the inputs {@link WasmKernels.reserveInputs}
 * kept is decoded where it lies); the instance is not re-entrant (fine: JavaScript calls are
 * synchronous). Memory grows on demand and never shrinks.
 *
 * @example
 * ```ts
 * const kernels = loadWasmKernels();
 * const bytes = kernels?.unshuffle(new Uint8Array([1, 5, 2, 6, 3, 7, 4, 8]), 4); // 1 2 3 4 5 6 7 8
 * ```
 */
export class WasmKernels {
  readonly #exports: KernelExports;
  #heap: Uint8Array;
  // Inputs read straight into this memory (reserveInputs): every call's arena starts above them.
  #inputsStart = 0;
  #inputsBytes = 0;
  // Whether this instance's memory is shared (loadSharedWasmKernels): copies between it and any
  // other memory are then word copies only at the same alignment (see sharedShift).
  readonly #sharedMemory: boolean;
  /** What the stream, encoding and zstd modules use of this instance (kernel-streams.ts, kernel-encode.ts, zstd-arena.ts). */
  readonly #arena: KernelArena;

  /** @internal Use {@link loadWasmKernels} or {@link initWasmKernels}. */
  // A `WebAssembly.Instance`, typed by what is used (see KernelExports.memory).
  constructor(instance: { readonly exports: object }) {
    this.#exports = instance.exports as unknown as KernelExports;
    this.#heap = this.#viewOfMemory();
    this.#sharedMemory = !(this.#heap.buffer instanceof ArrayBuffer);
    this.#arena = { exports: this.#exports, reserve: this.#reserve.bind(this), heap: () => this.#heap };
  }

  /**
   * A view of the module's whole memory as it is now (growing it replaces the buffer), which is
   * also registered as this instance's for checksums computed in place (adler32InPlace).
   */
  #viewOfMemory(): Uint8Array {
    const buffer = this.#exports.memory.buffer;
    kernelsByMemory.set(buffer, this);
    if (!inPlaceChecksumsInstalled) {
      inPlaceChecksumsInstalled = true;
      providerBefore = useInPlaceChecksums(adler32InPlace);
    }
    return new Uint8Array(buffer);
  }

  /**
   * Adler-32 of `bytes` continuing from `previous`, computed where they lie when they are in this
   * instance's memory (a chunk read into it or encoded in it); `undefined` otherwise.
   *
   * @example
   * ```ts
   * const sum = kernels.adler32Here(kernels.decodeTransient(chunk, plan.header), 1);
   * ```
   */
  adler32Here(bytes: Uint8Array, previous: number): number | undefined {
    const ex = this.#exports;
    if (bytes.buffer !== ex.memory.buffer) return undefined;
    return ex.adler32(bytes.byteOffset, bytes.length, previous) >>> 0;
  }

  /** How far past an 8-byte boundary the arena's side of a copy with `view` should sit. */
  #copyShift(view: Uint8Array, skip: number): number {
    return this.#sharedMemory ? (view.byteOffset - skip) & 7 : sharedShift(view, skip);
  }

  /** Releases the arena of the last call, keeping the reserved inputs. */
  #resetArena(): void {
    const ex = this.#exports;
    ex.reset();
    if (this.#inputsBytes > 0) ex.alloc(this.#inputsBytes);
  }

  /**
   * Keeps `bytes` at the bottom of the module's memory for inputs that readers put there
   * themselves (files read straight into it), out of reach of every later call's arena, and grows
   * the memory once so that `arenaBytes` more fit above them: a call whose arena fits there does
   * not grow the memory, so views of it stay attached. Replaces an earlier reservation.
   *
   * @returns the reserved bytes, a view of the module's memory.
   * @example
   * ```ts
   * const inputs = kernels.reserveInputs(8 * 540672, 3 * 524288);
   * ```
   */
  reserveInputs(bytes: number, arenaBytes: number): Uint8Array {
    const ex = this.#exports;
    this.#inputsBytes = 0;
    ex.reset();
    const start = ex.alloc(bytes);
    if (start === 0 || ex.alloc(arenaBytes) === 0) {
      ex.reset();
      throw new FormatError("SIZE_LIMIT", "WebAssembly memory cannot grow to hold the inputs", { field: "wasm.memory", actual: bytes + arenaBytes });
    }
    ex.reset();
    this.#inputsStart = start;
    this.#inputsBytes = bytes;
    if (this.#heap.buffer !== ex.memory.buffer) this.#heap = this.#viewOfMemory();
    return this.#heap.subarray(start, start + bytes);
  }

  /**
   * Whether {@link WasmKernels.decodeValidated} of this whole chunk reads it where it lies, in
   * the inputs {@link WasmKernels.reserveInputs} kept, and decodes it without growing the memory
   * (into a destination of ordinary or shared memory): then no view of the memory detaches.
   *
   * @example
   * ```ts
   * const kernels = own.decodesInPlace(chunk, plan.header) ? own : shared;
   * ```
   */
  decodesInPlace(chunk: Uint8Array, header: { readonly nbytes: number; readonly blocksize: number; readonly cbytes: number; readonly memcpyed: boolean }): boolean {
    if (!this.#liesInInputs(chunk, Math.min(chunk.length, header.cbytes))) return false;
    const end = this.#inputsStart + this.#inputsBytes;
    const memory = this.#exports.memory.buffer;
    // The arena of #decodeInArena, as alloc places it: 16-aligned regions, 64 bytes of slack after
    // the last; the output is shifted by up to 7 bytes for a shared destination.
    const align = (n: number): number => Math.ceil(n / 16) * 16;
    const out = align(end) + header.nbytes + 8;
    const scratch = header.memcpyed ? out : align(out) + 2 * Math.min(header.blocksize, header.nbytes);
    return scratch + 64 <= memory.byteLength;
  }

  /** Whether `length` bytes from the start of `chunk` lie in the inputs reserveInputs kept. */
  #liesInInputs(chunk: Uint8Array, length: number): boolean {
    return this.#inputsBytes > 0 && chunk.buffer === this.#exports.memory.buffer && chunk.byteOffset >= this.#inputsStart && chunk.byteOffset + length <= this.#inputsStart + this.#inputsBytes;
  }

  /** Reserve regions for one call; returns their offsets. Re-takes the heap view afterwards. */
  #reserve(...sizes: number[]): number[] {
    const ex = this.#exports;
    this.#resetArena();
    // A loop, no closure: this runs for every chunk (see plan.ts's makePlan).
    const ptrs: number[] = [];
    for (const n of sizes) {
      const p = ex.alloc(n);
      if (p === 0) {
        throw new FormatError("SIZE_LIMIT", "WebAssembly memory cannot grow to hold the data", {
          field: "wasm.memory",
          actual: sizes.reduce((a, b) => a + b, 0),
        });
      }
      ptrs.push(p);
    }
    if (this.#heap.buffer !== ex.memory.buffer) this.#heap = this.#viewOfMemory();
    return ptrs;
  }

  #filter(
    kernel: "shuffle" | "unshuffle" | "bitshuffle" | "bitunshuffle",
    src: Uint8Array,
    typesize: number,
    out: Uint8Array | undefined,
  ): Uint8Array {
    checkTypesize(typesize);
    const dest = out ?? new Uint8Array(src.length);
    if (dest.length < src.length) {
      throw new UsageError("INVALID_ARGUMENT", "output buffer is too small", { field: "out.length", expected: src.length, actual: dest.length });
    }
    const [ps = 0, pd = 0, pt = 0] = this.#reserve(src.length, src.length, kernel.startsWith("bit") ? src.length : 0);
    this.#heap.set(src, ps);
    const ex = this.#exports;
    if (kernel === "shuffle") ex.shuffle(typesize, src.length, ps, pd);
    else if (kernel === "unshuffle") ex.unshuffle(typesize, src.length, ps, pd);
    else if (kernel === "bitshuffle") ex.bitshuffle(typesize, src.length, ps, pd, pt);
    else ex.bitunshuffle(typesize, src.length, ps, pd, pt);
    dest.set(this.#heap.subarray(pd, pd + src.length));
    return dest.length === src.length ? dest : dest.subarray(0, src.length);
  }

  /**
   * Byte-shuffle one block (format-facts 1.10): byte j of element i goes to `j*n + i`; the
   * `length % typesize` trailing bytes are copied.
   *
   * @param src - the block.
   * @param typesize - element size, 1..255.
   * @param out - optional destination of at least `src.length` bytes.
   * @example
   * ```ts
   * kernels.shuffle(new Uint8Array([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]), 4); // 1 5 2 6 3 7 4 8 9 10
   * ```
   */
  shuffle(src: Uint8Array, typesize: number, out?: Uint8Array): Uint8Array {
    return this.#filter("shuffle", src, typesize, out);
  }

  /**
   * Inverse of {@link WasmKernels.shuffle}.
   *
   * @example
   * ```ts
   * kernels.unshuffle(new Uint8Array([1, 5, 2, 6, 3, 7, 4, 8]), 4); // 1 2 3 4 5 6 7 8
   * ```
   */
  unshuffle(src: Uint8Array, typesize: number, out?: Uint8Array): Uint8Array {
    return this.#filter("unshuffle", src, typesize, out);
  }

  /**
   * Bit-shuffle one block (format-facts 1.12): blocks whose element count is not a multiple of 8
   * are copied unchanged; otherwise bits are transposed and trailing bytes copied.
   *
   * @example
   * ```ts
   * kernels.bitshuffle(new Uint8Array([0, 0, 1, 0, 2, 0, 3, 0, 4, 0, 5, 0, 6, 0, 7, 0]), 2); // AA CC F0 00 ...
   * ```
   */
  bitshuffle(src: Uint8Array, typesize: number, out?: Uint8Array): Uint8Array {
    return this.#filter("bitshuffle", src, typesize, out);
  }

  /**
   * Inverse of {@link WasmKernels.bitshuffle}.
   *
   * @example
   * ```ts
   * const block = kernels.bitunshuffle(bitShuffledBlock, 8);
   * ```
   */
  bitunshuffle(src: Uint8Array, typesize: number, out?: Uint8Array): Uint8Array {
    return this.#filter("bitunshuffle", src, typesize, out);
  }

  /**
   * Decode one raw LZ4 block into exactly `dst.length` bytes (same contract as the TypeScript
   * `decodeLz4`): throws FormatError CORRUPT_STREAM on any violation.
   *
   * @returns the number of bytes written (always `dst.length`).
   * @example
   * ```ts
   * const dst = new Uint8Array(24);
   * kernels.decodeLz4(new Uint8Array([0x3c, 0x61, 0x62, 0x63, 0x03, 0x00, 0x50, 0x62, 0x63, 0x61, 0x62, 0x63]), dst); // "abc" x 8
   * ```
   */
  decodeLz4(src: Uint8Array, dst: Uint8Array, path?: string): number {
    return decodeStreamIn(this.#arena, "lz4", src, dst, path);
  }

  /**
   * Decode one BloscLZ stream into exactly `dst.length` bytes (same contract as the TypeScript
   * `decodeBlosclz`; a stream ending in a match is accepted, as c-blosc 1.14 does).
   *
   * @example
   * ```ts
   * const dst = new Uint8Array(256);
   * kernels.decodeBlosclz(new Uint8Array([0x20, 0x00, 0xe0, 0xf5, 0x00, 0x00, 0x00]), dst); // 256 zeros
   * ```
   */
  decodeBlosclz(src: Uint8Array, dst: Uint8Array, path?: string): number {
    return decodeStreamIn(this.#arena, "blosclz", src, dst, path);
  }

  /**
   * Compress one stream with `lz4`, `lz4hc` or `blosclz` ({@link encodeStreamIn}, which says what
   * `param` means for each); `undefined` if it would exceed `maxOutput`.
   *
   * @example
   * ```ts
   * const stream = kernels.encodeStream("lz4", new Uint8Array(1000), 1); // a few bytes
   * ```
   */
  encodeStream(codec: WasmCodecName, src: Uint8Array, param: number, maxOutput?: number): Uint8Array | undefined {
    return encodeStreamIn(this.#arena, codec, src, param, maxOutput);
  }

  /**
   * Decode one block of a chunk: read `nsplits` streams (i32 csize + bytes, raw when csize equals
   * the split length) starting at `bstart`, then unfilter.
   *
   * @param chunk - the chunk (or any buffer holding the streams).
   * @param bstart - offset of the block's first size prefix.
   * @param blockSize - decoded size of this block.
   * @param typesize - element size.
   * @param nsplits - 1 or `typesize` (decoder split rule, format-facts 1.6).
   * @param codecFormat - header codec format code: 0 blosclz, 1 lz4 (others are not in wasm).
   * @param shuffle - 0 none, 1 byte shuffle, 2 bit shuffle.
   * @example
   * ```ts
   * const block = kernels.decodeBlock(chunk, 20, 1000, 4, 1, 1, 1);
   * ```
   */
  decodeBlock(
    chunk: Uint8Array, bstart: number, blockSize: number, typesize: number, nsplits: number,
    codecFormat: number, shuffle: 0 | 1 | 2, out?: Uint8Array, path?: string,
  ): Uint8Array {
    checkTypesize(typesize);
    if (codecFormat !== 0 && codecFormat !== 1) {
      throw new UsageError("INVALID_ARGUMENT", "codec not available in WebAssembly", { field: "codecFormat", expected: "0 or 1", actual: codecFormat });
    }
    const dest = out ?? new Uint8Array(blockSize);
    if (dest.length < blockSize) throw new UsageError("INVALID_ARGUMENT", "output buffer is too small", { field: "out.length", expected: blockSize, actual: dest.length });
    const [ps = 0, pd = 0, pscratch = 0] = this.#reserve(Math.max(1, chunk.length), blockSize, 2 * blockSize);
    this.#heap.set(chunk, ps);
    const r = this.#exports.decode_block(ps, chunk.length, bstart, blockSize, typesize, nsplits, codecFormat, shuffle, pd, pscratch);
    if (r < 0) throw kernelError(r, "blosc.stream", path);
    dest.set(this.#heap.subarray(pd, pd + blockSize));
    return dest.length === blockSize ? dest : dest.subarray(0, blockSize);
  }

  /**
   * Bytes `[p0, p1)` of one block, decoding each of its streams only as far as those bytes lie
   * in it (see `decode_block_range` in wasm/kernels.c): one element of a shuffled block costs
   * about half the block's decoding. Not for bit-shuffled blocks.
   *
   * @param chunk - bytes holding the block's streams; `bstart` is the block's offset in them.
   * @param out - receives `p1 - p0` bytes.
   * @example
   * ```ts
   * kernels.decodeBlockRange(chunk, 32, 524288, 8, 8, 1, 1, 8000, 8008, one);
   * ```
   */
  decodeBlockRange(
    chunk: Uint8Array, bstart: number, blockSize: number, typesize: number, nsplits: number,
    codecFormat: number, shuffle: 0 | 1, p0: number, p1: number, out: Uint8Array, path?: string,
  ): void {
    checkTypesize(typesize);
    if (codecFormat !== 0 && codecFormat !== 1) {
      throw new UsageError("INVALID_ARGUMENT", "codec not available in WebAssembly", { field: "codecFormat", expected: "0 or 1", actual: codecFormat });
    }
    const length = p1 - p0;
    if (!Number.isInteger(p0) || !Number.isInteger(p1) || p0 < 0 || length < 0 || p1 > blockSize || out.length < length) {
      throw new UsageError("OUT_OF_RANGE", "byte window outside the block", { path, field: "bytes", expected: `0..${blockSize}`, actual: [p0, p1] });
    }
    const [ps = 0, pd = 0, pscratch = 0] = this.#reserve(Math.max(1, chunk.length), Math.max(1, length), blockSize);
    this.#heap.set(chunk, ps);
    const r = this.#exports.decode_block_range(ps, chunk.length, bstart, blockSize, typesize, nsplits, codecFormat, shuffle, p0, p1, pd, pscratch);
    if (r < 0) throw kernelError(r, "blosc.stream", path);
    out.set(this.#heap.subarray(pd, pd + length));
  }

  /**
   * Decoded bytes `[from, want)` of one lz4 or BloscLZ stream of `neblock` decoded bytes, decoding
   * only as far as `want` ({@link decodeStreamPrefixIn}); `undefined` when `src`, a prefix of the
   * stream, ended first.
   *
   * @example
   * ```ts
   * const head = kernels.decodeStreamPrefix(1, streamStart, 65536, 101) ?? kernels.decodeStreamPrefix(1, stream, 65536, 101, path, true);
   * ```
   */
  decodeStreamPrefix(codecFormat: number, src: Uint8Array, neblock: number, want: number, path?: string, whole = false, from = 0): Uint8Array | undefined {
    return decodeStreamPrefixIn(this.#arena, codecFormat, src, neblock, want, path, whole, from);
  }

  /**
   * Module memory for one zstd stream of `src` decoding to `dstLength` bytes, with the calls that
   * decode into it ({@link zstdArenaIn}). Valid until the next call on these kernels.
   *
   * @example
   * ```ts
   * const arena = kernels.zstdArena(stream, 65536);
   * ```
   */
  zstdArena(src: Uint8Array, dstLength: number, unshuffleRoom = 0): ZstdArena {
    return zstdArenaIn(this.#arena, src, dstLength, unshuffleRoom);
  }

  /**
   * Decode a whole Blosc 1.x chunk (or a range of its blocks) in one call. The caller should have
   * validated the header (`readChunkHeader`); this re-checks everything it relies on.
   *
   * @returns the decoded bytes (block `firstBlock` first), or `undefined` when the chunk needs a
   *   codec the module lacks (snappy, zlib, zstd) so the caller can fall back to TypeScript.
   * @example
   * ```ts
   * const data = kernels.decodeChunk(chunk) ?? decompress(chunk);
   * ```
   */
  decodeChunk(chunk: Uint8Array, options: DecodeChunkOptions = {}): Uint8Array | undefined {
    const { path } = options;
    if (chunk.length < 16) throw new FormatError("TRUNCATED", "chunk is shorter than its header", { path, field: "blosc.header", expected: 16, actual: chunk.length });
    const flags = chunk[2]!;
    const nbytes = readI32(chunk, 4);
    const blocksize = readI32(chunk, 8);
    const cbytes = readI32(chunk, 12);
    if (nbytes === 0) return options.out ? options.out.subarray(0, 0) : new Uint8Array(0);
    if (nbytes < 0 || blocksize <= 0 || cbytes < 16) {
      throw new FormatError("BAD_HEADER", "negative or zero size in chunk header", { path, field: "blosc.header", actual: { nbytes, blocksize, cbytes } });
    }
    const memcpyed = (flags & 0x02) !== 0;
    if (!memcpyed && flags >> 5 > 1) return undefined;
    return this.decodeValidated(chunk, { nbytes, blocksize, cbytes, memcpyed }, options);
  }

  /**
   * {@link WasmKernels.decodeChunk} for a chunk whose header the caller has already validated
   * (`planChunk`) and whose codec the module has (blosclz or lz4): the header is not parsed again.
   * The compressed input goes into the module's reused memory, blocks decode there, and the
   * wanted bytes are copied out once, into `options.out` when given. The C kernel still checks
   * every offset it follows, so a lying header cannot make it touch memory outside its arena.
   *
   * @param chunk - the chunk bytes.
   * @param header - its validated sizes.
   * @returns the decoded bytes (`options.out` or a view of it when given).
   * @example
   * ```ts
   * kernels.decodeValidated(chunk, plan.header, { out: target, length: plan.header.nbytes });
   * ```
   */
  decodeValidated(
    chunk: Uint8Array,
    header: { readonly nbytes: number; readonly blocksize: number; readonly cbytes: number; readonly memcpyed: boolean },
    options: DecodeChunkOptions = {},
  ): Uint8Array {
    const { path } = options;
    const { nbytes, blocksize } = header;
    if (nbytes === 0) return options.out ? options.out.subarray(0, 0) : new Uint8Array(0);
    const nblocks = Math.ceil(nbytes / blocksize);
    const first = options.firstBlock ?? 0;
    const end = options.endBlock ?? nblocks;
    if (!Number.isInteger(first) || !Number.isInteger(end) || first < 0 || end < first || end > nblocks) {
      throw new UsageError("OUT_OF_RANGE", "block range outside the chunk", { path, field: "blocks", expected: `0..${nblocks}`, actual: [first, end] });
    }
    const length = Math.min(end * blocksize, nbytes) - first * blocksize;
    const skip = options.skip ?? 0;
    const want = options.length ?? length - skip;
    if (!Number.isInteger(skip) || !Number.isInteger(want) || skip < 0 || want < 0 || skip + want > length) {
      throw new UsageError("OUT_OF_RANGE", "byte window outside the decoded blocks", { path, field: "skip", expected: `0..${length}`, actual: [skip, want] });
    }
    const dest = options.out ?? new Uint8Array(want);
    if (dest.length < want) throw new UsageError("INVALID_ARGUMENT", "output buffer is too small", { path, field: "out.length", expected: want, actual: dest.length });
    // The decoded bytes land where a copy into `dest` is a word copy when either memory is shared
    // (see sharedShift).
    const pd = this.#decodeInArena(chunk, header, first, end, length, path, this.#copyShift(dest, skip));
    dest.set(this.#heap.subarray(pd + skip, pd + skip + want));
    return dest.length === want ? dest : dest.subarray(0, want);
  }

  /**
   * {@link WasmKernels.decodeValidated} of a whole chunk without the copy out: the decoded bytes
   * as a view of the module's memory, valid until the next call on these kernels.
   *
   * @example
   * ```ts
   * const view = kernels.decodeTransient(chunk, plan.header);
   * ```
   */
  decodeTransient(
    chunk: Uint8Array,
    header: { readonly nbytes: number; readonly blocksize: number; readonly cbytes: number; readonly memcpyed: boolean },
    path?: string,
  ): Uint8Array {
    const { nbytes, blocksize } = header;
    if (nbytes === 0) return new Uint8Array(0);
    const pd = this.#decodeInArena(chunk, header, 0, Math.ceil(nbytes / blocksize), nbytes, path);
    return this.#heap.subarray(pd, pd + nbytes);
  }

  /**
   * `start` plus the sum of the little-endian float64 values of `view` in numpy's order of
   * additions (np.sum: buffers of 8,192 values, each summed pairwise), when `view` lies in these
   * kernels' memory (a {@link WasmKernels.decodeTransient} result, 8-aligned); else `undefined`.
   *
   * @example
   * ```ts
   * const total = kernels.sumFloat64LikeNumpy(kernels.decodeTransient(chunk, plan.header), 0);
   * ```
   */
  sumFloat64LikeNumpy(view: Uint8Array, start: number): number | undefined {
    const ex = this.#exports;
    if (view.buffer !== ex.memory.buffer || view.byteOffset % 8 !== 0 || view.length % 8 !== 0) return undefined;
    return ex.sum_f64_like_numpy(view.byteOffset, view.length / 8, start);
  }

  /**
   * How many values of a whole chunk (its header validated by the caller) compare true with a
   * constant, decided on the chunk's byte planes without unshuffling it (with `mask`, a 0/1 byte
   * per value too); `undefined` when the plane kernel does not take the chunk. A chunk read into
   * the reserved inputs is compared where it lies. @internal
   *
   * @example
   * ```ts
   * const n = kernels.comparePlanes(chunk, plan.header, { kind: "float", op: ">", value });
   * ```
   */
  comparePlanes(chunk: Uint8Array, header: { readonly nbytes: number; readonly blocksize: number; readonly cbytes: number; readonly typesize: number }, comparison: PlaneComparison, mask?: Uint8Array, path?: string): number | undefined {
    return compareChunkIn(this.#arena, chunk, header, this.#liesInInputs(chunk, Math.min(chunk.length, header.cbytes)), comparison, mask, path);
  }

  /** Decodes blocks [first, end) (`length` bytes) into the arena; returns where they start. */
  #decodeInArena(
    chunk: Uint8Array,
    header: { readonly nbytes: number; readonly blocksize: number; readonly cbytes: number; readonly memcpyed: boolean },
    first: number, end: number, length: number, path: string | undefined, outShift = 0,
  ): number {
    const { nbytes, blocksize, cbytes, memcpyed } = header;
    const srclen = Math.min(chunk.length, cbytes);
    const ex = this.#exports;
    // One arena layout per call: input, decoded blocks, then two blocks of scratch. The arena is
    // reset, not freed, so its memory is reused from call to call. Input and output sit at the
    // same offset modulo 8 as the caller's shared memory they are copied from and to. A chunk in
    // the reserved inputs (read there by its reader) is decoded where it lies, without the copy.
    const inPlace = this.#liesInInputs(chunk, srclen);
    this.#resetArena();
    const inShift = inPlace ? 0 : this.#copyShift(chunk, 0);
    const ps0 = inPlace ? chunk.byteOffset : ex.alloc(srclen + inShift);
    const pd0 = ps0 === 0 ? 0 : ex.alloc(length + outShift);
    const ps = ps0 + inShift;
    const pd = pd0 + outShift;
    const pscratch = pd0 === 0 || memcpyed ? pd0 : ex.alloc(2 * Math.min(blocksize, nbytes));
    if (pscratch === 0) {
      throw new FormatError("SIZE_LIMIT", "WebAssembly memory cannot grow to hold the chunk", { path, field: "wasm.memory", actual: srclen + 3 * length });
    }
    let heap = this.#heap;
    if (heap.buffer !== ex.memory.buffer) heap = this.#heap = this.#viewOfMemory();
    if (!inPlace) heap.set(srclen === chunk.length ? chunk : chunk.subarray(0, srclen), ps);
    const r = ex.decode_chunk(ps, srclen, first, end, pd, length, pscratch);
    if (r === ERR_CODEC) throw new UsageError("INVALID_ARGUMENT", "codec not available in WebAssembly", { path, field: "blosc.flags", expected: "blosclz or lz4" });
    if (r < 0) throw kernelError(r, "blosc.stream", path);
    if (r !== length) throw new FormatError("CORRUPT_STREAM", "chunk decodes to the wrong length", { path, field: "blosc.nbytes", expected: length, actual: r });
    return pd;
  }

  /**
   * Encode one block as a Blosc 1.x block is laid out after its bstart ({@link encodeBlockIn}).
   *
   * @example
   * ```ts
   * const body = kernels.encodeBlock(block, { typesize: 8, nsplits: 8, codec: "lz4", shuffle: 1, clevel: 5 });
   * ```
   */
  encodeBlock(block: Uint8Array, options: EncodeBlockOptions): Uint8Array {
    return encodeBlockIn(this.#arena, block, options);
  }

  /**
   * {@link WasmKernels.encodeBlock} written straight into `out` at `offset`, when it fits
   * ({@link encodeBlockIntoIn}); the encoded length.
   *
   * @example
   * ```ts
   * const n = kernels.encodeBlockInto(block, { typesize: 8, nsplits: 8, codec: "lz4", shuffle: 1, clevel: 5 }, chunk, 16 + 4 * nblocks);
   * ```
   */
  encodeBlockInto(block: Uint8Array, options: EncodeBlockOptions, out: Uint8Array, offset: number): number {
    return encodeBlockIntoIn(this.#arena, block, options, out, offset);
  }

  /**
   * A whole chunk's blocks encoded in one region of the module's memory, all but the 16-byte
   * header, after `headroom` free bytes ({@link encodeChunkTransientIn}): a view valid until the
   * next call on these kernels, or `undefined` when c-blosc would store the chunk raw.
   *
   * @example
   * ```ts
   * const region = kernels.encodeChunkTransient(rows, { blocksize: 131072, typesize: 8, nsplits: 8, codec: "lz4", shuffle: 1, clevel: 5 }, 16);
   * ```
   */
  encodeChunkTransient(data: Uint8Array, options: EncodeBlockOptions & { blocksize: number }, headroom = 0): Uint8Array | undefined {
    return encodeChunkTransientIn(this.#arena, data, options, headroom);
  }
}
