/**
 * A format-2 superchunk file as the writer of `LayoutV2` keeps it ({@link WriterFile}: the checked
 * index, kept current, plus the writer's state) and the writes that change one file: bytes at
 * an offset, an offsets-table entry, the header, a chunk rewritten in its slot or relocated to a
 * new one (spec/v2.md §7, §13). Each takes the store it writes to; which writes to make, and when
 * a change becomes visible (journal, commit), stays with the layout in layout-v2.ts.
 *
 * Positional writes use the store's `writeAt`; a file of a store without it (an object store) is
 * kept as an image in memory, changed here and put whole by {@link putImage}.
 *
 * @example
 * ```ts
 * if (fits(file, i, chunk)) await overwrite(store, file, i, chunk, g);
 * else await relocate(store, file, i, chunk, g, false, spare);
 * await putImage(store, file);
 * ```
 * @module
 */
import { BLPK_V2_HEADER_SIZE, checksumKind, computeChunkChecksum, readChunkHeader, spareRoom, writeSuperchunkHeader } from "@fmt/header";
import type { WritableStore } from "@fmt/fs-adapters";
import type { PendingSuperchunk } from "./pending-superchunk.js";
import type { StreamedSuperchunk } from "./streamed-superchunk.js";
import type { SuperchunkIndex } from "./superchunk-index.js";

/**
 * Written over the Blosc header of a slot a relocation leaves behind, so that a damaged offsets
 * entry that later lands on the old image of the same chunk fails (a zeroed header is
 * `UNSUPPORTED_VERSION`, spec/v2.md §13.5 and §15.1 item 5) instead of reading stale rows.
 */
const ZERO_HEADER = new Uint8Array(16);

/**
 * A superchunk as a writer sees it: its index kept current, plus what writing needs.
 *
 * @example
 * ```ts
 * const file: WriterFile = { ...index, live: index.header.nchunks, diskLive: index.header.nchunks, fileLength: size, nbytes: new Map() };
 * ```
 */
export interface WriterFile extends SuperchunkIndex {
  /** Not on the store yet: chunks gathered in memory, written whole (§13.2 step 4). */
  pending?: PendingSuperchunk;
  /** New, and written as its chunks come; its first bytes not yet (§13.2 step 4). */
  streamed?: StreamedSuperchunk;
  /** Entries in use (the header's nchunks once written). */
  live: number;
  /** The header's nchunks on the store. */
  diskLive: number;
  fileLength: number;
  /** The whole file, kept for stores without `writeAt`. */
  image?: Uint8Array;
  /** nbytes of the chunks written through this writer (for the last-chunk hint). */
  nbytes: Map<number, number>;
}

/**
 * Chunk, bound checksum and spare room, as one slot (§7.3).
 *
 * @example
 * ```ts
 * const bytes = slotBytes(file, chunk, g, 10); // the chunk, its checksum bound to g, 10 % of spare room
 * ```
 */
export function slotBytes(file: WriterFile, chunk: Uint8Array, g: number, spare: number): Uint8Array {
  const sum = computeChunkChecksum(file.header.checksumId, chunk, g);
  const out = new Uint8Array(chunk.length + sum.length + spareRoom(chunk.length, file.header.chunkSize, spare));
  out.set(chunk);
  out.set(sum, chunk.length);
  return out;
}

/**
 * Writes `bytes` at offset `at` of the file: into its image when the writer keeps one (stores
 * without `writeAt`; {@link putImage} stores it), else in place on the store. The file
 * grows when the bytes end past it.
 *
 * @example
 * ```ts
 * await write(store, file, file.fileLength, slotBytes(file, chunk, g, spare)); // a new slot at the end
 * ```
 */
export async function write(store: WritableStore, file: WriterFile, at: number, bytes: Uint8Array, durable = false): Promise<void> {
  if (file.image !== undefined) {
    const end = at + bytes.length;
    if (end > file.image.length) {
      const grown = new Uint8Array(Math.max(end, file.image.length * 2));
      grown.set(file.image.subarray(0, file.fileLength));
      file.image = grown;
    }
    file.image.set(bytes, at);
  } else {
    await store.writeAt!(file.key, at, bytes, { durable });
  }
  file.fileLength = Math.max(file.fileLength, at + bytes.length);
}

