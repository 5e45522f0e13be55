/**
 * One validation per chunk: {@link planChunk} reads a Blosc 1.x header, its `bstarts` table and
 * (optionally) the layout of every stream once, and returns a {@link ChunkPlan} that the decoders
 * accept instead of validating the same bytes again at every layer.
 *
 * @example
 * ```ts
 * import { planChunk } from "./plan.js";
 * const plan = planChunk(chunk, { path: "data/__0.blp", maxBytes: 8 * 65536 });
 * console.log(plan.header.nbytes, plan.nblocks);
 * ```
 * @module
 */
import { FormatError, UsageError } from "@fmt/errors";
import { BLOSC_HEADER_SIZE, BLOSC_MAX_BUFFERSIZE, blockLayout, readBstarts, readChunkHeader, splitCount } from "@fmt/header";
import type { ChunkHeader, CodecFormat } from "@fmt/header";
import type { ZlibCodec } from "./zlib.js";

/**
 * A chunk's validated layout, made only by {@link planChunk} or {@link planChunkHead}: decoders
 * given a plan skip the header, `bstarts` and (when `streamsChecked`) stream checks. A plan
 * belongs to the bytes it was made from; pass it with those bytes only.
 *
 * @example
 * ```ts
 * const plan: ChunkPlan = planChunk(chunk);
 * const out = new Uint8Array(plan.header.nbytes);
 * decompressPlannedInto(chunk, plan, out);
 * ```
 */
export interface ChunkPlan {
  /** The validated header. */
  readonly header: ChunkHeader;
  /** Absolute offset of each block's first stream (empty for memcpyed and empty chunks). */
  readonly bstarts: Int32Array;
  /** Number of blocks. */
  readonly nblocks: number;
  /** Size of the last, partial block (0 when every block is full). */
  readonly leftover: number;
  /** File or key named in errors. */
  readonly path: string | undefined;
  /** Whether the stream layout of every block has been checked (plans from a whole chunk). */
  readonly streamsChecked: boolean;
  /** The zlib implementation the caller chose for this chunk (undefined: the built-in one). */
  readonly zlib: ZlibCodec | undefined;
}

/**
 * Options of {@link planChunk} and of every decoding function.
 *
 * @example
 * ```ts
 * decompress(chunk, { path: "data/__3.blp", maxBytes: chunklen * itemsize });
 * ```
 */
export interface DecompressOptions {
  /** File or key the chunk came from, for error messages. */
  path?: string;
  /**
   * Decompression-bomb guard: refuse (FormatError SIZE_LIMIT, field `blosc.nbytes`) a chunk whose
   * header declares more than this many uncompressed bytes, before anything is allocated.
   * Callers that know the expected size (a bcolz store knows `chunklen × atomsize`) should pass
   * it. Default `BLOSC_MAX_BUFFERSIZE`.
   */
  maxBytes?: number;
  /** zlib implementation for this call (e.g. `nodeZlib` from `@fmt/blosc/node`); default fflate. */
  zlib?: ZlibCodec | undefined;
}

/**
 * Options of {@link planChunk} and {@link planChunkHead}.
 *
 * @example
 * ```ts
 * planChunk(chunk, { path, checkHeader: (h) => { if (h.nbytes !== expected) throw new Error("size"); } });
 * ```
 */
export interface PlanOptions extends DecompressOptions {
  /**
   * Called with the header right after it is read, before the block starts and streams are
   * looked at: the place for a caller's own expectations (a store knows each chunk's nbytes), so
   * that a wrong chunk is reported as such rather than as whatever its layout breaks first.
   */
  checkHeader?: (header: ChunkHeader) => void;
}

// Plans this module made; decoders refuse look-alike objects, whose numbers nobody checked.
const issued = new WeakSet<ChunkPlan>();

// Upper bounds on how many output bytes one input byte of each stream format can produce, plus a
// constant for the stream's own framing. They follow from the formats (LZ4 and BloscLZ lengths
// grow by at most 255 per extension byte; a 3-byte Snappy copy yields at most 64 bytes; one
// deflate symbol pair of 2 bits yields at most 258 bytes; a 4-byte zstd RLE block yields at most
// 128 KiB) with generous margins, and let a chunk whose streams cannot possibly fill its declared
// blocks be refused before its output buffer is allocated.
const MAX_EXPANSION: { readonly [K in CodecFormat]: [perByte: number, constant: number] } = {
  blosclz: [264, 64],
  lz4: [264, 64],
  snappy: [64, 64],
  zlib: [1100, 1024],
  zstd: [65536, 262144],
};

function checkMaxBytes(maxBytes: number | undefined): number {
  if (maxBytes === undefined) return BLOSC_MAX_BUFFERSIZE;
  if (typeof maxBytes !== "number" || !(maxBytes >= 0)) {
    throw new UsageError("INVALID_ARGUMENT", "maxBytes must be a non-negative number", { field: "maxBytes", expected: ">= 0", actual: maxBytes });
  }
  return maxBytes;
}

