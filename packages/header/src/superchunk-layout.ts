/**
 * The parts of a format-version-2 superchunk file after its header (spec/v2.md §5–§7): the
 * metadata section, the offsets table, chunk slots (chunk, checksum, spare room), and a builder
 * that lays a whole file out from Blosc chunks.
 *
 * @example
 * ```ts
 * import { readSuperchunkHeader, readOffsets, readSuperchunkChunk } from "@fmt/header";
 * const h = readSuperchunkHeader(file, path);
 * const offsets = readOffsets(file, h, { capacity: 64, fileLength: file.length, path });
 * const chunk = readSuperchunkChunk(file.subarray(offsets[0]!), h, 0, { path });
 * ```
 * @module
 */
import { FormatError, UsageError } from "@fmt/errors";
import { BLPK_V2_HEADER_SIZE, writeSuperchunkHeader, type SuperchunkHeader } from "./superchunk-header.js";
import { checksumKind, computeChunkChecksum, verifyChunkChecksum } from "./superchunk-checksum.js";
import { readChunkHeader, type ChunkHeader } from "./index.js";

const BLOSC_HEADER = 16;
const ENTRY = 8;

/**
 * Decodes the metadata section (bytes `[32, 32 + meta-size)`) as strict UTF-8. The JSON itself is
 * parsed and checked by `@fmt/meta` (`parseSuperchunkMeta`).
 *
 * @param bytes - the file, or at least its first `32 + metaSize` bytes.
 * @param header - its header.
 * @param path - file name for error messages.
 * @returns the text, `""` when the file has no metadata section.
 * @throws FormatError TRUNCATED or BAD_JSON, field `superchunk.meta`.
 * @example
 * ```ts
 * readSuperchunkMetadataText(file, header); // '{"capacity": 4, "first_chunk": 0}       ' (with the alignment spaces)
 * ```
 */
export function readSuperchunkMetadataText(bytes: Uint8Array, header: SuperchunkHeader, path?: string): string {
  if (!header.hasMetadata) return "";
  const end = BLPK_V2_HEADER_SIZE + header.metaSize;
  if (bytes.length < end) {
    throw new FormatError("TRUNCATED", "file ends inside the metadata section", { path, field: "superchunk.meta", expected: `>= ${end} bytes`, actual: bytes.length });
  }
  try {
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes.subarray(BLPK_V2_HEADER_SIZE, end));
  } catch (e) {
    throw new FormatError("BAD_JSON", "metadata section is not valid UTF-8", { path, field: "superchunk.meta", expected: "UTF-8 JSON", cause: e });
  }
}

/**
 * Number of entries of the offsets table: the metadata's `capacity` when given, else `nchunks`;
 * 0 without offsets.
 *
 * @param header - the superchunk header.
 * @param capacity - `capacity` from the metadata section, if it has one.
 * @param path - file name for error messages.
 * @throws FormatError BAD_METADATA (`superchunk.meta/capacity`) when `capacity < nchunks`.
 * @example
 * ```ts
 * offsetsEntryCount(header, 64); // 64
 * ```
 */
export function offsetsEntryCount(header: SuperchunkHeader, capacity?: number, path?: string): number {
  if (!header.hasOffsets) return 0;
  if (capacity === undefined) return header.nchunks;
  if (capacity < header.nchunks) {
    throw new FormatError("BAD_METADATA", "capacity is smaller than nchunks", { path, field: "superchunk.meta/capacity", expected: `>= ${header.nchunks} (nchunks)`, actual: capacity });
  }
  return capacity;
}

/**
 * File position of the offsets table (right after the metadata section).
 *
 * @example
 * ```ts
 * offsetsTableStart({ ...header, metaSize: 33 }); // 65
 * ```
 */
export function offsetsTableStart(header: Pick<SuperchunkHeader, "metaSize">): number {
  return BLPK_V2_HEADER_SIZE + header.metaSize;
}

/**
 * File position of the first chunk slot: header, metadata section and offsets table come before.
 *
 * @example
 * ```ts
 * chunkDataStart(header, 4); // 32 + metaSize + 4·8
 * ```
 */
