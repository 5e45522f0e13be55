/**
 * Reading format-2 superchunks: each file's header, metadata section and offsets table are
 * fetched with one range request, checked once in the order of spec/v2.md §15 (header §4.3,
 * metadata §5, dataset consistency §10.4, offsets §7.1) and kept as a {@link SuperchunkIndex};
 * chunks are then read with one range request each, or several neighbouring slots with one
 * request, and checked as §7.4 says (Blosc header, nbytes against chunk-size, the checksum bound to
 * the chunk's global index).
 *
 * @example
 * ```ts
 * const index = await loadSuperchunkIndex(store, key, expectation);
 * const stored = await readIndexedChunk(store, index, 3, { verify: true });
 * ```
 * @module
 */
import { isResidentView } from "@fmt/blosc";
import { FormatError } from "@fmt/errors";
import {
  BLOSC_HEADER_SIZE, BLPK_V2_HEADER_SIZE, checkDatasetSuperchunk, checkOffsetEntry, checksumKind, crc32Offload, offsetsEntryCount, readSuperchunkChunk, readSuperchunkHeader, readSuperchunkMetadataText,
} from "@fmt/header";
import type { SuperchunkHeader } from "@fmt/header";
import type { ReadableStore } from "@fmt/fs-adapters";
import { parseSuperchunkMeta } from "@fmt/meta";
import { pathed, withPath } from "./internal.js";

/** Bytes of metadata the first request of a file assumes (datasets write about 40). */
const METADATA_GUESS = 216;

/**
 * What a reader knows of one superchunk file after its first request.
 *
 * @example
 * ```ts
 * index.offsets[i]; // absolute position of local chunk i, or -1 for a free entry
 * ```
 */
export interface SuperchunkIndex {
  /** Superchunk number (1-based). */
  s: number;
  /** Store key of the file. */
  key: string;
  /** The parsed header (its `nchunks` as on disk when the index was loaded). */
  header: SuperchunkHeader;
  /** `first_chunk` of the metadata: the global index of local chunk 0. */
  firstChunk: number;
  /** Entries of the offsets table. */
  capacity: number;
  /** First byte after the offsets table. */
  dataStart: number;
  /** The table, one number per entry (−1 free; never checked beyond what {@link chunkOffset} checks). */
  offsets: number[];
  /** Metadata text as stored (with its padding), for writers rebuilding the file. */
  metadataText: string;
}

/**
 * What a dataset expects of superchunk `s` (spec/v2.md §10.4).
 *
 * @example
 * ```ts
 * const e: IndexExpectation = { s: 1, required: 2, chunklen: 2, atomsize: 4, superchunksize: 4 };
 * ```
 */
export interface IndexExpectation {
  s: number;
  required: number;
  chunklen: number;
  atomsize: number;
  superchunksize: number;
}

async function fetchRange(store: ReadableStore, key: string, offset: number, length: number): Promise<Uint8Array | undefined> {
  if (store.getRange !== undefined) return store.getRange(key, { offset, length });
  return (await store.get(key))?.subarray(offset, offset + length);
}

/**
 * Loads and checks the header, metadata and offsets table of dataset superchunk `key`: one range
 * request when the metadata is short (always, for files this project writes), two otherwise.
 * Errors name the file: `MISSING_FILE`, then §4.3's codes, §5's, §10.4's, `TRUNCATED` (`offsets`).
 *
 * @example
 * ```ts
 * const index = await loadSuperchunkIndex(store, "data/__1__.bin", { s: 1, required: 2, chunklen: 2, atomsize: 4, superchunksize: 4 });
 * ```
 */
export async function loadSuperchunkIndex(store: ReadableStore, key: string, expected: IndexExpectation): Promise<SuperchunkIndex> {
  const tableBytes = 8 * expected.superchunksize;
  const asked = BLPK_V2_HEADER_SIZE + METADATA_GUESS + tableBytes;
  const missing = (): FormatError => new FormatError("MISSING_FILE", `superchunk ${expected.s} is missing`, { path: key, field: "file" });
  let bytes = await fetchRange(store, key, 0, asked);
  if (bytes === undefined) throw missing();
  if (bytes.length === asked) {
    // The metadata section was longer than guessed: a second request for the rest of the table.
    const header = withPath(key, () => readSuperchunkHeader(bytes!, key));
    const need = BLPK_V2_HEADER_SIZE + header.metaSize + tableBytes;
    if (need > asked) bytes = (await fetchRange(store, key, 0, need)) ?? missing_(missing);
  }
  return parseIndex(bytes, key, expected);
}

