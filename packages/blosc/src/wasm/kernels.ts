/**
 * The `WasmKernels` class: typed calls into one instance of kernels.wasm (filters, stream
 * codecs, block and whole-chunk decoding, block encoding, the zstd sequence arena), each copying
 * its input into the module's memory, running one kernel and copying the result out.
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
import { BLOSC_HEADER_SIZE as BLOSC_CHUNK_HEADER, useInPlaceChecksums } from "@fmt/header";
import type { InPlaceChecksums } from "@fmt/header";
import { ERR_CODEC, ERR_SRC_TRUNCATED, blockCodec, checkTypesize, kernelError, readI32, sharedShift, streamBound } from "./kernel-abi.js";
import type { KernelExports } from "./kernel-abi.js";
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

  /** @internal Use {@link loadWasmKernels} or {@link initWasmKernels}. */
  // A `WebAssembly.Instance`, typed by what is used (see KernelExports.memory).
  constructor(instance: { readonly exports: object }) {
    this.#exports = instance.exports as unknown as KernelExports;
    this.#heap = this.#viewOfMemory();
    this.#sharedMemory = !(this.#heap.buffer instanceof ArrayBuffer);
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
    const ptrs = sizes.map((n) => {
      const p = ex.alloc(n);
      if (p === 0) {
        throw new FormatError("SIZE_LIMIT", "WebAssembly memory cannot grow to hold the data", {
          field: "wasm.memory",
          actual: sizes.reduce((a, b) => a + b, 0),
        });
      }
      return p;
    });
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

  #decodeStream(codec: "lz4" | "blosclz", src: Uint8Array, dst: Uint8Array, path: string | undefined): number {
    const [ps = 0, pd = 0] = this.#reserve(src.length, dst.length);
    this.#heap.set(src, ps);
    const ex = this.#exports;
    const got = codec === "lz4" ? ex.lz4_decode(ps, src.length, pd, dst.length) : ex.blosclz_decode(ps, src.length, pd, dst.length);
    if (got < 0) throw kernelError(got, `${codec}.stream`, path);
    if (got !== dst.length) {
      throw new FormatError("CORRUPT_STREAM", "stream decodes to fewer bytes than expected", { path, field: `${codec}.length`, expected: dst.length, actual: got });
    }
    dst.set(this.#heap.subarray(pd, pd + got));
    return got;
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
    return this.#decodeStream("lz4", src, dst, path);
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
    return this.#decodeStream("blosclz", src, dst, path);
  }

  /**
   * Compress one stream: `lz4` (the fast block encoder, `param` its acceleration: 1 best, Blosc
   * uses `10 - clevel`), `lz4hc` (hash chains, `param` 1..12 its search depth 2^level; an ordinary
   * LZ4 block) or `blosclz` (`param` its clevel 1..9, levels below 5 skipping faster over
   * incompressible data; a stream c-blosc 1.14 to 1.21 decode).
   *
   * @param maxOutput - largest acceptable stream; default `src.length - 1` (Blosc stores a split
   *   raw unless its stream is shorter than the split).
   * @returns the stream, or `undefined` if it would exceed `maxOutput`.
   * @example
   * ```ts
   * const stream = kernels.encodeStream("lz4", new Uint8Array(1000), 1); // a few bytes
   * ```
   */
  encodeStream(codec: WasmCodecName, src: Uint8Array, param: number, maxOutput?: number): Uint8Array | undefined {
    const cap = Math.max(0, Math.min(maxOutput ?? src.length - 1, streamBound(src.length)));
    const [ps = 0, pd = 0] = this.#reserve(src.length, cap);
    this.#heap.set(src, ps);
    const ex = this.#exports;
    const n =
      codec === "lz4"
        ? ex.lz4_encode(ps, src.length, pd, cap, param)
        : codec === "lz4hc"
          ? ex.lz4hc_encode(ps, src.length, pd, cap, param)
          : ex.blosclz_encode(ps, src.length, pd, cap, param);
    return n === 0 ? undefined : this.#heap.slice(pd, pd + n);
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
   * Decode one lz4 or BloscLZ stream of `neblock` decoded bytes, or a prefix of it, until at least
   * `want` bytes are out, and return decoded bytes `[from, want)`.
   *
   * @param codecFormat - the header's codec number: 0 BloscLZ, 1 lz4.
   * @param src - the stream's bytes, or the first of them.
   * @param whole - `src` is the whole stream: ending early is then corruption, not a short prefix.
   * @param from - the first decoded byte wanted (a single row wants one or a few bytes of a
   *   prefix of tens of kilobytes: only those are copied out).
   * @returns a new array of the `want - from` decoded bytes, or `undefined` when `src`, a prefix,
   *   ended first (read more of the stream).
   * @throws FormatError CORRUPT_STREAM when the bytes cannot be the start of a valid stream.
   * @example
   * ```ts
   * const head = kernels.decodeStreamPrefix(1, streamStart, 65536, 101) ?? kernels.decodeStreamPrefix(1, stream, 65536, 101, path, true);
   * const byte100 = kernels.decodeStreamPrefix(1, stream, 65536, 101, path, true, 100); // 1 byte
   * ```
   */
  decodeStreamPrefix(codecFormat: number, src: Uint8Array, neblock: number, want: number, path?: string, whole = false, from = 0): Uint8Array | undefined {
    if (codecFormat !== 0 && codecFormat !== 1) {
      throw new UsageError("INVALID_ARGUMENT", "codec not available in WebAssembly", { field: "codecFormat", expected: "0 or 1", actual: codecFormat });
    }
    if (!Number.isInteger(want) || want < 1 || want > neblock) {
      throw new UsageError("OUT_OF_RANGE", "wanted bytes outside the stream", { path, field: "want", expected: `1..${neblock}`, actual: want });
    }
    if (!Number.isInteger(from) || from < 0 || from >= want) {
      throw new UsageError("OUT_OF_RANGE", "first wanted byte outside the wanted prefix", { path, field: "from", expected: `0..${want - 1}`, actual: from });
    }
    const [ps = 0, pd = 0] = this.#reserve(Math.max(1, src.length), neblock);
    this.#heap.set(src, ps);
    const r = this.#exports.decode_stream_prefix(codecFormat, ps, src.length, pd, neblock, want);
    if (r >= want) return this.#heap.slice(pd + from, pd + want);
    // A prefix may end inside a sequence (ERR_SRC_TRUNCATED) or right after literals (a short
    // count); any other error is corruption whatever follows.
    if (!whole && (r === ERR_SRC_TRUNCATED || r >= 0)) return undefined;
    if (r < 0) throw kernelError(r, "blosc.stream", path);
    throw new FormatError("CORRUPT_STREAM", "stream decodes to fewer bytes than its block needs", { path, field: "blosc.stream", expected: `>= ${want}`, actual: r });
  }

  /**
   * Module memory for one zstd stream of `src` decoding to `dstLength` bytes: the stream copied
   * in, room for its output and for the sequence kernel's tables. Valid until the next call on
   * these kernels (the arena is reset per call).
   *
   * @example
   * ```ts
   * const arena = kernels.zstdArena(stream, 65536);
   * ```
   */
  zstdArena(src: Uint8Array, dstLength: number, unshuffleRoom = 0): ZstdArena {
    // The kernel reads 8 bytes at a time from the stream and 16 from the literals at the end of
    // the output; the padding keeps those reads inside the arena. Tables: symbol and bits bytes,
    // then base halfwords, for the three tables of at most 2^9 entries each. `unshuffleRoom`:
    // room for the unshuffled output (unshuffleInto), so that a byte-shuffled block is unshuffled
    // where it was decoded instead of copied out, in again and out again.
    const TABLE = 512;
    // The Huffman table of the literals (symbol bytes then bits bytes, 2^11 entries at most),
    // then the four streams' bounds and bits left.
    const HUFFMAN = 2048;
    const [ps = 0, pd = 0, pt = 0, pa = 0, pu = 0, ph = 0] = this.#reserve(src.length + 16, dstLength + 32, 3 * 4 * TABLE, 32 * 4, Math.max(1, unshuffleRoom), 2 * HUFFMAN + 9 * 4);
    const heap = this.#heap;
    heap.set(src, ps);
    heap.fill(0, ps + src.length, ps + src.length + 16);
    const ex = this.#exports;
    const buffer = heap.buffer;
    const args = new Uint32Array(buffer, pa, 21);
    const rep = new Uint32Array(buffer, pa + 21 * 4, 3);
    const result = new Int32Array(buffer, pa + 24 * 4, 5);
    args[0] = ps;
    args[4] = pd;
    // The table last copied in: the four streams of a block, and treeless blocks, share one.
    let huffmanIn: object | undefined;
    const huffmanTable = (table: { readonly maxBits: number; readonly symbol: Uint8Array; readonly bits: Uint8Array }): void => {
      if (huffmanIn === table) return;
      const n = 1 << table.maxBits;
      heap.set(table.symbol.subarray(0, n), ph);
      heap.set(table.bits.subarray(0, n), ph + HUFFMAN);
      huffmanIn = table;
    };
    const bounds = new Uint32Array(buffer, ph + 2 * HUFFMAN, 5);
    // Positions the kernels take as unsigned 32-bit numbers.
    const offsets = (...values: number[]): boolean => values.every((v) => Number.isInteger(v) && v >= 0 && v <= 0xffffffff);
    const left = new Int32Array(buffer, ph + 2 * HUFFMAN + 5 * 4, 4);
    return {
      src: heap.subarray(ps, ps + src.length),
      dst: heap.subarray(pd, pd + dstLength),
      run: (start, end, nbSeq, tables, literals, frameStart, blockStart, blockEnd, repeated) => {
        args[1] = start;
        args[2] = end;
        args[3] = nbSeq;
        args[5] = literals;
        args[6] = frameStart;
        args[7] = blockStart;
        args[8] = blockEnd;
        tables.forEach((t, k) => {
          const at = pt + k * 4 * TABLE;
          const n = 1 << t.accuracy;
          heap.set(t.symbol.subarray(0, n), at);
          heap.set(t.bits.subarray(0, n), at + TABLE);
          new Uint16Array(buffer, at + 2 * TABLE, n).set(t.base.subarray(0, n));
          args[9 + 4 * k] = at;
          args[10 + 4 * k] = at + TABLE;
          args[11 + 4 * k] = at + 2 * TABLE;
          args[12 + 4 * k] = t.accuracy;
        });
        rep[0] = repeated[0];
        rep[1] = repeated[1];
        rep[2] = repeated[2];
        const code = ex.zstd_sequences(pa, pa + 21 * 4, pa + 24 * 4);
        repeated[0] = rep[0]!;
        repeated[1] = rep[1]!;
        repeated[2] = rep[2]!;
        return { code, out: result[0]!, lit: result[1]!, a: result[2]!, b: result[3]!, done: result[4]! };
      },
      huffman: (start, end, table, from, to) => {
        const n = 1 << table.maxBits;
        if (!offsets(start, end, from, to) || table.maxBits < 1 || n > HUFFMAN || end > src.length || start >= end || from > to || to > dstLength) {
          throw new UsageError("INVALID_ARGUMENT", "Huffman stream or table outside the arena", { field: "huffman", actual: [start, end, table.maxBits, from, to] });
        }
        huffmanTable(table);
        return ex.zstd_huffman(ps, start, end, ph, ph + HUFFMAN, table.maxBits, pd, from, to);
      },
      huffman4: (streams, table, base, segment, end) => {
        let fits = offsets(...streams, base, segment, end) && table.maxBits >= 1 && 1 << table.maxBits <= HUFFMAN && streams.length === 5 && base + 3 * segment <= end && end - base - 3 * segment <= segment && end <= dstLength;
        for (let k = 0; k < 4; k++) fits &&= streams[k]! < streams[k + 1]! && streams[k + 1]! <= src.length;
        if (!fits) throw new UsageError("INVALID_ARGUMENT", "Huffman streams or table outside the arena", { field: "huffman", actual: [...streams, table.maxBits, base, segment, end] });
        huffmanTable(table);
        bounds.set(streams);
        ex.zstd_huffman4(ps, ph + 2 * HUFFMAN, ph, ph + HUFFMAN, table.maxBits, pd, base, segment, end, ph + 2 * HUFFMAN + 5 * 4);
        return [left[0]!, left[1]!, left[2]!, left[3]!];
      },
      unshuffleInto: (typesize, out) => {
        checkTypesize(typesize);
        if (out.length > unshuffleRoom || out.length > dstLength) {
          throw new UsageError("INVALID_ARGUMENT", "unshuffle larger than the arena's room", { field: "out.length", expected: `<= ${Math.min(unshuffleRoom, dstLength)}`, actual: out.length });
        }
        ex.unshuffle(typesize, out.length, pd, pu);
        out.set(heap.subarray(pu, pu + out.length));
      },
    };
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
   * Encode one block: filter, split into `nsplits` streams, compress each (stored raw unless the
   * stream is shorter than the split) and write each as i32 csize + bytes, exactly as a Blosc 1.x
   * block is laid out after its bstart.
   *
   * @returns the block's bytes (at most `block.length + 4 * nsplits`).
   * @example
   * ```ts
   * const body = kernels.encodeBlock(block, { typesize: 8, nsplits: 8, codec: "lz4", shuffle: 1, clevel: 5 });
   * ```
   */
  encodeBlock(block: Uint8Array, options: EncodeBlockOptions): Uint8Array {
    const codecNumber = blockCodec(block.length, options);
    const [ps = 0, pd = 0, pscratch = 0] = this.#reserve(block.length, block.length + 4 * options.nsplits, 2 * block.length);
    const length = this.#encodeBlockAt(block, options, codecNumber, ps, pd, pscratch);
    return this.#heap.slice(pd, pd + length);
  }

  /**
   * {@link WasmKernels.encodeBlock} written straight into `out` at `offset`. When the encoded
   * block is longer than the room left in `out`, nothing is written.
   *
   * @returns the encoded length (written when `offset + length <= out.length`).
   * @example
   * ```ts
   * const n = kernels.encodeBlockInto(block, { typesize: 8, nsplits: 8, codec: "lz4", shuffle: 1, clevel: 5 }, chunk, 16 + 4 * nblocks);
   * ```
   */
  encodeBlockInto(block: Uint8Array, options: EncodeBlockOptions, out: Uint8Array, offset: number): number {
    const codecNumber = blockCodec(block.length, options);
    const [ps = 0, pd = 0, pscratch = 0] = this.#reserve(block.length, block.length + 4 * options.nsplits, 2 * block.length);
    const length = this.#encodeBlockAt(block, options, codecNumber, ps, pd, pscratch);
    if (offset + length <= out.length) out.set(this.#heap.subarray(pd, pd + length), offset);
    return length;
  }

  /**
   * The blocks of a chunk (`blocksize` bytes each, the last one shorter), each encoded as by
   * {@link WasmKernels.encodeBlock} (`nsplits` streams, one for the short last block) one after
   * another in one region of the module's memory, the block starts written: the whole Blosc chunk
   * but its 16-byte header, which is the caller's to write, after `headroom` free bytes. No copy
   * out: the result is a view of the module's memory, valid until the next call on these kernels.
   * The memory grows to hold the whole chunk (callers keep this for chunks of a few MiB).
   * `undefined` for empty data and when the chunk would pass `data.length + 16` bytes (c-blosc
   * stores it raw then).
   *
   * @example
   * ```ts
   * const region = kernels.encodeChunkTransient(rows, { blocksize: 131072, typesize: 8, nsplits: 8, codec: "lz4", shuffle: 1, clevel: 5 }, 16);
   * const chunk = region?.subarray(16); // header at chunk[0..16), then block starts and blocks
   * ```
   */
  encodeChunkTransient(data: Uint8Array, options: EncodeBlockOptions & { blocksize: number }, headroom = 0): Uint8Array | undefined {
    const { blocksize, nsplits } = options;
    const nbytes = data.length;
    const nblocks = Math.ceil(nbytes / blocksize);
    const maxbytes = nbytes + BLOSC_CHUNK_HEADER;
    let ntbytes = BLOSC_CHUNK_HEADER + 4 * nblocks;
    if (nbytes === 0 || ntbytes > maxbytes) return undefined;
    const first = Math.min(blocksize, nbytes);
    const codecNumber = blockCodec(first, first === blocksize ? options : { ...options, nsplits: 1 });
    // c-blosc's limit plus one block's worst case: the encoder never writes past the region.
    const [region = 0, ps = 0, pscratch = 0] = this.#reserve(headroom + maxbytes + first + 4 * nsplits, first, 2 * first);
    const chunk = region + headroom;
    for (let j = 0; j < nblocks; j++) {
      const block = data.subarray(j * blocksize, Math.min(nbytes, (j + 1) * blocksize));
      const at = chunk + BLOSC_CHUNK_HEADER + 4 * j;
      this.#heap.set([ntbytes & 0xff, (ntbytes >>> 8) & 0xff, (ntbytes >>> 16) & 0xff, ntbytes >>> 24], at);
      ntbytes += this.#encodeBlockAt(block, { ...options, nsplits: block.length === blocksize ? nsplits : 1 }, codecNumber, ps, chunk + ntbytes, pscratch);
      if (ntbytes > maxbytes) return undefined;
    }
    return this.#heap.subarray(region, chunk + ntbytes);
  }

  /** Encodes one block, copied to `ps`, at `pd` (room for `block.length + 4 * nsplits` bytes); its length. */
  #encodeBlockAt(block: Uint8Array, options: EncodeBlockOptions, codecNumber: number, ps: number, pd: number, pscratch: number): number {
    const { typesize, nsplits, shuffle, clevel } = options;
    this.#heap.set(block, ps);
    const r = this.#exports.encode_block(ps, block.length, typesize, nsplits, codecNumber, shuffle, clevel, pd, block.length + 4 * nsplits, pscratch);
    if (r < 0) throw new UsageError("INVALID_ARGUMENT", "block could not be encoded", { field: "block", actual: r });
    return r;
  }
}