export function chunkDataStart(header: SuperchunkHeader, capacity?: number, path?: string): number {
  return offsetsTableStart(header) + ENTRY * offsetsEntryCount(header, capacity, path);
}

/**
 * Checks one offsets entry of a live chunk: it must lie in `[lowest, fileLength − 16]`.
 *
 * @param value - the entry as read (i64).
 * @param index - chunk index, for the error's field `offsets[<index>]`.
 * @param lowest - the first byte a chunk may start at.
 * @param fileLength - file length when known; without it only the lower bound is checked.
 * @throws FormatError BAD_HEADER, field `offsets[<index>]`.
 * @example
 * ```ts
 * checkOffsetEntry(97n, 0, 97, 153); // 97
 * ```
 */
export function checkOffsetEntry(value: bigint, index: number, lowest: number, fileLength?: number, path?: string): number {
  const highest = fileLength === undefined ? Number.MAX_SAFE_INTEGER : fileLength - BLOSC_HEADER;
  if (value < BigInt(lowest) || value > BigInt(highest)) {
    throw new FormatError("BAD_HEADER", value === -1n ? "offset of a live chunk is -1 (unknown)" : "offset points outside the chunk area", {
      path, field: `offsets[${index}]`, expected: `${lowest}..${highest}`, actual: value,
    });
  }
  return Number(value);
}

/**
 * Reads the offsets of the file's live chunks (entries `0 … nchunks − 1`; later entries are room
 * for appends and are ignored, whatever they hold).
 *
 * @param bytes - the file, or at least up to the end of its offsets table.
 * @param header - its header (must have option bit 0).
 * @param opts - `capacity` from the metadata, `fileLength` to check the upper bound, `path`.
 * @throws FormatError TRUNCATED (`offsets`), BAD_HEADER (`offsets[i]`, or `blpk.options` when the
 * file has no offsets table), BAD_METADATA (`superchunk.meta/capacity`).
 * @example
 * ```ts
 * readOffsets(file, header, { capacity: 4, fileLength: file.length }); // [97, 125]
 * ```
 */
export function readOffsets(bytes: Uint8Array, header: SuperchunkHeader, opts: { capacity?: number | undefined; fileLength?: number | undefined; path?: string | undefined } = {}): number[] {
  const { path } = opts;
  if (!header.hasOffsets) throw new FormatError("BAD_HEADER", "file has no offsets table", { path, field: "blpk.options", expected: "bit 0 set", actual: 0 });
  const start = offsetsTableStart(header);
  const dataStart = chunkDataStart(header, opts.capacity, path);
  const liveEnd = start + ENTRY * header.nchunks;
  if (bytes.length < liveEnd) throw new FormatError("TRUNCATED", "file ends inside the offsets table", { path, field: "offsets", expected: `>= ${liveEnd} bytes`, actual: bytes.length });
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.length);
  const out: number[] = [];
  for (let i = 0; i < header.nchunks; i++) out.push(checkOffsetEntry(view.getBigInt64(start + ENTRY * i, true), i, dataStart, opts.fileLength, path));
  return out;
}

/**
 * Encodes an offsets table of `capacity` entries: the given offsets, then −1 for every free slot.
 *
 * @throws UsageError INVALID_ARGUMENT when there are more offsets than `capacity`.
 * @example
 * ```ts
 * writeOffsets([97, 125], 4); // 61 00.. 7D 00.. FF.. FF..
 * ```
 */
export function writeOffsets(offsets: readonly number[], capacity: number = offsets.length): Uint8Array {
  if (!Number.isSafeInteger(capacity) || capacity < offsets.length) throw new UsageError("INVALID_ARGUMENT", "capacity must be an integer >= the number of offsets", { field: "capacity", expected: `>= ${offsets.length}`, actual: capacity });
  const out = new Uint8Array(ENTRY * capacity);
  const view = new DataView(out.buffer);
  for (let i = 0; i < capacity; i++) view.setBigInt64(ENTRY * i, i < offsets.length ? BigInt(offsets[i]!) : -1n, true);
  return out;
}

