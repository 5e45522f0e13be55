/**
 * Blosc 1.x chunk writer that mirrors c-blosc 1.21's choices: the same block size
 * (compute_blocksize), the same flags byte (shuffle bit, dont-split bit and codec bits even on
 * memcpyed chunks), the forward-compatible split rule, per-stream raw storage, and the memcpy
 * fallback when a chunk would not fit in `nbytes + 16` bytes. Chunks decode with every c-blosc
 * from 1.14 on (format-facts 1.14).
 *
 * Stream codecs run in WebAssembly when the SIMD kernels load (blosclz, lz4, lz4hc and both
 * shuffles) and in TypeScript otherwise; zlib uses fflate and zstd the official library compiled
 * to WebAssembly (see {@link initZstd}). This module checks the request and writes the chunk;
 * compress-blocks.ts encodes its blocks.
 *
 * @example
 * ```ts
 * import { compress, decompress } from "@fmt/blosc";
 * const data = new Uint8Array(new Float64Array(100_000).map((_, i) => Math.sin(i)).buffer);
 * const chunk = compress(data, { typesize: 8, clevel: 5, shuffle: 1, cname: "lz4" });
 * decompress(chunk); // equal to data
 * ```
 * @module
 */
import { UsageError } from "@fmt/errors";
import {
  BLOSC_HEADER_SIZE,
  BLOSC_MAX_BLOCKSIZE,
  BLOSC_MAX_BUFFERSIZE,
  BLOSC_MAX_TYPESIZE,
  BLOSC_VERSION_FORMAT,
  BLOSC_VERSION_LZ,
  MAX_SPLITS,
  MIN_BUFFERSIZE,
  chunkFlags,
  writeChunkHeader,
  type CodecName,
} from "@fmt/header";
import { compressBlocks, type BlockJob } from "./compress-blocks.js";
import { initWasmKernels, loadWasmKernels, type WasmCodecName, type WasmKernels } from "./wasm/index.js";
import type { ZlibCodec } from "./zlib.js";
import { defaultZstdEncoder, initZstd, type ZstdEncoder } from "./zstd-encode.js";

/**
 * Compression parameters, as in bcolz's `cparams` plus an optional forced block size.
 *
 * @example
 * ```ts
 * const options: CompressOptions = { typesize: 8, clevel: 5, shuffle: 1, cname: "lz4" };
 * ```
 */
export interface CompressOptions {
  /** Element size for the shuffle filters and the split rule; values above 255 are stored as 1. */
  typesize: number;
  /** 0 (store uncompressed) to 9. */
  clevel: number;
  /** 0 none, 1 byte shuffle, 2 bit shuffle. */
  shuffle: 0 | 1 | 2;
  /** Stream codec. `"zstd"` needs an encoder: `zstd` below, or {@link initZstd} first. */
  cname: CodecName;
  /**
   * zstd encoder for this call (from `loadZstdEncoder()`); absent: the one {@link initZstd}
   * loaded. Passing it keeps a program free of any shared initialisation state.
   */
  zstd?: ZstdEncoder | undefined;
  /** zlib implementation for this call (e.g. `nodeZlib` from `@fmt/blosc/node`); default fflate. */
  zlib?: ZlibCodec | undefined;
  /**
   * {@link CodecBackend} for this call; absent: the module default of {@link setCodecBackend}.
   * `"wasm"` where the kernels cannot load throws INVALID_ARGUMENT.
   */
  backend?: CodecBackend | undefined;
  /**
   * Forced block size in bytes (like `blosc_set_blocksize`); 0 or absent chooses it the way
   * c-blosc 1.21 does. c-blosc also applies its minimum of 128 bytes and its enlargement for
   * splitting codecs to a forced size, and so does this function.
   */
  blocksize?: number | undefined;
}

