/**
 * The single-row read of a carray (`CArray.get`, `getBytes`), the same for both format versions:
 * a row comes from the cache when its chunk or block is there (or from the writer's leftover rows
 * in memory); otherwise from the fewest bytes the store can give. With range reads that is one
 * Blosc block of the chunk (after its header and block starts, once per chunk), or, once a read
 * told where a block's streams lie, a piece of each stream; without them, the chunk file, decoded
 * up to the row (read into a reused buffer unless the cache keeps the compressed chunk).
 * Chunks read again soon after are decoded whole into the cache, so rows read in order cost about
 * one and a half decodes per chunk.
 *
 * @example
 * ```ts
 * const rows = new RowReader(chunkReader);
 * const bytes = await rows.rowBytes(12345); // atomSize bytes
 * ```
 * @module
 */
import { FormatError } from "@fmt/errors";
import { BLOSC_HEADER_SIZE, readChunkHeader } from "@fmt/header";
import { blockExtent, blockStreams, chunkHeadLength, decodeBlockInto, decodeBytePieces, planBytePieces, planChunkHead } from "@fmt/blosc";
import type { BytePiece, ChunkPlan } from "@fmt/blosc";
import type { ChunkCache } from "./chunk-cache.js";
import { checkedPieces, learnChunkSums } from "./checked-ranges.js";
import { withPath } from "./internal.js";
import type { ChunkReader } from "./carray-read.js";
import type { LoadedChunk } from "./carray-read-types.js";
import type { ChunkLayout, StoredChunk } from "./layout.js";
import { LentBuffers } from "./lent-buffers.js";

/**
 * Bytes read by the first range request of a chunk: its headers, its block starts and, for the
 * many chunks smaller than this, the whole file. One request then serves a small chunk, and a
 * large one costs one more for the wanted block (remote stores pay per request, not per KiB).
 */
const SPECULATIVE_HEAD = 64 * 1024;
/** Single-row reads remember this many chunks: a second read of one of them decodes it whole. */
const RECENT_ROW_CHUNKS = 4;

/**
 * Single-row reads through a {@link ChunkReader}, whose cache, layout and chunk validation they
 * share. @internal
 *
 * @example
 * ```ts
 * const bytes = await new RowReader(reader).rowBytes(0);
 * ```
 */
export class RowReader {
  readonly #reader: ChunkReader;
  // The reader's own (all fixed at its construction): the same layout and cache objects.
  readonly #layout: ChunkLayout;
  readonly #cache: ChunkCache;
  readonly #chunklen: number;
  readonly #atomSize: number;
  // Set once a full chunk turned out to be a single Blosc block: a writer uses one blocksize for
  // all full chunks, so range reads of the others would only add a request.
  #singleBlockChunks = false;
  // Input buffers of chunk files read for one row, and the chunks such reads touched last.
  readonly #inputs: LentBuffers;
  readonly #recentChunks: number[] = [];

  constructor(reader: ChunkReader) {
    this.#reader = reader;
    this.#layout = reader.layout;
    this.#cache = reader.cache;
    this.#chunklen = reader.chunklen;
    this.#atomSize = reader.atomSize;
    this.#inputs = new LentBuffers(this.#chunklen * this.#atomSize);
  }