function missing_(make: () => FormatError): never {
  throw make();
}

/**
 * Parses and checks the start of a dataset superchunk (header, metadata, table) already in
 * memory: the first bytes of the file, or all of it.
 *
 * @example
 * ```ts
 * const index = parseIndex(wholeFile, "data/__1__.bin", expectation);
 * ```
 */
export function parseIndex(bytes: Uint8Array, key: string, expected: IndexExpectation): SuperchunkIndex {
  return withPath(key, () => {
    const header = readSuperchunkHeader(bytes, key);
    const text = readSuperchunkMetadataText(bytes, header, key);
    const meta = parseSuperchunkMeta(text.length === 0 ? "{}" : text, key);
    // §5 (capacity below nchunks: BAD_METADATA) comes before §10.4's comparisons with meta/storage.
    const capacity = header.hasOffsets ? offsetsEntryCount(header, meta.capacity, key) : 0;
    checkDatasetSuperchunk(header, meta, expected, key);
    const tableStart = BLPK_V2_HEADER_SIZE + header.metaSize;
    const live = Math.min(header.nchunks, capacity);
    if (bytes.length < tableStart + 8 * live) {
      throw new FormatError("TRUNCATED", "file ends inside the live offsets entries", { path: key, field: "offsets", expected: `>= ${tableStart + 8 * live} bytes`, actual: bytes.length });
    }
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.length);
    const offsets: number[] = [];
    for (let i = 0; i < capacity && tableStart + 8 * i + 8 <= bytes.length; i++) {
      const v = view.getBigInt64(tableStart + 8 * i, true);
      // Kept as numbers; an entry is checked when its chunk is needed (§7.1, §10.4: entries beyond the required ones are ignored).
      offsets.push(v < -1n || v > BigInt(Number.MAX_SAFE_INTEGER) ? -2 : Number(v));
    }
    return { s: expected.s, key, header, firstChunk: meta.firstChunk ?? 0, capacity, dataStart: tableStart + 8 * capacity, offsets, metadataText: text };
  });
}

/**
 * The checked offset of local chunk `i` (§7.1: inside the file after the table; `BAD_HEADER`,
 * field `offsets[i]`, otherwise). `fileLength` tightens the check when known.
 *
 * @example
 * ```ts
 * chunkOffset(index, 0); // 104 for the file of spec/v2.md §8.1
 * ```
 */
export function chunkOffset(index: SuperchunkIndex, i: number, fileLength?: number): number {
  const raw = index.offsets[i];
  if (raw === undefined) throw new FormatError("TRUNCATED", "file ends inside the offsets table", { path: index.key, field: "offsets", expected: `entry ${i}`, actual: index.offsets.length });
  return checkOffsetEntry(BigInt(raw === -2 ? Number.MIN_SAFE_INTEGER : raw), i, index.dataStart, fileLength, index.key);
}

/**
 * How many bytes from chunk `i`'s offset a reader fetches: the most a chunk and its checksum can
 * take (`chunk-size + 16 + checksum`), cut at the next higher offset among the first `live` entries
 * (chunks do not overlap, §9).
 *
 * @example
 * ```ts
 * slotReadLength(index, 0, 2); // 28 for the file of spec/v2.md §8.1
 * ```
 */
export function slotReadLength(index: SuperchunkIndex, i: number, live: number): number {
  const at = chunkOffset(index, i);
  let length = index.header.chunkSize + 16 + checksumKind(index.header.checksumId).size;
  for (let j = 0; j < Math.min(live, index.offsets.length); j++) {
    const o = index.offsets[j]!;
    if (j !== i && o > at && o - at < length) length = o - at;
  }
  return length;
}

/**
 * Checks local chunk `i` inside `slot` (bytes from its offset) as §7.4 says and returns its Blosc
 * bytes: Blosc header, nbytes against chunk-size, the checksum bound to the global index unless
 * `verify` is false (`crc32`: the chunk's CRC-32 when another thread computed it).
 *
 * @example
 * ```ts
 * const chunk = chunkFromSlot(index, 1, slotBytes, true);
 * ```
 */