function checkChunkArgument(chunk: Uint8Array): void {
  if (!(chunk instanceof Uint8Array)) {
    throw new UsageError("INVALID_ARGUMENT", "chunk must be a Uint8Array", { field: "chunk", expected: "Uint8Array", actual: typeof chunk });
  }
}

/** The error of a chunk declaring more than the caller's `maxBytes`. */
function overAllowance(path: string | undefined, maxBytes: number, nbytes: number): FormatError {
  return new FormatError("SIZE_LIMIT", "chunk declares more uncompressed bytes than allowed", {
    path, field: "blosc.nbytes", expected: `<= ${maxBytes} (maxBytes)`, actual: nbytes,
  });
}

// Runs for every chunk read: no closure made per call (V8 optimized such closures again after
// each garbage collection; tools/bench/README.md, "Issue 16, step by step (2026-12-01, night
// session)").
function makePlan(chunk: Uint8Array, options: PlanOptions | undefined, available: number, streams: boolean): ChunkPlan {
  const path = options?.path;
  const maxBytes = checkMaxBytes(options?.maxBytes);
  let header;
  try {
    header = readChunkHeader(chunk, path, available);
  } catch (error) {
    // spec/v1.md §5.1 checks the caller's allowance on nbytes (step 5) before the blocksize
    // limit (step 8): a header that got as far as the blocksize answers with nbytes first.
    if (error instanceof FormatError && error.code === "SIZE_LIMIT" && error.field === "blosc.blocksize") {
      const nbytes = (chunk[4]! | (chunk[5]! << 8) | (chunk[6]! << 16) | (chunk[7]! << 24)) >>> 0;
      if (nbytes > maxBytes) throw overAllowance(path, maxBytes, nbytes);
    }
    throw error;
  }
  if (header.nbytes > maxBytes) throw overAllowance(path, maxBytes, header.nbytes);
  options?.checkHeader?.(header);
  const { nblocks, leftover } = blockLayout(header);
  const bstarts = readBstarts(chunk, header, path);
  const plan: ChunkPlan = { header, bstarts, nblocks, leftover, path, streamsChecked: streams || header.memcpyed || header.nbytes === 0, zlib: options?.zlib };
  if (streams && !header.memcpyed && header.nbytes > 0) checkStreams(chunk, 0, plan, 0, nblocks, header.cbytes);
  issued.add(plan);
  return plan;
}

/**
 * Validate a whole chunk once: header (format-facts 1.13), the `maxBytes` bomb guard, `bstarts`,
 * and the stream layout of every block (size prefixes inside `cbytes`, streams not impossibly
 * small for the bytes they must produce). Nothing is decoded.
 *
 * @param chunk - the chunk, starting at its header; bytes after `cbytes` are ignored.
 * @param options - path for messages, the `maxBytes` bomb guard and the caller's `checkHeader`.
 * @throws FormatError TRUNCATED, UNSUPPORTED_VERSION, BAD_HEADER, UNKNOWN_CODEC, SIZE_LIMIT, CORRUPT_STREAM.
 * @example
 * ```ts
 * const plan = planChunk(chunk, { path: "data/__0.blp", maxBytes: 524288 });
 * decompressPlannedInto(chunk, plan, out);
 * ```
 */
export function planChunk(chunk: Uint8Array, options?: PlanOptions): ChunkPlan {
  checkChunkArgument(chunk);
  return makePlan(chunk, options, chunk.length, true);
}

/**
 * {@link planChunk} without the stream checks, for decoders that check only the blocks they
 * decode (a range of a chunk whose other blocks are damaged still decodes, as in c-blosc).
 *
 * @example
 * ```ts
 * const plan = planChunkLazily(chunk, { path });
 * ```
 */
export function planChunkLazily(chunk: Uint8Array, options?: DecompressOptions): ChunkPlan {
  checkChunkArgument(chunk);
  return makePlan(chunk, options, chunk.length, false);
}

/**
 * Validate the beginning of a chunk — its 16-byte header and `bstarts` table — when only that
 * was read (a range read of a chunk file). `cbytes` is checked against `chunkLength`, the size the
 * whole chunk has. Streams are checked block by block when decoded ({@link decodeBlockInto}).
 *
 * @param head - the chunk's first bytes: at least {@link chunkHeadLength} of them.
 * @param chunkLength - bytes the whole chunk has (file size minus the container header).
 * @param options - path for messages and the `maxBytes` bomb guard.
 * @throws FormatError as {@link planChunk} (TRUNCATED when `head` lacks part of the table).
 * @example
 * ```ts
 * const plan = planChunkHead(first4k, fileSize - 16, { path: "data/__7.blp" });
 * ```
 */