/**
 * Which implementation runs the shuffles and the blosclz/lz4/lz4hc encoders: `"wasm"` the
 * WebAssembly SIMD kernels for all of them (an error where they cannot load), `"js"` TypeScript
 * only, `"auto"` (the default) the kernels for the shuffles, blosclz and lz4, TypeScript for lz4hc
 * (closer to real LZ4's ratios), and TypeScript throughout where the kernels cannot load.
 * All produce chunks that decode to the same bytes; lz4 chunks are the same bytes on every
 * backend (c-blosc 1.21's), other codecs' compressed bytes may differ.
 *
 * @example
 * ```ts
 * const backend: CodecBackend = "js";
 * ```
 */
export type CodecBackend = "wasm" | "js" | "auto";

const CODEC_NAMES: readonly CodecName[] = ["blosclz", "lz4", "lz4hc", "snappy", "zlib", "zstd"];
/** Codecs c-blosc gives twice the base block size ("high compression ratio" codecs). */
const HIGH_RATIO_CODECS: ReadonlySet<CodecName> = new Set<CodecName>(["lz4hc", "zlib", "zstd"]);
/**
 * Codecs whose WebAssembly stream encoder `"auto"` uses. The WebAssembly lz4 encoder runs the
 * same algorithm as the TypeScript one (LZ4's fast compressor: c-blosc's blocks), only faster. The
 * WebAssembly lz4hc encoder is faster but compresses some unshuffled data worse than real lz4hc,
 * while the TypeScript one stays within 1%; `"wasm"` uses all three, `"auto"` keeps lz4hc on
 * TypeScript until that encoder catches up.
 */
const AUTO_WASM_CODECS: ReadonlySet<CodecName> = new Set<CodecName>(["blosclz", "lz4"]);
/** c-blosc's base block size (`L1`). */
const L1 = 32 * 1024;

let backend: CodecBackend = "auto";
/** `null`: loading was tried and failed; retried only after {@link initCompression}. */
let kernels: WasmKernels | null | undefined;

function wasmKernels(): WasmKernels | undefined {
  if (kernels === undefined) kernels = loadWasmKernels() ?? null;
  return kernels ?? undefined;
}

/**
 * Choose the backend of {@link compress} for the whole module (tests force each one).
 *
 * @param choice - `"wasm"`, `"js"` or `"auto"`.
 * @throws UsageError INVALID_ARGUMENT for another value, or for `"wasm"` where the WebAssembly
 *   kernels cannot load.
 * @example
 * ```ts
 * setCodecBackend("js");
 * const chunk = compress(data, { typesize: 4, clevel: 5, shuffle: 1, cname: "blosclz" });
 * setCodecBackend("auto");
 * ```
 */
export function setCodecBackend(choice: CodecBackend): void {
  checkBackend(choice);
  backend = choice;
}

function checkBackend(choice: CodecBackend): void {
  if (choice !== "wasm" && choice !== "js" && choice !== "auto") {
    throw new UsageError("INVALID_ARGUMENT", "codec backend must be wasm, js or auto", { field: "backend", expected: "wasm | js | auto", actual: choice });
  }
  if (choice === "wasm" && wasmKernels() === undefined) {
    throw new UsageError("INVALID_ARGUMENT", "WebAssembly SIMD kernels are not available here", { field: "backend", expected: "a runtime with WebAssembly SIMD", actual: choice });
  }
}

/**
 * The backend {@link compress} uses now: `"wasm"` or `"js"` (never `"auto"`: that is resolved).
 *
 * @example
 * ```ts
 * getCodecBackend(); // "wasm" in Node 20
 * ```
 */
export function getCodecBackend(): "wasm" | "js" {
  if (backend === "js") return "js";
  return wasmKernels() === undefined ? "js" : "wasm";
}

/**
 * What {@link initCompression} prepares.
 *
 * @example
 * ```ts
 * const options: InitCompressionOptions = { zstd: false }; // the SIMD kernels only
 * ```
 */