  /**
   * The stored bytes of row `row` (valid, non-negative) in a new array. From the cache when the
   * chunk or block is there; otherwise, when the store can read ranges and the chunk has several
   * Blosc blocks, only the chunk's header and block starts (once per chunk) and the one block are
   * read and decoded; a memcpyed chunk gives the row's bytes directly.
   */
  async rowBytes(row: number): Promise<Uint8Array> {
    const atom = this.#atomSize;
    const index = Math.floor(row / this.#chunklen);
    const offset = (row - index * this.#chunklen) * atom;
    const cached = this.#cache.chunk(index) ?? this.#reader.memoryRows(index);
    if (cached !== undefined) return cached.slice(offset, offset + atom);
    if (this.#cache.compressed(index) !== undefined) return this.#rowFromWholeChunk(index, offset);
    const fromPieces = await this.#rowFromPieces(index, offset);
    if (fromPieces !== undefined) return fromPieces;
    const full = index < this.#reader.fullChunks;
    const partial = this.#layout.partial;
    if (partial === undefined || (full && this.#singleBlockChunks)) return this.#rowFromWholeChunk(index, offset);
    const key = this.#reader.chunkKey(index);
    let plan = this.#cache.plan(index);
    if (plan === undefined) {
      const head = await this.#fetchPlan(index, key);
      if (head.whole !== undefined) return this.#rowFromWholeChunk(index, offset, head.whole);
      plan = head.plan;
    }
    if (plan.header.memcpyed) return this.#memcpyedRow(index, key, offset);
    if (plan.nblocks <= 1) {
      if (full) this.#singleBlockChunks = true;
      return this.#rowFromWholeChunk(index, offset);
    }
    const out = new Uint8Array(atom);
    const blocksize = plan.header.blocksize;
    for (let j = Math.floor(offset / blocksize); j * blocksize < offset + atom; j++) {
      const block = this.#cache.block(index, j) ?? (await this.#fetchBlock(index, key, plan, j));
      const from = Math.max(offset, j * blocksize);
      const to = Math.min(offset + atom, j * blocksize + block.length);
      out.set(block.subarray(from - j * blocksize, to - j * blocksize), from - offset);
    }
    return out;
  }

  async #rowFromWholeChunk(index: number, offset: number, fetched?: StoredChunk): Promise<Uint8Array> {
    const kept = fetched === undefined ? this.#cache.compressed(index) : undefined;
    const row = offset / this.#atomSize;
    const again = this.#recentChunks.includes(index);
    // A chunk file read for one row goes into a reused buffer unless the cache keeps it: random
    // rows over a large array then neither allocate nor collect a chunk-sized buffer per get.
    const keep = kept === undefined && !again && this.#cache.bytes + this.#chunklen * this.#atomSize <= this.#cache.maxBytes;
    const buffer = fetched === undefined && kept === undefined && !keep && this.#layout.readsInto ? this.#inputs.take() : undefined;
    try {
      const stored = kept !== undefined ? { index, key: this.#reader.chunkKey(index), chunk: kept } : (fetched ?? (await this.#layout.read(index, buffer)));
      const loaded = await this.#reader.loadChunk(index, stored);
      // Bytes kept by the cache come from the read that took the checksums kept beside them.
      if (kept === undefined) learnChunkSums(this.#cache, this.#layout, index, loaded);
      this.#learnStreams(index, loaded, offset);
      const cached = this.#cache.chunk(index);
      if (cached !== undefined) return cached.slice(offset, offset + this.#atomSize);
      if (loaded.storedNbytes !== loaded.nbytes) return this.#reader.decodeRows(loaded, row, row + 1);
      if (kept === undefined && !again && this.#cache.maxBytes >= loaded.nbytes) {
        // First read of this chunk in a while: only its row is decoded (the codec decodes each
        // stream up to it, half the chunk on average). The compressed chunk is kept while the
        // cache has room; otherwise the chunk is remembered as read, and a second read of it
        // soon after decodes it whole into the cache. Rows read one by one in order so cost one
        // or two fetches and about one and a half decodes per chunk.
        if (keep) this.#cache.putCompressed(index, loaded.chunk);
        else this.#rememberRowChunk(index);
        return this.#reader.decodeRows(loaded, row, row + 1);
      }
      const bytes = this.#cache.buffer(loaded.nbytes);
      this.#reader.decodeRowsInto(loaded, 0, loaded.rows, bytes, 0);
      this.#cache.putChunk(index, bytes);
      return bytes.slice(offset, offset + this.#atomSize);
    } finally {
      if (buffer !== undefined) this.#inputs.giveBack(buffer);
    }
  }

  /**
   * The row from pieces of its block's streams (see `planBytePieces` of @fmt/blosc): once a read
   * of the chunk told where the streams lie, a row of a byte-shuffled block costs one byte from
   * each raw plane and a prefix of each compressed one, read through one open of the file.
   * `undefined` when that does not apply (nothing known yet, the store reads no ranges, the
   * block's layout needs a whole decode, or the chunk was read a moment ago: then it is decoded
   * whole into the cache, for rows read in order).
   */
  async #rowFromPieces(index: number, offset: number): Promise<Uint8Array | undefined> {
    const ranges = this.#pieceRanges(index);
    const plan = ranges === undefined ? undefined : this.#cache.streamPlan(index);
    if (ranges === undefined || plan === undefined || plan.header.memcpyed || this.#recentChunks.includes(index)) return undefined;
    const j = Math.floor(offset / plan.header.blocksize);
    const streams = this.#cache.block(index, j) === undefined ? this.#cache.streams(index, j) : undefined;
    if (streams === undefined) return undefined;
    const end = offset + this.#atomSize;
    let pieces = planBytePieces(plan, streams, j, offset, end);
    if (pieces === undefined) return undefined;
    const key = this.#reader.chunkKey(index);
    const out = new Uint8Array(this.#atomSize);
    // A compressed plane's prefix is an estimate; one estimated too short is read whole once.
    for (let round = 0; round < 2; round++) {
      const bytes = await ranges(pieces);
      if (bytes === undefined) return undefined;
      const asked: BytePiece[] = pieces;
      const short = withPath(key, () => decodeBytePieces(plan, streams, j, offset, end, asked, bytes, out));
      if (short.length === 0) {
        this.#rememberRowChunk(index);
        return out;
      }
      pieces = pieces.map((p) => short.find((s) => s.stream === p.stream) ?? p);
    }
    return undefined;
  }

  /**
   * How pieces of chunk `index` are read: as they are (format 1), or checked against the segment
   * checksums of a checked read of the chunk (format 2, see {@link checkedPieces}).
   */
  #pieceRanges(index: number): ((pieces: readonly BytePiece[]) => Promise<Uint8Array[] | undefined>) | undefined {
    const partial = this.#layout.partial;
    if (partial?.ranges !== undefined) return (pieces) => partial.ranges!(index, pieces);
    return checkedPieces(this.#cache, this.#layout, index);
  }

  /**
   * Notes where the streams of the block holding byte `offset` lie, for later single-row reads
   * (format 2: only of a chunk whose segment checksums are kept, learnt from the same bytes).
   */
  #learnStreams(index: number, loaded: LoadedChunk, offset: number): void {
    const plan = loaded.plan;
    const readsPieces = this.#layout.partial?.ranges !== undefined || (this.#layout.rawRanges !== undefined && this.#cache.chunkSums(index) !== undefined);
    if (!readsPieces || plan === undefined || plan.header.memcpyed || loaded.storedNbytes !== loaded.nbytes) return;
    const j = Math.floor(offset / plan.header.blocksize);
    if (this.#cache.streams(index, j) === undefined) this.#cache.putStreams(index, j, plan, blockStreams(loaded.chunk, 0, plan, j));
  }

  #rememberRowChunk(index: number): void {
    const recent = this.#recentChunks;
    if (recent.length >= RECENT_ROW_CHUNKS) recent.shift();
    recent.push(index);
  }

  /**
   * Reads and validates the Blosc header and block starts of chunk `index` through the layout's
   * partial access; when the first read already brought the whole chunk (it ended inside the
   * speculative window), hands the chunk back instead, to be decoded whole without another request.
   */
  async #fetchPlan(index: number, key: string): Promise<{ plan: ChunkPlan; whole?: undefined } | { whole: StoredChunk }> {
    const partial = this.#layout.partial!;
    const rows = this.#reader.rowsOf(index);
    const checkHeader = (h: { nbytes: number }): void => this.#reader.checkStoredNbytes(key, h.nbytes, rows * this.#atomSize, index >= this.#reader.fullChunks, rows);
    const first = await partial.head(index, SPECULATIVE_HEAD);
    if (first.whole !== undefined) return { whole: first.whole };
    let head = first.bytes;
    // The file's size is not known without another request; a file shorter than the cbytes it
    // announces shows up as a truncated block when that block is read.
    const { need, announced } = withPath(key, () => {
      const cbytes = head.length >= BLOSC_HEADER_SIZE ? readCbytes(head) : 0;
      const header = readChunkHeader(head, key, Math.max(cbytes, head.length));
      checkHeader(header);
      return { need: chunkHeadLength(header), announced: cbytes };
    });
    if (head.length < need) head = await partial.range(index, 0, need);
    return withPath(key, () => {
      const chunkHead = head.subarray(0, need);
      const made = planChunkHead(chunkHead, Math.max(announced, chunkHead.length), { path: key, checkHeader });
      this.#cache.putPlan(index, made);
      return { plan: made };
    });
  }

  async #fetchBlock(index: number, key: string, plan: ChunkPlan, j: number): Promise<Uint8Array> {
    const { start, end } = blockExtent(plan, j);
    const size = j === plan.nblocks - 1 && plan.leftover > 0 ? plan.leftover : plan.header.blocksize;
    const out = new Uint8Array(size);
    const partial = this.#layout.partial!;
    let window = await partial.range(index, start, end - start);
    try {
      withPath(key, () => decodeBlockInto(plan, j, window, start, out));
    } catch (error) {
      // Blocks stored out of order can run past the next block start: read on to cbytes once.
      if (!(error instanceof FormatError) || error.code !== "TRUNCATED" || end === plan.header.cbytes || window.length < end - start) throw error;
      window = await partial.range(index, start, plan.header.cbytes - start);
      withPath(key, () => decodeBlockInto(plan, j, window, start, out));
    }
    this.#cache.putBlock(index, j, out);
    if (this.#layout.partial?.ranges !== undefined && this.#cache.streams(index, j) === undefined) this.#cache.putStreams(index, j, plan, blockStreams(window, start, plan, j));
    return out;
  }

  async #memcpyedRow(index: number, key: string, offset: number): Promise<Uint8Array> {
    const bytes = await this.#layout.partial!.range(index, BLOSC_HEADER_SIZE + offset, this.#atomSize);
    if (bytes.length !== this.#atomSize) {
      throw new FormatError("TRUNCATED", "chunk file ends before the row", { path: key, field: "blosc.cbytes", expected: offset + this.#atomSize, actual: offset + bytes.length });
    }
    return bytes;
  }
}

function readCbytes(chunk: Uint8Array): number {
  return (chunk[12]! | (chunk[13]! << 8) | (chunk[14]! << 16) | (chunk[15]! << 24)) >>> 0;
}