export function planChunkHead(head: Uint8Array, chunkLength: number, options?: PlanOptions): ChunkPlan {
  checkChunkArgument(head);
  if (!Number.isSafeInteger(chunkLength) || chunkLength < head.length) {
    throw new UsageError("INVALID_ARGUMENT", "chunkLength must be an integer no smaller than the head", { path: options?.path, field: "chunkLength", expected: `>= ${head.length}`, actual: chunkLength });
  }
  const plan = makePlan(head, options, chunkLength, false);
  return plan;
}

/**
 * Bytes at the start of a chunk that hold its header and `bstarts` table: what
 * {@link planChunkHead} needs.
 *
 * @param header - a header read from the chunk's first 16 bytes.
 * @example
 * ```ts
 * const need = chunkHeadLength(readChunkHeader(first16, path, fileSize - 16));
 * ```
 */
export function chunkHeadLength(header: Pick<ChunkHeader, "nbytes" | "blocksize" | "memcpyed">): number {
  if (header.memcpyed) return BLOSC_HEADER_SIZE;
  return BLOSC_HEADER_SIZE + 4 * blockLayout(header).nblocks;
}

/**
 * Whether `plan` came from {@link planChunk} or {@link planChunkHead} (decoders refuse others).
 *
 * @throws UsageError INVALID_ARGUMENT for any other object.
 * @example
 * ```ts
 * requirePlan(plan);
 * ```
 */
export function requirePlan(plan: ChunkPlan): void {
  if (!issued.has(plan)) {
    throw new UsageError("INVALID_ARGUMENT", "plan must come from planChunk or planChunkHead", { field: "plan", expected: "a ChunkPlan" });
  }
}

/**
 * Compressed bytes block `j` may span: from its `bstart` to the next larger block start (or
 * `cbytes` for the block stored last). Writers store blocks in order, so this is the block's exact
 * extent; for unusual layouts a block's streams may run further (then read up to `cbytes`).
 *
 * @example
 * ```ts
 * const { start, end } = blockExtent(plan, 3); // read chunk bytes [start, end)
 * ```
 */
export function blockExtent(plan: ChunkPlan, j: number): { start: number; end: number } {
  const start = plan.bstarts[j]!;
  let end = plan.header.cbytes;
  for (const s of plan.bstarts) if (s > start && s < end) end = s;
  return { start, end };
}

/** The little-endian int32 at `at` (a Blosc stream's csize). @internal */
export function readI32(bytes: Uint8Array, at: number): number {
  return bytes[at]! | (bytes[at + 1]! << 8) | (bytes[at + 2]! << 16) | (bytes[at + 3]! << 24);
}

/**
 * Checks the stream structure of blocks [from, to) without decoding: every size prefix and stream
 * inside the bytes, split blocks divisible into equal streams, compressed streams not impossibly
 * small. `bytes[0]` is chunk offset `base`; `limit` is one past the last chunk offset the streams
 * may use. Messages and field names are built only when something is wrong.
 *
 * @example
 * ```ts
 * checkStreams(window, bstart, plan, j, j + 1, bstart + window.length);
 * ```
 */
export function checkStreams(bytes: Uint8Array, base: number, plan: ChunkPlan, from: number, to: number, limit: number): void {
  const { header, bstarts, nblocks, leftover, path } = plan;
  const expansion = MAX_EXPANSION[header.codec!];
  for (let j = from; j < to; j++) {
    const isLeftover = j === nblocks - 1 && leftover > 0;
    const bsize = isLeftover ? leftover : header.blocksize;
    const nsplits = splitCount(header, bsize, isLeftover);
    if (bsize % nsplits !== 0) {
      throw new FormatError("BAD_HEADER", "a split block's size is not a multiple of typesize", {
        path, field: "blosc.blocksize", expected: `multiple of ${nsplits}`, actual: bsize,
      });
    }
    const neblock = bsize / nsplits;
    let pos = bstarts[j]!;
    for (let k = 0; k < nsplits; k++) {
      if (pos > limit - 4 || pos < base) {
        throw new FormatError("TRUNCATED", "stream size prefix lies past cbytes", { path, field: `blosc.blocks[${j}].streams[${k}].csize`, expected: `offset <= ${limit - 4}`, actual: pos });
      }
      const csize = readI32(bytes, pos - base);
      pos += 4;
      if (csize < 0 || csize > limit - pos) {
        throw new FormatError("TRUNCATED", "stream runs past cbytes", { path, field: `blosc.blocks[${j}].streams[${k}].csize`, expected: `0..${limit - pos}`, actual: csize >>> 0 });
      }
      if (csize !== neblock && neblock > csize * expansion[0] + expansion[1]) {
        throw new FormatError("CORRUPT_STREAM", `a ${csize}-byte ${header.codec} stream cannot decode to ${neblock} bytes`, {
          path, field: `blosc.blocks[${j}].streams[${k}].csize`, expected: `>= ${Math.ceil((neblock - expansion[1]) / expansion[0])}`, actual: csize,
        });
      }
      pos += csize;
    }
  }
}