export interface InitCompressionOptions {
  /**
   * Load the zstd encoder too (default `true`). Loading it takes ~0.1 s once per thread (libzstd
   * in WebAssembly, inlined as base64), which a writer of lz4, BloscLZ, zlib or snappy chunks
   * need not pay: {@link initZstd} loads it later when a zstd chunk is to be written.
   */
  zstd?: boolean;
}

/**
 * Prepare everything {@link compress} can use, for runtimes that refuse synchronous WebAssembly
 * compilation of large modules (browser main threads): compiles the SIMD kernels asynchronously
 * and loads the zstd encoder (unless `options.zstd` is `false`). In Node it is needed only for
 * zstd.
 *
 * @example
 * ```ts
 * await initCompression();
 * compress(data, { typesize: 8, clevel: 9, shuffle: 2, cname: "zstd" });
 * await initCompression({ zstd: false }); // kernels only, for lz4 and BloscLZ
 * ```
 */
export async function initCompression(options: InitCompressionOptions = {}): Promise<void> {
  const [loaded] = await Promise.all([initWasmKernels(), options.zstd === false ? undefined : initZstd()]);
  if (loaded !== undefined) kernels = loaded;
}

/**
 * Whether c-blosc 1.14–1.21 (forward-compatible split mode) splits the blocks of a chunk into
 * `typesize` streams: codec not zstd, typesize ≤ 16 and at least 128 elements per block.
 *
 * @param cname - codec.
 * @param typesize - element size as stored (after the >255 → 1 rule).
 * @param blocksize - the chunk's block size.
 * @example
 * ```ts
 * splitsBlocks("lz4", 8, 262144); // true
 * splitsBlocks("zstd", 8, 262144); // false
 * ```
 */
export function splitsBlocks(cname: CodecName, typesize: number, blocksize: number): boolean {
  return cname !== "zstd" && typesize <= MAX_SPLITS && Math.floor(blocksize / typesize) >= MIN_BUFFERSIZE;
}

/**
 * The block size c-blosc 1.21 picks (format-facts 1.9): from 32 KiB (64 KiB for lz4hc, zlib and
 * zstd) scaled by clevel, or the forced size (at least 128); for splitting codecs at clevel > 0
 * capped at 256 KiB, multiplied by typesize, raised to 64 KiB and capped at 1 MiB; then at most
 * nbytes and rounded down to a multiple of typesize. `nbytes < typesize` gives 1.
 *
 * @param nbytes - uncompressed chunk size.
 * @param options - typesize (requested; > 255 counts as 1), clevel, cname and optional forced blocksize.
 * @throws UsageError INVALID_ARGUMENT for out-of-range parameters.
 * @example
 * ```ts
 * computeBlocksize(1 << 20, { typesize: 8, clevel: 5, cname: "lz4" }); // 1048576
 * computeBlocksize(1 << 20, { typesize: 4, clevel: 5, cname: "zstd" }); // 262144
 * ```
 */
export function computeBlocksize(nbytes: number, options: Pick<CompressOptions, "typesize" | "clevel" | "cname" | "blocksize">): number {
  checkOptions(options);
  if (!Number.isInteger(nbytes) || nbytes < 0 || nbytes > BLOSC_MAX_BUFFERSIZE) {
    throw new UsageError("SIZE_LIMIT", "nbytes must be an integer in 0..2147483631", { field: "nbytes", expected: `0..${BLOSC_MAX_BUFFERSIZE}`, actual: nbytes });
  }
  return blocksizeFor(nbytes, storedTypesize(options.typesize), options.clevel, options.cname, options.blocksize ?? 0);
}

function storedTypesize(typesize: number): number {
  return typesize > BLOSC_MAX_TYPESIZE ? 1 : typesize;
}

