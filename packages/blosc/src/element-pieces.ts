/**
 * A few bytes of one block read from pieces of its streams instead of from the whole chunk.
 *
 * In a byte-shuffled block split into one stream per byte plane, an element's bytes sit at the
 * same position of every plane. A plane stored raw gives its byte directly; a compressed plane
 * (lz4 or BloscLZ) decodes from its first byte up to that position, so only a prefix of it is
 * needed. Once a block's stream starts and sizes are known ({@link blockStreams}, from one whole
 * read), a single element costs a few small reads ({@link planBytePieces}) and a partial decode
 * ({@link decodeBytePieces}) — on the 440 KB chunks of a float64 random walk, about 6 KB instead
 * of the whole file. A prefix estimated too short is reported, and the caller reads that stream
 * whole: the decoders stop at the end of the bytes they are given, never past it.
 *
 * @example
 * ```ts
 * const streams = blockStreams(chunk, 0, plan, 0);            // after a whole read
 * const pieces = planBytePieces(plan, streams, 0, 800, 808);  // later, for bytes [800, 808)
 * const bytes = await Promise.all(pieces!.map((p) => readChunkRange(p.offset, p.length)));
 * const short = decodeBytePieces(plan, streams, 0, 800, 808, pieces!, bytes, out);
 * ```
 * @module
 */
import { FormatError, UsageError } from "@fmt/errors";
import { splitCount } from "@fmt/header";
import { filterOf, streamPrefixDecoder, usesWasmCodec } from "./decompress.js";
import type { ChunkPlan } from "./plan.js";
import { readI32 } from "./plan.js";

/**
 * Where the streams of one block lie in its chunk.
 *
 * @example
 * ```ts
 * const { starts, sizes, neblock } = blockStreams(chunk, 0, plan, 0);
 * ```
 */
export interface BlockStreams {
  /** Chunk offset of each stream's first data byte (after its size prefix). */
  readonly starts: Int32Array;
  /** Stored size of each stream (`neblock` when stored raw). */
  readonly sizes: Int32Array;
  /** Decoded size of each stream. */
  readonly neblock: number;
}

/**
 * The streams of block `j`, read from `bytes` (chunk offset `base` at `bytes[0]`) holding at least
 * the block's size prefixes, whose structure has been checked (`planChunk`, or `checkStreams` on
 * a window).
 *
 * @example
 * ```ts
 * const streams = blockStreams(chunk, 0, plan, 0);
 * ```
 */
export function blockStreams(bytes: Uint8Array, base: number, plan: ChunkPlan, j: number): BlockStreams {
  const { header, nblocks, leftover } = plan;
  if (header.memcpyed || !Number.isSafeInteger(j) || j < 0 || j >= nblocks) {
    throw new UsageError("OUT_OF_RANGE", "block number outside the chunk", { path: plan.path, field: "block", expected: `0 <= block < ${nblocks}`, actual: j });
  }
  const isLeftover = j === nblocks - 1 && leftover > 0;
  const bsize = isLeftover ? leftover : header.blocksize;
  const nsplits = splitCount(header, bsize, isLeftover);
  const starts = new Int32Array(nsplits);
  const sizes = new Int32Array(nsplits);
  let pos = plan.bstarts[j]!;
  for (let s = 0; s < nsplits; s++) {
    sizes[s] = readI32(bytes, pos - base);
    starts[s] = pos + 4;
    pos += 4 + sizes[s]!;
  }
  return { starts, sizes, neblock: bsize / nsplits };
}

/**
 * One read {@link planBytePieces} asks for: `length` bytes at chunk offset `offset`, all or the
 * start of stream `stream`, whose decoded bytes `[from, to)` are wanted.
 *
 * @example
 * ```ts
 * const piece: BytePiece = { stream: 7, offset: 400000, length: 300, raw: false, from: 100, to: 101 };
 * ```
 */
export interface BytePiece {
  readonly stream: number;
  /** Chunk offset of the first byte to read. */
  offset: number;
  /** Bytes to read. */
  length: number;
  /** The stream is stored raw: the piece is exactly the wanted bytes. */
  readonly raw: boolean;
  /** Wanted decoded positions of the stream. */
  readonly from: number;
  readonly to: number;
}

/**
 * Compressed streams up to this size are read whole; of a larger one, the prefix estimated from
 * its share of the stream, a quarter more and {@link PREFIX_SLACK} bytes (compressibility varies
 * along a stream; an estimate that falls short costs a second read).
 */
const WHOLE_STREAM_BYTES = 32 * 1024;
const PREFIX_SLACK = 256;

