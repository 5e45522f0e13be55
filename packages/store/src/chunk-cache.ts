/**
 * A byte-budgeted LRU cache of what a {@link CArray} learned about its chunks: decoded chunks,
 * decoded Blosc blocks and validated chunk plans, keyed by chunk number. Writers invalidate it
 * (see `CArray`); evicted chunk buffers are recycled for the next decode of the same size.
 *
 * @example
 * ```ts
 * const cache = new ChunkCache(4 * 1024 * 1024);
 * cache.putChunk(0, decoded);
 * cache.chunk(0); // decoded
 * cache.invalidateFrom(0);
 * ```
 * @module
 */
import type { BlockStreams, ChunkPlan } from "@fmt/blosc";
import { SEGMENT } from "./checked-ranges.js";
import type { ChunkSums } from "./checked-ranges.js";

interface Entry {
  /** The whole decoded chunk. */
  chunk?: Uint8Array | undefined;
  /** Validated header and block starts, for range reads. */
  plan?: ChunkPlan | undefined;
  /** Decoded blocks by block number (when the chunk itself is not cached). */
  blocks?: Map<number, Uint8Array> | undefined;
  /** The compressed chunk, kept after a read that decoded only part of it. */
  compressed?: Uint8Array | undefined;
  bytes: number;
}

// Rough cost of a plan and a map entry, so that many tiny entries still count against the budget.
const PLAN_OVERHEAD = 128;
const BLOCK_OVERHEAD = 64;
/** What the segment checksums of a chunk of `cbytes` bytes count against their budget. */
function sumsBytes(cbytes: number): number {
  return 4 * Math.ceil(cbytes / SEGMENT) + PLAN_OVERHEAD;
}

/** Chunks whose stream layout the cache remembers at most (outside its byte budget). */
export const MAX_STREAM_MAPS = 4096;

/**
 * The cache itself. With a budget of 0 it keeps nothing. Cached bytes are shared with callers that
 * copy out of them; they are never handed to users directly.
 *
 * @example
 * ```ts
 * const cache = new ChunkCache(0); // off
 * cache.putChunk(3, bytes);
 * cache.chunk(3); // undefined
 * ```
 */
export class ChunkCache {
  /** Budget in bytes. */
  readonly maxBytes: number;
  // Map order is insertion order: re-inserting on use keeps the least recently used first.
  readonly #entries = new Map<number, Entry>();
  readonly #streamMaps = new Map<number, { plan: ChunkPlan; blocks: Map<number, BlockStreams> }>();
  readonly #chunkSums = new Map<number, ChunkSums>();
  #sumsBytes = 0;
  #bytes = 0;
  #spare: Uint8Array | undefined;

  /** A cache holding at most `maxBytes` bytes. */
  constructor(maxBytes: number) {
    this.maxBytes = maxBytes;
  }

  /** Bytes held now. */
  get bytes(): number {
    return this.#bytes;
  }