function blocksizeFor(nbytes: number, typesize: number, clevel: number, cname: CodecName, forced: number): number {
  if (nbytes < typesize) return 1;
  let blocksize = nbytes;
  if (forced > 0) {
    blocksize = Math.min(Math.max(forced, MIN_BUFFERSIZE), BLOSC_MAX_BLOCKSIZE);
  } else if (nbytes >= L1) {
    blocksize = HIGH_RATIO_CODECS.has(cname) ? 2 * L1 : L1;
    if (clevel === 0) blocksize /= 4;
    else if (clevel === 1) blocksize /= 2;
    else if (clevel === 3) blocksize *= 2;
    else if (clevel === 4 || clevel === 5) blocksize *= 4;
    else if (clevel >= 6 && clevel <= 8) blocksize *= 8;
    else if (clevel === 9) blocksize *= HIGH_RATIO_CODECS.has(cname) ? 16 : 8;
  }
  if (clevel > 0 && splitsBlocks(cname, typesize, blocksize)) {
    blocksize = Math.min(blocksize, 1 << 18) * typesize;
    blocksize = Math.min(Math.max(blocksize, 1 << 16), 1 << 20);
  }
  if (blocksize > nbytes) blocksize = nbytes;
  if (blocksize > typesize) blocksize = Math.floor(blocksize / typesize) * typesize;
  return blocksize;
}

function checkOptions(options: Pick<CompressOptions, "typesize" | "clevel" | "cname" | "blocksize"> & { shuffle?: unknown }): void {
  if (typeof options !== "object" || options === null) {
    throw new UsageError("INVALID_ARGUMENT", "compression options are required", { field: "cparams", expected: "{typesize, clevel, shuffle, cname}", actual: options });
  }
  const { typesize, clevel, cname, blocksize } = options;
  if (!Number.isInteger(typesize) || typesize < 1 || typesize > BLOSC_MAX_BUFFERSIZE) {
    throw new UsageError("INVALID_ARGUMENT", "typesize must be a positive integer", { field: "cparams.typesize", expected: ">= 1", actual: typesize });
  }
  if (!Number.isInteger(clevel) || clevel < 0 || clevel > 9) {
    throw new UsageError("INVALID_ARGUMENT", "clevel must be an integer from 0 to 9", { field: "cparams.clevel", expected: "0..9", actual: clevel });
  }
  if (!CODEC_NAMES.includes(cname)) {
    throw new UsageError("INVALID_ARGUMENT", "unknown compressor name", { field: "cparams.cname", expected: CODEC_NAMES.join(", "), actual: cname });
  }
  if (blocksize !== undefined && (!Number.isInteger(blocksize) || blocksize < 0)) {
    throw new UsageError("INVALID_ARGUMENT", "blocksize must be a non-negative integer (0 = automatic)", { field: "cparams.blocksize", expected: ">= 0", actual: blocksize });
  }
}

/**
 * Compress `data` into one Blosc 1.x chunk (16-byte header + body) exactly as c-blosc 1.21 lays
 * it out: block size, flags, split decision, raw streams and memcpy fallback all follow c-blosc,
 * so the header matches the one c-blosc would write except `cbytes` (codec output differs). The
 * chunk is never longer than `data.length + 16`. Empty input, `clevel` 0 and inputs shorter than
 * 128 bytes give a memcpyed chunk.
 *
 * @param data - the bytes to compress (at most 2,147,483,631), not a view of the WebAssembly
 *   kernels' memory (a `…Transient` result), which compressing reuses.
 * @param options - {@link CompressOptions}.
 * @returns a new array holding exactly the chunk (`cbytes` bytes).
 * @throws UsageError INVALID_ARGUMENT for bad options, or zstd with neither `options.zstd` nor
 *   {@link initZstd};
 *   UsageError SIZE_LIMIT for oversized input.
 * @example
 * ```ts
 * const ints = new Int32Array(65536).map((_, i) => i);
 * const chunk = compress(new Uint8Array(ints.buffer), { typesize: 4, clevel: 5, shuffle: 1, cname: "lz4" });
 * chunk[2]; // 0x21: shuffle, split allowed, lz4
 * ```
 */