/**
 * Stores the image of a file kept in memory (stores without `writeAt`): one atomic put.
 *
 * @example
 * ```ts
 * await putImage(store, file); // a no-op on stores with writeAt
 * ```
 */
export async function putImage(store: WritableStore, file: WriterFile, durable = false): Promise<void> {
  if (file.image !== undefined) await store.put(file.key, file.image.subarray(0, file.fileLength), { durable });
}

/**
 * Writes entry `i` of the file's offsets table: slot `i` starts at byte `offset`.
 *
 * @example
 * ```ts
 * await setEntry(store, file, i, at); // after the slot at `at` is written
 * ```
 */
export async function setEntry(store: WritableStore, file: WriterFile, i: number, offset: number, durable = false): Promise<void> {
  const entry = new Uint8Array(8);
  new DataView(entry.buffer).setBigInt64(0, BigInt(offset), true);
  await write(store, file, BLPK_V2_HEADER_SIZE + file.header.metaSize + 8 * i, entry, durable);
  file.offsets[i] = offset;
}

/**
 * Writes the file's header with `nchunks` live chunks (and the last one's nbytes as its hint).
 *
 * @example
 * ```ts
 * await writeHeader(store, file, required, true);
 * ```
 */
export async function writeHeader(store: WritableStore, file: WriterFile, nchunks: number, durable = false): Promise<void> {
  const lastNbytes = nchunks === 0 ? 0 : (file.nbytes.get(nchunks - 1) ?? file.header.lastChunk);
  file.header = { ...file.header, nchunks, lastChunk: lastNbytes };
  await write(store, file, 0, writeSuperchunkHeader(file.header), durable);
  file.live = nchunks;
  file.diskLive = nchunks;
}

/**
 * Whether chunk `chunk` with its checksum fits slot `i` in place (§7.2).
 *
 * @example
 * ```ts
 * if (fits(file, i, chunk)) await overwrite(store, file, i, chunk, g);
 * ```
 */
export function fits(file: WriterFile, i: number, chunk: Uint8Array): boolean {
  const at = file.offsets[i]!;
  let end = file.fileLength;
  for (let j = 0; j < file.live; j++) if (j !== i && file.offsets[j]! > at && file.offsets[j]! < end) end = file.offsets[j]!;
  return chunk.length + checksumKind(file.header.checksumId).size <= end - at;
}

/**
 * A new slot at the end of the file, then its entry (the entry write is the commit, §13.5); the old slot's Blosc header is zeroed.
 * `commit` is for a chunk readers can see: the entry is written durably, after the slot.
 *
 * @example
 * ```ts
 * await relocate(store, file, i, chunk, g, true, spare); // a committed chunk that outgrew its slot
 * ```
 */
export async function relocate(store: WritableStore, file: WriterFile, i: number, chunk: Uint8Array, g: number, commit: boolean, spare: number): Promise<void> {
  const old = file.offsets[i]!;
  const at = file.fileLength;
  await write(store, file, at, slotBytes(file, chunk, g, spare));
  // The slot is durable before the entry that commits it; an image store puts both at once.
  if (commit && file.image === undefined) await store.sync?.();
  await setEntry(store, file, i, at, commit);
  if (old >= 0 && old !== at) await write(store, file, old, ZERO_HEADER);
  file.nbytes.set(i, readChunkHeader(chunk).nbytes);
}

/**
 * Rewrites chunk `i` in its slot with its checksum (the caller checked that it {@link fits}).
 *
 * @example
 * ```ts
 * await overwrite(store, file, i, chunk, g);
 * ```
 */
export async function overwrite(store: WritableStore, file: WriterFile, i: number, chunk: Uint8Array, g: number): Promise<void> {
  const sum = computeChunkChecksum(file.header.checksumId, chunk, g);
  const bytes = new Uint8Array(chunk.length + sum.length);
  bytes.set(chunk);
  bytes.set(sum, chunk.length);
  await write(store, file, file.offsets[i]!, bytes);
  file.nbytes.set(i, readChunkHeader(chunk).nbytes);
}
