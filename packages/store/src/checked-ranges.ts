/**
 * Single-row reads of format-2 chunks that do not read the chunk whole every time. Format 2
 * checks a checksum over each whole chunk (spec/v2.md §6), so a row costs reading and checksumming
 * its whole chunk. Once a read has checked a chunk whole, the reader remembers a checksum of each
 * {@link SEGMENT}-byte segment of it ({@link chunkSumsOf}, from the bytes that matched the stored
 * checksum); a later row of that chunk reads only the byte ranges it needs (rounded out to whole
 * segments) and uses them when every segment has its remembered sum ({@link readCheckedRanges}),
 * that is, when they are the bytes that were checked (§6, "Parts of a checked chunk"). Bytes that
 * differ are never decoded: the caller reads and checks the chunk whole again, which reports a
 * damaged chunk as before.
 *
 * Which checksum ({@link SegmentSums}, the layout's choice): Adler-32 in files whose chunks carry
 * Adler-32 (the format's default), CRC-32 in all others. A change confined to one segment that
 * Adler-32 misses there also leaves the whole chunk's Adler-32 unchanged (the sums weigh bytes by
 * their distance from the end), so segments are never checked more weakly than the file checks
 * its chunks; CRC-32 catches more (every error of up to three bits and every burst of up to 32
 * within a segment), and files that ask for it or for a hash keep it. Adler-32 runs in WebAssembly
 * SIMD at ~12 GB/s where Node's zlib CRC-32 runs at ~3 GB/s: a format-2 single-row read checks
 * seven or eight segments, which took 8 % of it with CRC-32 (`perf`), and 2,000 such reads of an
 * Adler-32 file took 7–11 % longer (tools/bench/README.md, "Issue 16, step by step (2026-11-30,
 * third morning session)").
 *
 * @example
 * ```ts
 * const known = chunkSumsOf(verifiedChunk, "adler32");
 * const parts = await readCheckedRanges(known, pieces, (windows) => layout.rawRanges!(7, windows));
 * ```
 * @module
 */
import { FormatError } from "@fmt/errors";
import { adler32, crc32 } from "@fmt/header";
import type { LoadedChunk } from "./carray-read-types.js";
import type { ChunkCache } from "./chunk-cache.js";
import type { ChunkLayout, SegmentSums } from "./layout.js";

/** Bytes per remembered sum: a few kilobytes, as single-row reads of format 1 read (~11 KB). */
export const SEGMENT = 2048;

/**
 * A checked chunk's length (`cbytes`), which checksum its segments get (`kind`), and that checksum
 * of each of its {@link SEGMENT}-byte segments (the last one shorter).
 *
 * @example
 * ```ts
 * const known: ChunkSums = { cbytes: chunk.length, sums: new Uint32Array(Math.ceil(chunk.length / SEGMENT)) };
 * ```
 */
export interface ChunkSums {
  readonly cbytes: number;
  readonly kind: SegmentSums;
  readonly sums: Uint32Array;
}

// Fresh sums, starting from each checksum's empty value.
const SEGMENT_SUM: { readonly [kind in SegmentSums]: (bytes: Uint8Array) => number } = { adler32, crc32 };

/** A byte range of a chunk. */
interface Window {
  readonly offset: number;
  readonly length: number;
}

/**
 * The `kind` checksums of the segments of `chunk` (a Blosc chunk cut at `cbytes`) whose bytes the
 * caller has checked: its stored checksum matched.
 *
 * @example
 * ```ts
 * const known = chunkSumsOf(loaded.chunk, layout.segmentSums ?? "crc32");
 * ```
 */
export function chunkSumsOf(chunk: Uint8Array, kind: SegmentSums): ChunkSums {
  const sum = SEGMENT_SUM[kind];
  const sums = new Uint32Array(Math.ceil(chunk.length / SEGMENT));
  for (let k = 0; k < sums.length; k++) sums[k] = sum(chunk.subarray(k * SEGMENT, (k + 1) * SEGMENT));
  return { cbytes: chunk.length, kind, sums };
}

/**
 * The bytes of `pieces` (chunk offsets) of a checked chunk, read again through `read` as whole
 * segments: one array per piece, or `"differ"` when a segment read is not the checked one (or
 * comes back short), `undefined` when `read` gives nothing (the chunk must be read whole) or a
 * piece lies outside the chunk.
 *
 * @example
 * ```ts
 * const parts = await readCheckedRanges(known, [{ offset: 16, length: 40 }], (w) => layout.rawRanges!(g, w));
 * ```
 */