/**
 * Capacity of every live slot (spec/v2.md §7.2): from its offset to the next higher live offset, or
 * to the end of the file for the highest one. A chunk may be rewritten in place when its new
 * `cbytes` plus the checksum size is at most this.
 *
 * @example
 * ```ts
 * slotCapacities([97, 125], 153); // [28, 28]
 * slotCapacities([125, 97], 153); // [28, 28] — order in the table does not matter
 * ```
 */
export function slotCapacities(offsets: readonly number[], fileLength: number): number[] {
  const sorted = [...offsets].sort((a, b) => a - b);
  return offsets.map((o) => {
    const next = sorted.find((p) => p > o);
    return (next ?? fileLength) - o;
  });
}

/**
 * Spare room a writer of this specification leaves after a chunk and its checksum (spec/v2.md
 * §7.3): `ceil(cbytes × sparePercent / 100)`, but never more than the chunk could ever grow, i.e.
 * capped at `chunkSize + 16 − cbytes`.
 *
 * @example
 * ```ts
 * spareRoom(20, 8, 50); // 4: ceil(10) capped at 8 + 16 − 20
 * spareRoom(1000, 65536, 10); // 100
 * ```
 */
export function spareRoom(cbytes: number, chunkSize: number, sparePercent: number): number {
  if (!Number.isInteger(sparePercent) || sparePercent < 0 || sparePercent > 100) throw new UsageError("INVALID_ARGUMENT", "spare must be a whole percentage 0..100", { field: "spare", expected: "0..100", actual: sparePercent });
  return Math.max(0, Math.min(Math.ceil((cbytes * sparePercent) / 100), chunkSize + BLOSC_HEADER - cbytes));
}

/**
 * The global index a stored checksum is bound to (spec/v2.md §6 "Binding"): `firstChunk + index`
 * in a file with a metadata section, `undefined` (no binding, as bloscpack) without one.
 *
 * @example
 * ```ts
 * checksumBinding(header, 3, 128); // 131 when header.hasMetadata, else undefined
 * ```
 */
export function checksumBinding(header: Pick<SuperchunkHeader, "hasMetadata">, index: number, firstChunk = 0): number | undefined {
  return header.hasMetadata ? firstChunk + index : undefined;
}

/**
 * Reads chunk `index` from its slot and checks it (spec/v2.md §7.4): the Blosc header, its
 * `nbytes` against the superchunk header (every chunk but the last has exactly `chunk-size` bytes,
 * the last at most that), and the stored checksum unless `verify` is false.
 *
 * @param slot - file bytes starting at the chunk's offset (at least `cbytes` + checksum size).
 * @param header - the superchunk header.
 * @param index - the chunk's index in the file.
 * @param opts - `path` for errors; `verify: false` skips the checksum comparison; `firstChunk`, the
 * `first_chunk` of the file's metadata (default 0), to which the local index is added for the
 * checksum binding of files with a metadata section (spec/v2.md §6); `crc32`, the chunk's CRC-32
 * computed elsewhere (see `verifyChunkChecksum`).
 * @returns the chunk (`cbytes` bytes, a view into `slot`) and its decoded Blosc header.
 * @throws FormatError from `readChunkHeader`; BAD_HEADER (`chunk[i].nbytes`); TRUNCATED
 * (`chunk[i].checksum`); CHECKSUM_MISMATCH (`chunk[i].checksum`). UsageError OUT_OF_RANGE when
 * `index` is not below `nchunks`.
 * @example
 * ```ts
 * const { chunk, blosc } = readSuperchunkChunk(file.subarray(offsets[1]!), header, 1, { path });
 * blosc.nbytes; // 4
 * ```
 */