  #touch(index: number): Entry | undefined {
    const entry = this.#entries.get(index);
    if (entry !== undefined) {
      this.#entries.delete(index);
      this.#entries.set(index, entry);
    }
    return entry;
  }

  #entry(index: number): Entry {
    let entry = this.#touch(index);
    if (entry === undefined) {
      entry = { bytes: 0 };
      this.#entries.set(index, entry);
    }
    return entry;
  }

  #grow(entry: Entry, bytes: number): void {
    entry.bytes += bytes;
    this.#bytes += bytes;
    for (const [index, victim] of this.#entries) {
      if (this.#bytes <= this.maxBytes) break;
      this.#drop(index, victim);
    }
  }

  #drop(index: number, entry: Entry): void {
    this.#entries.delete(index);
    this.#bytes -= entry.bytes;
    if (entry.chunk !== undefined) this.#spare = entry.chunk;
  }

  /**
   * The decoded chunk `index`, or `undefined`.
   *
   * @example
   * ```ts
   * const bytes = cache.chunk(7);
   * ```
   */
  chunk(index: number): Uint8Array | undefined {
    return this.#touch(index)?.chunk;
  }

  /**
   * Keeps decoded chunk `index` (replacing its blocks, which it contains). Chunks larger than the
   * whole budget are not kept.
   *
   * @example
   * ```ts
   * cache.putChunk(7, decoded);
   * ```
   */
  putChunk(index: number, bytes: Uint8Array): void {
    if (bytes.length > this.maxBytes) return;
    const entry = this.#entry(index);
    let freed = 0;
    if (entry.chunk !== undefined) freed += entry.chunk.length;
    if (entry.blocks !== undefined) for (const b of entry.blocks.values()) freed += b.length + BLOCK_OVERHEAD;
    if (entry.compressed !== undefined) freed += entry.compressed.length;
    entry.blocks = undefined;
    entry.compressed = undefined;
    entry.chunk = bytes;
    this.#grow(entry, bytes.length - freed);
  }

  /**
   * The compressed bytes of chunk `index` kept by {@link ChunkCache.putCompressed}, or `undefined`.
   *
   * @example
   * ```ts
   * const chunk = cache.compressed(7);
   * ```
   */
  compressed(index: number): Uint8Array | undefined {
    return this.#touch(index)?.compressed;
  }

  /**
   * Keeps the compressed bytes of chunk `index` (its Blosc chunk, validated by the plan kept
   * beside it): a read that decoded only a row of it lets the next one decode the whole chunk
   * without fetching it again. Ignored when the decoded chunk is already kept.
   *
   * @example
   * ```ts
   * cache.putCompressed(7, chunk);
   * ```
   */
  putCompressed(index: number, bytes: Uint8Array): void {
    if (bytes.length > this.maxBytes) return;
    const entry = this.#entry(index);
    if (entry.chunk !== undefined) return;
    const freed = entry.compressed?.length ?? 0;
    entry.compressed = bytes;
    this.#grow(entry, bytes.length - freed);
  }

  /**
   * Decoded block `block` of chunk `index` (or `undefined`).
   *
   * @example
   * ```ts
   * cache.block(7, 2);
   * ```
   */
  block(index: number, block: number): Uint8Array | undefined {
    return this.#touch(index)?.blocks?.get(block);
  }

  /**
   * Keeps decoded block `block` of chunk `index`.
   *
   * @example
   * ```ts
   * cache.putBlock(7, 2, decodedBlock);
   * ```
   */
  putBlock(index: number, block: number, bytes: Uint8Array): void {
    if (bytes.length + BLOCK_OVERHEAD > this.maxBytes) return;
    const entry = this.#entry(index);
    if (entry.chunk !== undefined) return;
    entry.blocks ??= new Map();
    const old = entry.blocks.get(block);
    entry.blocks.set(block, bytes);
    this.#grow(entry, bytes.length + BLOCK_OVERHEAD - (old === undefined ? 0 : old.length + BLOCK_OVERHEAD));
  }

  /**
   * The validated plan of chunk `index` (header and block starts), or `undefined`.
   *
   * @example
   * ```ts
   * cache.plan(7)?.nblocks;
   * ```
   */
  plan(index: number): ChunkPlan | undefined {
    return this.#touch(index)?.plan;
  }

  /**
   * Keeps the plan of chunk `index`.
   *
   * @example
   * ```ts
   * cache.putPlan(7, plan);
   * ```
   */
  putPlan(index: number, plan: ChunkPlan): void {
    const cost = PLAN_OVERHEAD + plan.bstarts.byteLength;
    if (cost > this.maxBytes) return;
    const entry = this.#entry(index);
    const had = entry.plan !== undefined;
    entry.plan = plan;
    if (!had) this.#grow(entry, cost);
  }

  /**
   * Where the streams of block `block` of chunk `index` lie, or `undefined` (their plan:
   * {@link ChunkCache.streamPlan}).
   * Kept apart from the byte budget (a few hundred bytes per chunk, at most
   * {@link MAX_STREAM_MAPS} chunks): evicting decoded chunks must not forget them, or random
   * single-row reads would keep reading whole chunk files to learn them again.
   *
   * @example
   * ```ts
   * cache.streams(7, 0)?.neblock;
   * ```
   */
  streams(index: number, block: number): BlockStreams | undefined {
    return this.#streamMaps.get(index)?.blocks.get(block);
  }

  /**
   * The plan kept with chunk `index`'s stream layouts, or `undefined`.
   *
   * @example
   * ```ts
   * cache.streamPlan(7)?.header.blocksize;
   * ```
   */
  streamPlan(index: number): ChunkPlan | undefined {
    return this.#streamMaps.get(index)?.plan;
  }

  /**
   * Keeps where the streams of block `block` of chunk `index` lie, with the chunk's plan.
   *
   * @example
   * ```ts
   * cache.putStreams(7, 0, plan, blockStreams(chunk, 0, plan, 0));
   * ```
   */
  putStreams(index: number, block: number, plan: ChunkPlan, streams: BlockStreams): void {
    if (this.maxBytes === 0) return;
    let known = this.#streamMaps.get(index);
    if (known === undefined || known.plan !== plan) {
      if (known === undefined && this.#streamMaps.size >= MAX_STREAM_MAPS) this.#streamMaps.delete(this.#streamMaps.keys().next().value!);
      known = { plan, blocks: new Map() };
      this.#streamMaps.set(index, known);
    }
    known.blocks.set(block, streams);
  }

  /**
   * The segment checksums of chunk `index` taken from a checked read of it, or `undefined` (see
   * checked-ranges.ts). Like stream layouts they outlive evicted chunks, in a quarter of the byte
   * budget of their own (4 bytes per 2 KiB of compressed chunk), the oldest forgotten first.
   *
   * @example
   * ```ts
   * cache.chunkSums(7)?.sums[0];
   * ```
   */
  chunkSums(index: number): ChunkSums | undefined {
    return this.#chunkSums.get(index);
  }

  /**
   * Keeps the segment checksums of chunk `index` (nothing when they exceed a quarter of the
   * budget); `undefined` forgets them.
   *
   * @example
   * ```ts
   * cache.putChunkSums(7, chunkSumsOf(chunk, "crc32"));
   * ```
   */
  putChunkSums(index: number, sums: ChunkSums | undefined): void {
    const old = this.#chunkSums.get(index);
    if (old !== undefined) {
      this.#chunkSums.delete(index);
      this.#sumsBytes -= sumsBytes(old.cbytes);
    }
    if (sums === undefined || !this.keepsChunkSums(sums.cbytes)) return;
    const cost = sumsBytes(sums.cbytes);
    for (const [i, victim] of this.#chunkSums) {
      if (this.#sumsBytes + cost <= this.maxBytes / 4) break;
      this.#chunkSums.delete(i);
      this.#sumsBytes -= sumsBytes(victim.cbytes);
    }
    this.#chunkSums.set(index, sums);
    this.#sumsBytes += cost;
  }

  /**
   * Whether segment checksums of a chunk of `cbytes` bytes would be kept (see
   * {@link ChunkCache.putChunkSums}): not worth computing otherwise.
   *
   * @example
   * ```ts
   * if (cache.keepsChunkSums(chunk.length)) cache.putChunkSums(7, chunkSumsOf(chunk, "crc32"));
   * ```
   */
  keepsChunkSums(cbytes: number): boolean {
    return sumsBytes(cbytes) <= this.maxBytes / 4;
  }

  /**
   * Forgets where the streams of chunk `index` lie (a new version of the chunk is being learnt).
   *
   * @example
   * ```ts
   * cache.forgetStreams(7);
   * ```
   */
  forgetStreams(index: number): void {
    this.#streamMaps.delete(index);
  }

  /**
   * A buffer of exactly `size` bytes to decode into: an evicted chunk's memory when one of that
   * size is spare (its old contents are overwritten by the caller), else a new array.
   *
   * @example
   * ```ts
   * const target = cache.buffer(chunklen * atomSize);
   * ```
   */
  buffer(size: number): Uint8Array {
    const spare = this.#spare;
    this.#spare = undefined;
    return spare !== undefined && spare.length === size ? spare : new Uint8Array(size);
  }

  /**
   * Forgets chunk `index`.
   *
   * @example
   * ```ts
   * cache.invalidate(3);
   * ```
   */
  invalidate(index: number): void {
    this.#streamMaps.delete(index);
    this.putChunkSums(index, undefined);
    const entry = this.#entries.get(index);
    if (entry !== undefined) this.#dropWithoutRecycling(index, entry);
  }

  /**
   * Forgets every chunk numbered `index` or higher (the chunks an append or a resize rewrites).
   *
   * @example
   * ```ts
   * cache.invalidateFrom(Math.floor(oldLength / chunklen));
   * ```
   */
  invalidateFrom(index: number): void {
    for (const i of [...this.#streamMaps.keys()]) if (i >= index) this.#streamMaps.delete(i);
    for (const i of [...this.#chunkSums.keys()]) if (i >= index) this.putChunkSums(i, undefined);
    for (const [i, entry] of [...this.#entries]) if (i >= index) this.#dropWithoutRecycling(i, entry);
  }

  /**
   * Forgets everything.
   *
   * @example
   * ```ts
   * cache.clear();
   * ```
   */
  clear(): void {
    this.#entries.clear();
    this.#streamMaps.clear();
    this.#chunkSums.clear();
    this.#sumsBytes = 0;
    this.#bytes = 0;
    this.#spare = undefined;
  }

  // An invalidated chunk's buffer may still be in use by a caller that is copying out of it (a
  // read that overlaps a write), so it is not recycled.
  #dropWithoutRecycling(index: number, entry: Entry): void {
    this.#entries.delete(index);
    this.#bytes -= entry.bytes;
  }
}