export function compress(data: Uint8Array, options: CompressOptions): Uint8Array {
  const job = prepare(data, options);
  const wasm = wholeChunkEncoder(job);
  if (wasm !== undefined) {
    // Copied once, out of the kernels' memory.
    const chunk = encodeInKernels(job, wasm, 0);
    if (chunk !== undefined) return chunk.slice();
  } else if (job.encode) {
    const room = chunkScratch(job.nbytes + BLOSC_HEADER_SIZE).subarray(0, job.nbytes + BLOSC_HEADER_SIZE);
    const cbytes = encodeInto(job, room);
    // The scratch is shared by every call: the chunk leaves in a copy of its own.
    if (cbytes > 0) return room.slice(0, cbytes);
  }
  const chunk = new Uint8Array(job.nbytes + BLOSC_HEADER_SIZE);
  storeMemcpyed(job, chunk);
  return chunk;
}

/**
 * {@link compress} into `out`, which must hold `data.length + 16` bytes (the largest chunk Blosc
 * can make, a memcpyed one): the chunk is written at the start of `out` and its length returned.
 * For writers that store each chunk at once and reuse one buffer, without a fresh array (and its
 * first-touch page faults and garbage) per chunk. The bytes are those {@link compress} returns;
 * `data`, like there, must not be a view of the kernels' memory.
 *
 * @returns the chunk's length (`cbytes`); the chunk is `out.subarray(0, cbytes)`.
 * @throws UsageError as {@link compress}; INVALID_ARGUMENT when `out` is smaller than
 *   `data.length + 16`.
 * @example
 * ```ts
 * const rows = new Uint8Array(new Float64Array(65536).map(Math.sqrt).buffer);
 * const out = new Uint8Array(rows.length + 16);
 * const cbytes = compressInto(rows, { typesize: 8, clevel: 5, shuffle: 1, cname: "lz4" }, out);
 * const chunk = out.subarray(0, cbytes);
 * ```
 */
export function compressInto(data: Uint8Array, options: CompressOptions, out: Uint8Array): number {
  const job = prepare(data, options);
  if (!(out instanceof Uint8Array) || out.length < job.nbytes + BLOSC_HEADER_SIZE) {
    throw new UsageError("INVALID_ARGUMENT", "out must hold data.length + 16 bytes", {
      field: "out", expected: `a Uint8Array of >= ${job.nbytes + BLOSC_HEADER_SIZE} bytes`, actual: out instanceof Uint8Array ? out.length : typeof out,
    });
  }
  const room = out.subarray(0, job.nbytes + BLOSC_HEADER_SIZE);
  if (job.encode) {
    const cbytes = encodeInto(job, room);
    if (cbytes > 0) return cbytes;
  }
  storeMemcpyed(job, room);
  return room.length;
}

/**
 * The most free bytes {@link compressTransient} (and a pool's `compressLent`) leaves before a
 * chunk: room for a file header, not a second buffer. @internal
 *
 * @example
 * ```ts
 * if (headroom > MAX_HEADROOM) throw new UsageError("INVALID_ARGUMENT", "headroom too large", { field: "headroom" });
 * ```
 */
export const MAX_HEADROOM = 65536;