export function readSuperchunkChunk(slot: Uint8Array, header: SuperchunkHeader, index: number, opts: { path?: string | undefined; verify?: boolean; firstChunk?: number | undefined; crc32?: number | undefined } = {}): { chunk: Uint8Array; blosc: ChunkHeader } {
  const { path } = opts;
  if (!Number.isInteger(index) || index < 0 || (header.nchunks !== -1 && index >= header.nchunks)) {
    throw new UsageError("OUT_OF_RANGE", "no such chunk in this superchunk", { path, field: "index", expected: `0..${header.nchunks - 1}`, actual: index });
  }
  const blosc = readChunkHeader(slot, path);
  if (header.chunkSize !== -1) {
    const last = header.nchunks === -1 || index === header.nchunks - 1;
    if (last ? blosc.nbytes > header.chunkSize : blosc.nbytes !== header.chunkSize) {
      throw new FormatError("BAD_HEADER", last ? "the last chunk is larger than chunk-size" : "a chunk other than the last must hold exactly chunk-size bytes", {
        path, field: `chunk[${index}].nbytes`, expected: last ? `<= ${header.chunkSize}` : header.chunkSize, actual: blosc.nbytes,
      });
    }
  }
  const size = checksumKind(header.checksumId).size;
  const end = blosc.cbytes + size;
  if (slot.length < end) {
    throw new FormatError("TRUNCATED", "file ends before the chunk's checksum", { path, field: `chunk[${index}].checksum`, expected: `>= ${end} bytes from the chunk's offset`, actual: slot.length });
  }
  const chunk = slot.subarray(0, blosc.cbytes);
  if (opts.verify !== false) verifyChunkChecksum(header.checksumId, chunk, slot.subarray(blosc.cbytes, end), { path, index, bind: checksumBinding(header, index, opts.firstChunk), crc32: opts.crc32 });
  return { chunk, blosc };
}

/**
 * Offsets of the chunks of a file found by walking it from the first chunk (chunk, checksum,
 * next chunk …): how a file without an offsets table is read. With `nchunks = −1` the walk stops
 * at the end of the file.
 *
 * @throws FormatError from `readChunkHeader`, or TRUNCATED (`chunk[i].checksum`).
 * @example
 * ```ts
 * walkChunkOffsets(file, header); // [32, 60] for a two-chunk file without metadata or offsets
 * ```
 */
export function walkChunkOffsets(bytes: Uint8Array, header: SuperchunkHeader, path?: string): number[] {
  const size = checksumKind(header.checksumId).size;
  const out: number[] = [];
  let at = chunkDataStart(header, undefined, path);
  while (header.nchunks === -1 ? at < bytes.length : out.length < header.nchunks) {
    const blosc = readChunkHeader(bytes.subarray(at), path);
    if (at + blosc.cbytes + size > bytes.length) {
      throw new FormatError("TRUNCATED", "file ends before the chunk's checksum", { path, field: `chunk[${out.length}].checksum`, expected: `>= ${at + blosc.cbytes + size} bytes`, actual: bytes.length });
    }
    out.push(at);
    at += blosc.cbytes + size;
  }
  return out;
}

/**
 * What {@link buildSuperchunk} needs.
 *
 * @example
 * ```ts
 * const opts: SuperchunkLayoutOptions = { chunks, checksumId: 1, typesize: 4, chunkSize: 8, metadata: '{"capacity": 4, "first_chunk": 0}', capacity: 4, sparePercent: 50 };
 * ```
 */
export interface SuperchunkLayoutOptions {
  /** The Blosc chunks, in order; all but the last hold exactly `chunkSize` bytes. */
  chunks: readonly Uint8Array[];
  /** Checksum id 0–8. */
  checksumId: number;
  /** Blosc typesize recorded in the header. */
  typesize: number;
  /** Uncompressed bytes of a full chunk. */
  chunkSize: number;
  /** Metadata JSON text (option bit 1), or undefined for none. */
  metadata?: string | undefined;
  /** Offsets table entries (≥ chunks.length); only with offsets. Default: chunks.length. */
  capacity?: number | undefined;
  /** Whether to write an offsets table (option bit 0). Default true. */
  offsets?: boolean | undefined;
  /** Spare room per slot as a percentage of cbytes (see {@link spareRoom}); needs offsets. Default 0. */
  sparePercent?: number | undefined;
  /**
   * Global index of chunk 0, to which checksums are bound in a file with metadata (spec/v2.md §6).
   * Default: the metadata's `first_chunk`, else 0.
   */
  firstChunk?: number | undefined;
}

/**
 * The metadata text followed by the spaces that make the offsets table start at a multiple of 8
 * (spec/v2.md §5), or the text unchanged when there is no offsets table.
 *
 * @example
 * ```ts
 * padMetadata('{"capacity": 4, "first_chunk": 0}', true).length; // 40: 33 bytes + 7 spaces
 * ```
 */