export async function readCheckedRanges(
  known: ChunkSums, pieces: readonly Window[], read: (windows: readonly Window[]) => Promise<Uint8Array[] | undefined>,
): Promise<Uint8Array[] | "differ" | undefined> {
  // Each piece rounded out to whole segments; overlapping or touching windows read once.
  const wanted: Window[] = [];
  for (const p of pieces) {
    if (p.offset < 0 || p.length < 0 || p.offset + p.length > known.cbytes) return undefined;
    const start = Math.floor(p.offset / SEGMENT) * SEGMENT;
    wanted.push({ offset: start, length: Math.min(known.cbytes, Math.ceil((p.offset + p.length) / SEGMENT) * SEGMENT) - start });
  }
  const windows: Window[] = [];
  for (const w of [...wanted].sort((a, b) => a.offset - b.offset)) {
    const last = windows[windows.length - 1];
    if (last !== undefined && w.offset <= last.offset + last.length) {
      windows[windows.length - 1] = { offset: last.offset, length: Math.max(last.length, w.offset + w.length - last.offset) };
    } else {
      windows.push(w);
    }
  }
  const got = await read(windows);
  if (got === undefined) return undefined;
  const sum = SEGMENT_SUM[known.kind];
  for (let n = 0; n < windows.length; n++) {
    const w = windows[n]!;
    const bytes = got[n];
    if (bytes === undefined || bytes.length < w.length) return "differ";
    for (let at = 0; at < w.length; at += SEGMENT) {
      if (sum(bytes.subarray(at, Math.min(w.length, at + SEGMENT))) !== known.sums[(w.offset + at) / SEGMENT]) return "differ";
    }
  }
  return pieces.map((p) => {
    const n = windows.findIndex((w) => w.offset <= p.offset && p.offset + p.length <= w.offset + w.length);
    const from = p.offset - windows[n]!.offset;
    return got[n]!.subarray(from, from + p.length);
  });
}

/**
 * After a single-row read has read and checked chunk `index` whole from the store (`loaded`):
 * keeps the segment checksums of these bytes when the layout reads raw ranges and the cache would
 * keep them, in place of any kept before (the chunk may have changed since), and forgets the
 * streams the cache knew of the chunk, to be learnt from these same bytes: checksums and stream
 * layouts always come from one read.
 *
 * @example
 * ```ts
 * learnChunkSums(cache, layout, 7, await reader.loadChunk(7));
 * ```
 */
export function learnChunkSums(cache: ChunkCache, layout: ChunkLayout, index: number, loaded: LoadedChunk): void {
  if (layout.rawRanges === undefined) return;
  cache.forgetStreams(index);
  cache.putChunkSums(index, loaded.storedNbytes === loaded.nbytes && cache.keepsChunkSums(loaded.chunk.length) ? chunkSumsOf(loaded.chunk, layout.segmentSums ?? "crc32") : undefined);
}

/**
 * How a single-row read gets pieces of chunk `index` whose segment checksums the cache keeps:
 * read through the layout's raw ranges and checked ({@link readCheckedRanges}); `undefined`
 * without checksums. The function resolves to `undefined` when the pieces cannot be used: the
 * caller reads the chunk whole. Bytes that differ (another version of the chunk, or a damaged
 * one) also make the cache forget all it knew of the chunk.
 *
 * @example
 * ```ts
 * const ranges = checkedPieces(cache, layout, 7);
 * const bytes = ranges && (await ranges(pieces));
 * ```
 */
export function checkedPieces(cache: ChunkCache, layout: ChunkLayout, index: number): ((pieces: readonly Window[]) => Promise<Uint8Array[] | undefined>) | undefined {
  const raw = layout.rawRanges;
  const known = raw === undefined ? undefined : cache.chunkSums(index);
  if (raw === undefined || known === undefined) return undefined;
  return async (pieces) => {
    let got: Uint8Array[] | "differ" | undefined = "differ";
    try {
      got = await readCheckedRanges(known, pieces, (windows) => raw(index, windows));
    } catch (error) {
      // A moved or missing superchunk: the whole read reloads its index or names the problem.
      if (!(error instanceof FormatError)) throw error;
    }
    if (got !== "differ") return got;
    cache.invalidate(index);
    return undefined;
  };
}