/**
 * {@link compress} without the copy out of the WebAssembly kernels: the chunk is left in their
 * memory, with `headroom` free bytes before it that the caller may write (a file header), and
 * handed back as a view there — valid only until the next call into @fmt/blosc, which may reuse
 * or grow that memory (which detaches the view). For a writer that stores the chunk at once (a
 * synchronous file write, a copy into a larger buffer) before anything else runs. `undefined`
 * when the kernels do not make this chunk — codec snappy, zlib or zstd (lz4hc unless the backend
 * is `"wasm"`), the `"js"` backend, no WebAssembly, data over 4 MiB (encoded block by block
 * elsewhere), or a chunk c-blosc stores memcpyed (clevel 0, tiny or incompressible input):
 * {@link compressInto} then. The bytes are those {@link compress} returns. `data` must not itself
 * lie in the kernels' memory.
 *
 * @param headroom - free bytes wanted before the chunk, 0..65536.
 * @throws UsageError as {@link compress}; INVALID_ARGUMENT for a bad `headroom`.
 * @example
 * ```ts
 * const chunk = compressTransient(rows, { typesize: 8, clevel: 5, shuffle: 1, cname: "lz4" }, 16);
 * if (chunk !== undefined) {
 *   const file = new Uint8Array(chunk.buffer, chunk.byteOffset - 16, 16 + chunk.length);
 *   file.set(fileHeader); // then write `file` before calling @fmt/blosc again
 * }
 * ```
 */
export function compressTransient(data: Uint8Array, options: CompressOptions, headroom = 0): Uint8Array | undefined {
  if (!Number.isSafeInteger(headroom) || headroom < 0 || headroom > MAX_HEADROOM) {
    throw new UsageError("INVALID_ARGUMENT", "headroom must be an integer in 0..65536", { field: "headroom", expected: "0..65536", actual: headroom });
  }
  const job = prepare(data, options);
  const wasm = wholeChunkEncoder(job);
  return wasm === undefined ? undefined : encodeInKernels(job, wasm, headroom);
}

/** A checked compression request: the block job, its chunk header, and whether to encode at all. */
interface PreparedChunk extends BlockJob {
  nbytes: number;
  flags: number;
  header: { version: number; versionlz: number; typesize: number; nbytes: number; blocksize: number };
  /** Encode (clevel > 0 and enough bytes); otherwise the chunk is stored memcpyed. */
  encode: boolean;
  options: CompressOptions;
}

function prepare(data: Uint8Array, options: CompressOptions): PreparedChunk {
  if (!(data instanceof Uint8Array)) {
    throw new UsageError("INVALID_ARGUMENT", "data must be a Uint8Array", { field: "data", expected: "Uint8Array", actual: typeof data });
  }
  checkOptions(options);
  if (options.backend !== undefined) checkBackend(options.backend);
  const { clevel, cname, shuffle } = options;
  if (shuffle !== 0 && shuffle !== 1 && shuffle !== 2) {
    throw new UsageError("INVALID_ARGUMENT", "shuffle must be 0, 1 or 2", { field: "cparams.shuffle", expected: "0, 1 or 2", actual: shuffle });
  }
  const nbytes = data.length;
  if (nbytes > BLOSC_MAX_BUFFERSIZE) {
    throw new UsageError("SIZE_LIMIT", "a Blosc chunk holds at most 2147483631 bytes", { field: "nbytes", expected: `<= ${BLOSC_MAX_BUFFERSIZE}`, actual: nbytes });
  }
  const zstd = cname === "zstd" ? (options.zstd ?? defaultZstdEncoder()) : undefined;
  const typesize = storedTypesize(options.typesize);
  const blocksize = blocksizeFor(nbytes, typesize, clevel, cname, options.blocksize ?? 0);
  const dontSplit = !splitsBlocks(cname, typesize, blocksize);
  const flags = chunkFlags({ shuffle, memcpyed: false, dontSplit, codec: cname });
  const header = { version: BLOSC_VERSION_FORMAT, versionlz: BLOSC_VERSION_LZ, typesize, nbytes, blocksize };
  return { data, typesize, blocksize, clevel, cname, shuffle, dontSplit, zstd, zlib: options.zlib, nbytes, flags, header, encode: clevel > 0 && nbytes >= MIN_BUFFERSIZE, options };
}