export function padMetadata(text: string, withOffsets = true): string {
  if (!withOffsets) return text;
  const length = new TextEncoder().encode(text).length;
  return text + " ".repeat((8 - ((BLPK_V2_HEADER_SIZE + length) % 8)) % 8);
}

/**
 * Lays out a complete superchunk file: header, metadata (padded by {@link padMetadata}), offsets
 * (slots in chunk order), then each chunk followed by its checksum and its spare room (zero bytes).
 *
 * @throws UsageError INVALID_ARGUMENT for spare room without offsets, chunk sizes that break the
 * chunk-size rule, or header values out of range.
 * @example
 * ```ts
 * const file = buildSuperchunk({ chunks: [c0, c1], checksumId: 1, typesize: 4, chunkSize: 8, metadata: '{"capacity": 4, "first_chunk": 0}', capacity: 4, sparePercent: 50 });
 * ```
 */
export function buildSuperchunk(opts: SuperchunkLayoutOptions): Uint8Array {
  const withOffsets = opts.offsets !== false;
  const spare = opts.sparePercent ?? 0;
  if (!withOffsets && spare !== 0) throw new UsageError("INVALID_ARGUMENT", "spare room needs an offsets table", { field: "sparePercent", expected: 0, actual: spare });
  const capacity = withOffsets ? (opts.capacity ?? opts.chunks.length) : 0;
  const metaBytes = opts.metadata === undefined ? new Uint8Array(0) : new TextEncoder().encode(padMetadata(opts.metadata, withOffsets));
  const headers = opts.chunks.map((c) => readChunkHeader(c));
  headers.forEach((h, i) => {
    const last = i === headers.length - 1;
    if (last ? h.nbytes > opts.chunkSize : h.nbytes !== opts.chunkSize) {
      throw new UsageError("INVALID_ARGUMENT", "chunk sizes break the chunk-size rule", { field: `chunks[${i}]`, expected: last ? `<= ${opts.chunkSize}` : opts.chunkSize, actual: h.nbytes });
    }
  });
  const header = {
    hasOffsets: withOffsets, hasMetadata: opts.metadata !== undefined, checksumId: opts.checksumId, typesize: opts.typesize,
    chunkSize: opts.chunkSize, lastChunk: headers.length === 0 ? 0 : headers[headers.length - 1]!.nbytes, nchunks: opts.chunks.length, metaSize: metaBytes.length,
  };
  const headBytes = writeSuperchunkHeader(header);
  const firstChunk = opts.firstChunk ?? firstChunkOf(opts.metadata);
  const csize = checksumKind(opts.checksumId).size;
  let at = BLPK_V2_HEADER_SIZE + metaBytes.length + ENTRY * capacity;
  const offsets: number[] = [];
  const slotSizes: number[] = [];
  for (const [i, c] of opts.chunks.entries()) {
    const cbytes = headers[i]!.cbytes;
    offsets.push(at);
    const size = cbytes + csize + spareRoom(cbytes, opts.chunkSize, spare);
    slotSizes.push(size);
    at += size;
    if (c.length < cbytes) throw new UsageError("INVALID_ARGUMENT", "chunk is shorter than its cbytes", { field: `chunks[${i}]`, expected: cbytes, actual: c.length });
  }
  const out = new Uint8Array(at);
  out.set(headBytes);
  out.set(metaBytes, BLPK_V2_HEADER_SIZE);
  if (withOffsets) out.set(writeOffsets(offsets, capacity), BLPK_V2_HEADER_SIZE + metaBytes.length);
  for (const [i, c] of opts.chunks.entries()) {
    const chunk = c.subarray(0, headers[i]!.cbytes);
    out.set(chunk, offsets[i]);
    out.set(computeChunkChecksum(opts.checksumId, chunk, checksumBinding(header, i, firstChunk)), offsets[i]! + chunk.length);
  }
  return out;
}

function firstChunkOf(metadata: string | undefined): number {
  if (metadata === undefined) return 0;
  try {
    const value = (JSON.parse(metadata) as { first_chunk?: unknown }).first_chunk;
    return typeof value === "number" && Number.isSafeInteger(value) && value >= 0 ? value : 0;
  } catch {
    return 0;
  }
}