export function chunkFromSlot(index: SuperchunkIndex, i: number, slot: Uint8Array, verify: boolean, path = index.key, crc32?: number): Uint8Array {
  if (slot.length < 16 && path === index.key) {
    // Fewer than a Blosc header's bytes from the offset to the end of the file: the entry lies
    // past `file length − 16` (§7.1), not a chunk cut short.
    throw new FormatError("BAD_HEADER", "offsets entry points past the last possible chunk start", { path, field: `offsets[${i}]`, expected: "<= file length - 16", actual: `${slot.length} bytes left` });
  }
  // A try statement, not `withPath`'s closure: this runs for every chunk read (see `pathed`).
  try {
    return readSuperchunkChunk(slot, index.header, i, { path, verify, firstChunk: index.firstChunk, crc32 }).chunk;
  } catch (error) {
    throw pathed(error, path);
  }
}

/**
 * The CRC-32s of chunks `locals` of a run of slots read from byte `start` of the file into
 * `bytes`, computed on another thread (`useCrc32Offload` of @fmt/header) while this one decodes
 * the runs before. An ordinary run's buffer is transferred there and back: only a buffer the
 * caller owns whole may be given (a lent input buffer), and the answer's `bytes` replace `bytes`,
 * which is detached meanwhile. A run in shared memory (a slot of the decoder's, lent for an
 * offload that `sharesMemory`) is read there in place and the answer's `bytes` are `bytes`.
 * `undefined` when nothing was handed over (no offload, a checksum other than CRC-32, a run in
 * the decoder's own unshared memory or shared memory the offload does not take, no chunk whose
 * header and length fit the run); an entry of `sums` is `undefined` for a chunk left to the usual
 * checks; `lost` when the other thread failed with the buffer (read the run again).
 *
 * @example
 * ```ts
 * const answer = await offloadedCrc32(index, [0, 1, 2], chunkOffset(index, 0), run);
 * if (answer !== undefined && answer !== "lost") run = answer.bytes;
 * ```
 */
export async function offloadedCrc32(
  index: SuperchunkIndex,
  locals: readonly number[],
  start: number,
  bytes: Uint8Array,
): Promise<{ bytes: Uint8Array; sums: (number | undefined)[] } | "lost" | undefined> {
  const offload = crc32Offload();
  // Shared memory (the decoder's, read into by the reader) only to an offload that reads it in
  // place. An ordinary WebAssembly memory (a slot of the decoder's own, lent when the dataset's
  // checksums were to be computed here) is never sent: it cannot be transferred, and a transfer
  // list holding it would copy the whole memory instead.
  const moved = bytes.buffer instanceof ArrayBuffer;
  if (offload === undefined || checksumKind(index.header.checksumId).name !== "crc32") return undefined;
  if (moved ? isResidentView(bytes) : offload.sharesMemory !== true) return undefined;
  const spans: { offset: number; length: number }[] = [];
  const spanOf: number[] = []; // chunk k's span, or -1
  for (const i of locals) {
    const at = chunkOffset(index, i) - start;
    const cbytes = at >= 0 && at + BLOSC_HEADER_SIZE <= bytes.length ? (bytes[at + 12]! | (bytes[at + 13]! << 8) | (bytes[at + 14]! << 16) | (bytes[at + 15]! << 24)) >>> 0 : -1;
    if (cbytes < BLOSC_HEADER_SIZE || at + cbytes > bytes.length) {
      spanOf.push(-1);
      continue;
    }
    spanOf.push(spans.length);
    spans.push({ offset: bytes.byteOffset + at, length: cbytes });
  }
  if (spans.length === 0) return undefined;
  const { byteOffset, length } = bytes;
  try {
    const answer = await offload.crc32(bytes.buffer, spans);
    return { bytes: moved ? new Uint8Array(answer.buffer, byteOffset, length) : bytes, sums: spanOf.map((k) => (k < 0 ? undefined : answer.sums[k])) };
  } catch {
    return moved && bytes.buffer.byteLength === 0 ? "lost" : undefined; // a detached buffer went with the failure
  }
}
