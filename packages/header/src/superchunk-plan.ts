/**
 * Byte-range planning for reading one chunk of a remote superchunk (spec/v2.md §9): the 32-byte
 * header, then one or two offsets entries, then the chunk's slot — three range requests whatever
 * the size of the file, and no request depends on listing or on the metadata section.
 *
 * @example
 * ```ts
 * import { readChunkByRanges } from "@fmt/header";
 * const { chunk } = await readChunkByRanges((r) => fetchRange(url, r.offset, r.length), 7, { path: url });
 * ```
 * @module
 */
import { FormatError, UsageError } from "@fmt/errors";
import { BLPK_V2_HEADER_SIZE, readSuperchunkHeader, type SuperchunkHeader } from "./superchunk-header.js";
import { checkOffsetEntry, offsetsTableStart, readSuperchunkChunk } from "./superchunk-layout.js";
import { checksumKind } from "./superchunk-checksum.js";
import type { ChunkHeader } from "./index.js";

/**
 * `length` bytes from `offset` of one file. A range may reach past the end of the file; the
 * store then returns fewer bytes.
 *
 * @example
 * ```ts
 * const r: ByteSpan = { offset: 0, length: 32 };
 * ```
 */
export interface ByteSpan {
  /** First byte. */
  offset: number;
  /** Number of bytes. */
  length: number;
}

/**
 * Request 1: the superchunk header.
 *
 * @example
 * ```ts
 * const head = await getRange(key, SUPERCHUNK_HEADER_SPAN);
 * ```
 */
export const SUPERCHUNK_HEADER_SPAN: Readonly<ByteSpan> = Object.freeze({ offset: 0, length: BLPK_V2_HEADER_SIZE });

function checkIndex(header: SuperchunkHeader, index: number, path: string | undefined): void {
  if (!header.hasOffsets) throw new FormatError("BAD_HEADER", "ranged reads need an offsets table", { path, field: "blpk.options", expected: "bit 0 set", actual: 0 });
  if (!Number.isInteger(index) || index < 0 || index >= header.nchunks) {
    throw new UsageError("OUT_OF_RANGE", "no such chunk in this superchunk", { path, field: "index", expected: `0..${header.nchunks - 1}`, actual: index });
  }
}

/**
 * Request 2: the offsets entry of chunk `index`, and the next one when chunk `index + 1` is live
 * (its offset bounds the slot from above when it is higher).
 *
 * @throws FormatError BAD_HEADER when the file has no offsets table; UsageError OUT_OF_RANGE.
 * @example
 * ```ts
 * offsetsEntrySpan(header, 0); // { offset: 65, length: 16 } for the spec's example file
 * ```
 */
export function offsetsEntrySpan(header: SuperchunkHeader, index: number, path?: string): ByteSpan {
  checkIndex(header, index, path);
  return { offset: offsetsTableStart(header) + 8 * index, length: index + 1 < header.nchunks ? 16 : 8 };
}

/**
 * Request 3: the bytes of chunk `index`'s slot that can hold live data — from its offset, as far
 * as the largest chunk the header allows plus its checksum (`chunk-size + 16 + checksum size`),
 * and no further than the next chunk's offset when that one is higher. Live chunks never overlap,
 * so a higher next offset is a safe bound.
 *
 * @param header - the superchunk header.
 * @param index - chunk index.
 * @param entries - the bytes request 2 returned.
 * @throws FormatError TRUNCATED (`offsets`) when `entries` is short, BAD_HEADER (`offsets[i]`).
 * @example
 * ```ts
 * chunkSlotSpan(header, 0, entryBytes); // { offset: 97, length: 28 } for the spec's example file
 * ```
 */
export function chunkSlotSpan(header: SuperchunkHeader, index: number, entries: Uint8Array, path?: string): ByteSpan {
  const want = offsetsEntrySpan(header, index, path);
  if (entries.length < want.length) throw new FormatError("TRUNCATED", "file ends inside the offsets table", { path, field: "offsets", expected: `>= ${want.length} bytes`, actual: entries.length });
  const view = new DataView(entries.buffer, entries.byteOffset, entries.length);
  // The table has at least nchunks entries, so no live chunk starts before this.
  const lowest = offsetsTableStart(header) + 8 * header.nchunks;
  const offset = checkOffsetEntry(view.getBigInt64(0, true), index, lowest, undefined, path);
  const csize = checksumKind(header.checksumId).size;
  let length = header.chunkSize === -1 ? Number.MAX_SAFE_INTEGER - offset : header.chunkSize + 16 + csize;
  if (want.length === 16) {
    const next = checkOffsetEntry(view.getBigInt64(8, true), index + 1, lowest, undefined, path);
    if (next > offset) length = Math.min(length, next - offset);
  }
  return { offset, length };
}

/**
 * Reads and checks chunk `index` of a superchunk through a range-reading function, with exactly
 * three calls: {@link SUPERCHUNK_HEADER_SPAN}, {@link offsetsEntrySpan}, {@link chunkSlotSpan}.
 *
 * @param getRange - returns the bytes of a span (fewer at the end of the file).
 * @param index - chunk index inside the file.
 * @param opts - `path` for errors; `verify: false` skips the checksum.
 * @throws FormatError as {@link readSuperchunkHeader}, {@link chunkSlotSpan} and `readSuperchunkChunk`.
 * @example
 * ```ts
 * const { blosc, chunk } = await readChunkByRanges((r) => store.getRange(key, r).then((b) => b ?? new Uint8Array()), 3);
 * ```
 */
export async function readChunkByRanges(
  getRange: (span: ByteSpan) => Promise<Uint8Array>,
  index: number,
  opts: { path?: string | undefined; verify?: boolean; firstChunk?: number | undefined } = {},
): Promise<{ header: SuperchunkHeader; chunk: Uint8Array; blosc: ChunkHeader }> {
  const header = readSuperchunkHeader(await getRange(SUPERCHUNK_HEADER_SPAN), opts.path);
  const entries = await getRange(offsetsEntrySpan(header, index, opts.path));
  const slot = await getRange(chunkSlotSpan(header, index, entries, opts.path));
  const { chunk, blosc } = readSuperchunkChunk(slot, header, index, opts);
  return { header, chunk, blosc };
}