/**
 * The reads that bring chunk bytes `[byteStart, byteEnd)` (decoded offsets, inside block `j`), or
 * `undefined` when this block needs to be read whole: bit-shuffled, byte-shuffled into a single
 * stream, a codec without a prefix decoder here (only lz4 and BloscLZ have one, in WebAssembly),
 * or no WebAssembly.
 *
 * @example
 * ```ts
 * const pieces = planBytePieces(plan, streams, 0, 8 * row, 8 * row + 8);
 * ```
 */
export function planBytePieces(plan: ChunkPlan, streams: BlockStreams, j: number, byteStart: number, byteEnd: number): BytePiece[] | undefined {
  const { header } = plan;
  if (header.memcpyed || !usesWasmCodec(header) || streamPrefixDecoder() === undefined) return undefined;
  const blockStart = j * header.blocksize;
  const { starts, sizes, neblock } = streams;
  const bsize = neblock * starts.length;
  if (byteStart < blockStart || byteEnd > blockStart + bsize || byteStart >= byteEnd) return undefined;
  const filter = filterOf(header.flags, header.typesize, bsize);
  if (filter === 2 || (filter === 1 && starts.length !== header.typesize)) return undefined;
  // Wanted positions per stream (decoded offsets inside the stream).
  const from = new Map<number, number>();
  const to = new Map<number, number>();
  const t = header.typesize;
  const n = Math.floor(bsize / t);
  for (let p = byteStart - blockStart; p < byteEnd - blockStart; p++) {
    const q = filter === 1 && p < n * t ? (p % t) * n + Math.floor(p / t) : p;
    const s = Math.floor(q / neblock);
    const at = q - s * neblock;
    from.set(s, Math.min(from.get(s) ?? at, at));
    to.set(s, Math.max(to.get(s) ?? 0, at + 1));
  }
  const pieces: BytePiece[] = [];
  for (const [s, first] of [...from].sort((a, b) => a[0] - b[0])) {
    const end = to.get(s)!;
    const csize = sizes[s]!;
    if (csize === neblock) {
      pieces.push({ stream: s, offset: starts[s]! + first, length: end - first, raw: true, from: first, to: end });
    } else {
      const estimate = csize <= WHOLE_STREAM_BYTES ? csize : Math.ceil((csize * end * 1.25) / neblock) + PREFIX_SLACK;
      pieces.push({ stream: s, offset: starts[s]!, length: Math.min(csize, estimate), raw: false, from: first, to: end });
    }
  }
  return pieces;
}

/**
 * Fills `out` with chunk bytes `[byteStart, byteEnd)` from the pieces read (`bytes[i]` for
 * `pieces[i]`). Returns the pieces whose prefix ended before their wanted bytes: each is widened
 * to its whole stream, to be read again and passed back in (an empty array means `out` is done).
 *
 * @throws FormatError when a stream does not decode (the whole stream was read and is corrupt).
 * @example
 * ```ts
 * let short = decodeBytePieces(plan, streams, 0, from, to, pieces, bytes, out);
 * ```
 */
export function decodeBytePieces(
  plan: ChunkPlan, streams: BlockStreams, j: number, byteStart: number, byteEnd: number,
  pieces: readonly BytePiece[], bytes: readonly Uint8Array[], out: Uint8Array,
): BytePiece[] {
  const { header } = plan;
  const wasm = streamPrefixDecoder()!;
  const blockStart = j * header.blocksize;
  const { neblock, sizes, starts } = streams;
  const bsize = neblock * starts.length;
  const decoded = new Map<number, { data: Uint8Array; first: number }>();
  const short: BytePiece[] = [];
  pieces.forEach((piece, i) => {
    const got = bytes[i]!;
    if (piece.raw) {
      if (got.length < piece.length) {
        throw new FormatError("TRUNCATED", "chunk file ends inside a stream", { path: plan.path, field: `blosc.blocks[${j}].streams[${piece.stream}]`, expected: piece.length, actual: got.length });
      }
      decoded.set(piece.stream, { data: got, first: piece.from });
      return;
    }
    const whole = piece.length === sizes[piece.stream]!;
    const data = wasm.decodeStreamPrefix(header.codecCode, got.length > piece.length ? got.subarray(0, piece.length) : got, neblock, piece.to, plan.path, whole, piece.from);
    if (data === undefined) {
      short.push({ ...piece, offset: starts[piece.stream]!, length: sizes[piece.stream]! });
      return;
    }
    decoded.set(piece.stream, { data, first: piece.from });
  });
  if (short.length > 0) return short;
  const filter = filterOf(header.flags, header.typesize, bsize);
  const t = header.typesize;
  const n = Math.floor(bsize / t);
  for (let p = byteStart - blockStart; p < byteEnd - blockStart; p++) {
    const q = filter === 1 && p < n * t ? (p % t) * n + Math.floor(p / t) : p;
    const s = Math.floor(q / neblock);
    const d = decoded.get(s)!;
    out[p - (byteStart - blockStart)] = d.data[q - s * neblock - d.first]!;
  }
  return [];
}