/** Encodes the chunk into `room` (`nbytes + 16` bytes), header included; 0 when it does not fit (store it memcpyed). */
function encodeInto(job: PreparedChunk, room: Uint8Array): number {
  const whole = wholeChunkEncoder(job);
  if (whole !== undefined) {
    const chunk = encodeInKernels(job, whole, 0);
    if (chunk === undefined) return 0;
    room.set(chunk);
    return chunk.length;
  }
  const choice = job.options.backend ?? backend;
  const cbytes = compressBlocks(job, choice === "js" ? undefined : wasmKernels(), wasmEncoder(job) !== undefined, room);
  if (cbytes > 0) writeChunkHeader({ ...job.header, flags: job.flags, cbytes }, room);
  return cbytes;
}

/**
 * Chunks up to this size are encoded whole in the kernels' memory (one call per block, one copy
 * out); larger ones block by block, so that the memory grows by a few blocks, not by the chunk.
 */
const WHOLE_CHUNK_IN_KERNELS = 4 * 1024 * 1024;

/** The kernels when they encode this chunk's codec (blosclz, lz4; lz4hc when asked for); else `undefined`. */
function wasmEncoder(job: PreparedChunk): WasmKernels | undefined {
  const choice = job.options.backend ?? backend;
  const { cname } = job;
  if (choice === "js" || !(cname === "blosclz" || cname === "lz4" || cname === "lz4hc") || (choice !== "wasm" && !AUTO_WASM_CODECS.has(cname))) return undefined;
  return wasmKernels();
}

/** The kernels when they encode this chunk whole in their memory: an encoded chunk of their codec, up to 4 MiB. */
function wholeChunkEncoder(job: PreparedChunk): WasmKernels | undefined {
  return job.encode && job.nbytes <= WHOLE_CHUNK_IN_KERNELS ? wasmEncoder(job) : undefined;
}

/**
 * The whole chunk, header written, encoded in the kernels' memory after `headroom` free bytes: one
 * call filters, splits and encodes each block (non-snappy codecs never emit a stream longer than
 * its split, so checking the total afterwards decides fit exactly as c-blosc's per-stream limits
 * do). `undefined` when it does not fit (store it memcpyed).
 */
function encodeInKernels(job: PreparedChunk, wasm: WasmKernels, headroom: number): Uint8Array | undefined {
  const { typesize, blocksize, cname, shuffle, clevel, dontSplit } = job;
  const region = wasm.encodeChunkTransient(job.data, { blocksize, typesize, nsplits: dontSplit ? 1 : typesize, codec: cname as WasmCodecName, shuffle, clevel }, headroom);
  if (region === undefined) return undefined;
  const chunk = region.subarray(headroom);
  writeChunkHeader({ ...job.header, flags: job.flags, cbytes: chunk.length }, chunk);
  return chunk;
}

/** The memcpyed chunk (header, then the bytes unchanged) in `room`, which holds exactly `nbytes + 16` bytes. */
function storeMemcpyed(job: PreparedChunk, room: Uint8Array): void {
  writeChunkHeader({ ...job.header, flags: job.flags | 0x02, cbytes: job.nbytes + BLOSC_HEADER_SIZE }, room);
  room.set(job.data, BLOSC_HEADER_SIZE);
}

/** Chunks up to this size are assembled in one reused buffer instead of a fresh one each call. */
const REUSED_CHUNK_LIMIT = 4 * 1024 * 1024;
let reusedChunk = new Uint8Array(0);

/**
 * Room to assemble a chunk of up to `size` bytes. Allocating a large ArrayBuffer costs about as much
 * as compressing it with the WebAssembly encoders, so small chunks share one buffer; the caller
 * copies the finished chunk out (`slice`) and writes every byte it copies.
 */
function chunkScratch(size: number): Uint8Array {
  if (size > REUSED_CHUNK_LIMIT) return new Uint8Array(size);
  if (reusedChunk.length < size) reusedChunk = new Uint8Array(Math.min(REUSED_CHUNK_LIMIT, Math.max(size, 2 * reusedChunk.length)));
  return reusedChunk;
}
