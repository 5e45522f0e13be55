/**
 * Single-row reads of format-2 chunks that do not read the chunk whole every time. Format 2
 * checks a checksum over each whole chunk (spec/v2.md §6), so a row costs reading and checksumming
 * its whole chunk. Once a read has checked a chunk whole, the reader remembers a CRC-32 of each
 * {@link SEGMENT}-byte segment of it ({@link chunkSumsOf}, from the bytes that matched the stored
 * checksum); a later row of that chunk reads only the byte ranges it needs (rounded out to whole
 * segments) and uses them when every segment has its remembered CRC-32
 * ({@link readCheckedRanges}), that is, when they are the bytes that were checked (§6, "Parts of
 * a checked chunk"). Bytes that differ are never decoded: the caller reads and checks the chunk
 * whole again, which reports a damaged chunk as before.
 *
 * @example
 * ```ts
 * const known = chunkSumsOf(verifiedChunk);
 * const parts = await readCheckedRanges(known, pieces, (windows) => layout.rawRanges!(7, windows));
 * ```
 * @module
 */
import { crc32 } from "@fmt/header";

/** Bytes per remembered CRC-32: a few kilobytes, as single-row reads of format 1 read (~11 KB). */
export const SEGMENT = 2048;

/**
 * A checked chunk's length (`cbytes`) and the CRC-32 of each of its {@link SEGMENT}-byte segments
 * (the last one shorter).
 *
 * @example
 * ```ts
 * const known: ChunkSums = { cbytes: chunk.length, sums: new Uint32Array(Math.ceil(chunk.length / SEGMENT)) };
 * ```
 */
export interface ChunkSums {
  readonly cbytes: number;
  readonly sums: Uint32Array;
}

/** A byte range of a chunk. */
interface Window {
  readonly offset: number;
  readonly length: number;
}

/**
 * The segment checksums of `chunk` (a Blosc chunk cut at `cbytes`) whose bytes the caller has
 * checked: its stored checksum matched.
 *
 * @example
 * ```ts
 * const known = chunkSumsOf(loaded.chunk);
 * ```
 */
export function chunkSumsOf(chunk: Uint8Array): ChunkSums {
  const sums = new Uint32Array(Math.ceil(chunk.length / SEGMENT));
  for (let k = 0; k < sums.length; k++) sums[k] = crc32(chunk.subarray(k * SEGMENT, (k + 1) * SEGMENT));
  return { cbytes: chunk.length, sums };
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
  const windows: Window[] = [];
  for (const p of pieces) {
    if (p.offset < 0 || p.length < 0 || p.offset + p.length > known.cbytes) return undefined;
    const start = Math.floor(p.offset / SEGMENT) * SEGMENT;
    const end = Math.min(known.cbytes, Math.ceil((p.offset + p.length) / SEGMENT) * SEGMENT);
    windows.push({ offset: start, length: end - start });
  }
  const got = await read(windows);
  if (got === undefined) return undefined;
  const out: Uint8Array[] = [];
  for (let n = 0; n < pieces.length; n++) {
    const w = windows[n]!;
    const bytes = got[n];
    if (bytes === undefined || bytes.length < w.length) return "differ";
    for (let at = 0; at < w.length; at += SEGMENT) {
      if (crc32(bytes.subarray(at, Math.min(w.length, at + SEGMENT))) !== known.sums[(w.offset + at) / SEGMENT]) return "differ";
    }
    const p = pieces[n]!;
    out.push(bytes.subarray(p.offset - w.offset, p.offset - w.offset + p.length));
  }
  return out;
}
