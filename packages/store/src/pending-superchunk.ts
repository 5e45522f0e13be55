/**
 * {@link PendingSuperchunk}: a superchunk file that a format-2 writer has not stored yet (spec/v2.md
 * §13.2 step 4: a new file is written whole, by one atomic put), laid out as it goes. Chunks
 * that come in index order are placed straight into their slots in one image, checksum and spare
 * room included, so that storing the file is writing its header, metadata and offsets into the
 * image's first bytes: no copy of each chunk kept aside, and no second, file-sized buffer
 * assembled from them at the end.
 *
 * @example
 * ```ts
 * const file = new PendingSuperchunk({ capacity: 4, firstChunk: 0, checksumId: 2, typesize: 8, chunkSize: 524288, sparePercent: 10 });
 * file.set(0, chunk0);
 * file.set(1, chunk1);
 * await store.put("data/__1__.bin", file.build(2));
 * ```
 * @module
 */
import {
  BLPK_V2_HEADER_SIZE, buildSuperchunk, checksumBinding, computeChunkChecksum, checksumKind, padMetadata, readChunkHeader, spareRoom, writeOffsets, writeSuperchunkHeader,
} from "@fmt/header";
import { serializeSuperchunkMeta } from "@fmt/meta";

/** Offsets table entry size. */
const ENTRY = 8;

/**
 * What a new superchunk file laid out with `settings` begins with: its padded metadata, where slot
 * 0 starts (after the header, the metadata and the whole offsets table), and the checksum size.
 * {@link PendingSuperchunk} and the writer that streams a file slot by slot share it.
 *
 * @example
 * ```ts
 * const { meta, dataStart, checksumSize } = newSuperchunkLayout(settings);
 * ```
 */
export function newSuperchunkLayout(settings: PendingSuperchunkSettings): { meta: Uint8Array; dataStart: number; checksumSize: number } {
  const meta = new TextEncoder().encode(padMetadata(serializeSuperchunkMeta({ capacity: settings.capacity, firstChunk: settings.firstChunk })));
  return { meta, dataStart: BLPK_V2_HEADER_SIZE + meta.length + ENTRY * settings.capacity, checksumSize: checksumKind(settings.checksumId).size };
}

/**
 * The checksum of local chunk `i` (its `cbytes` bytes) in a new superchunk file laid out with
 * `settings`, bound to its global index (spec/v2.md §6).
 *
 * @example
 * ```ts
 * image.set(slotChecksum(settings, chunk, 0), at + chunk.length);
 * ```
 */
export function slotChecksum(settings: PendingSuperchunkSettings, chunk: Uint8Array, i: number): Uint8Array {
  return computeChunkChecksum(settings.checksumId, chunk, slotBinding(settings, i));
}

/**
 * What the checksum of local chunk `i` is bound to in a new superchunk file laid out with
 * `settings` (its global index, spec/v2.md §6), for `verifyChunkChecksum` of `@fmt/header`.
 *
 * @example
 * ```ts
 * verifyChunkChecksum(settings.checksumId, chunk, stored, { index: 7, bind: slotBinding(settings, 3) });
 * ```
 */
export function slotBinding(settings: PendingSuperchunkSettings, i: number): number | undefined {
  return checksumBinding({ hasMetadata: true }, i, settings.firstChunk);
}

/**
 * The first bytes of a new superchunk file laid out with `settings` (header, `meta` — its padded
 * metadata —, offsets table), whose chunks lie at `offsets` in index order and whose last chunk
 * holds `lastNbytes` bytes; written into `into` when given (an image of the whole file).
 *
 * @example
 * ```ts
 * const prefix = superchunkPrefix(settings, meta, [1104, 300000], 524288);
 * ```
 */
export function superchunkPrefix(settings: PendingSuperchunkSettings, meta: Uint8Array, offsets: readonly number[], lastNbytes: number, into?: Uint8Array): Uint8Array {
  const out = into ?? new Uint8Array(BLPK_V2_HEADER_SIZE + meta.length + ENTRY * settings.capacity);
  writeSuperchunkHeader({
    hasOffsets: true, hasMetadata: true, checksumId: settings.checksumId, typesize: settings.typesize, chunkSize: settings.chunkSize, lastChunk: lastNbytes, nchunks: offsets.length,
    metaSize: meta.length,
  }, out);
  out.set(meta, BLPK_V2_HEADER_SIZE);
  out.set(writeOffsets(offsets, settings.capacity), BLPK_V2_HEADER_SIZE + meta.length);
  return out;
}
/** The image's first allocation is at most this; it doubles when a file needs more. */
const FIRST_IMAGE_LIMIT = 64 * 1024 * 1024;

/**
 * What a new superchunk file is made with: its place in the carray and its layout settings.
 *
 * @example
 * ```ts
 * const settings: PendingSuperchunkSettings = { capacity: 128, firstChunk: 128, checksumId: 2, typesize: 8, chunkSize: 524288, sparePercent: 10 };
 * ```
 */
export interface PendingSuperchunkSettings {
  /** Offsets table entries (`S`). */
  capacity: number;
  /** Global index of local chunk 0 (checksums are bound to it, §6). */
  firstChunk: number;
  /** Checksum id of the file. */
  checksumId: number;
  /** Blosc typesize recorded in the header. */
  typesize: number;
  /** Uncompressed bytes of a full chunk. */
  chunkSize: number;
  /** Spare room per slot, percent of cbytes. */
  sparePercent: number;
}

/**
 * The chunks of a superchunk file not stored yet. Chunks given in index order (and a new image of
 * the last one) are laid out in their final slots at once; a chunk given out of order, or a new
 * image of an earlier one, turns the file to a list of copies built with `buildSuperchunk` at the
 * end. Either way {@link PendingSuperchunk.build} gives the bytes `buildSuperchunk` gives for the
 * same chunks (a property test says so).
 *
 * @example
 * ```ts
 * const file = new PendingSuperchunk(settings);
 * file.set(0, chunk);
 * file.get(0); // the chunk's bytes (a view: copy it to keep it)
 * ```
 */
export class PendingSuperchunk {
  readonly #settings: PendingSuperchunkSettings;
  readonly #meta: Uint8Array;
  /** Where slot 0 starts: header, metadata and the whole offsets table come first. */
  readonly #dataStart: number;
  readonly #checksumSize: number;
  #image: Uint8Array = new Uint8Array(0);
  #spare: Uint8Array | undefined;
  /** Chunks placed in `#image`, in index order: their slot offsets and cbytes. */
  readonly #offsets: number[] = [];
  readonly #cbytes: number[] = [];
  /** Chunks out of order (copies), once the image could not take them; `undefined` while in order. */
  #copies: Map<number, Uint8Array> | undefined;
  readonly #nbytes = new Map<number, number>();

  /**
   * A file laid out with `settings`; `spare`, an image another pending file gave up
   * ({@link PendingSuperchunk.releaseImage}), is used instead of a new one when large enough.
   */
  constructor(settings: PendingSuperchunkSettings, spare?: Uint8Array) {
    this.#settings = settings;
    this.#spare = spare;
    ({ meta: this.#meta, dataStart: this.#dataStart, checksumSize: this.#checksumSize } = newSuperchunkLayout(settings));
  }

  /** How many chunks the file holds. */
  get size(): number {
    return this.#copies?.size ?? this.#offsets.length;
  }

  /** The uncompressed size of chunk `i`, if present. */
  nbytesOf(i: number): number | undefined {
    return this.#nbytes.get(i);
  }

  /** Chunk `i`'s bytes as a view (valid until the next change), or `undefined`. */
  get(i: number): Uint8Array | undefined {
    if (this.#copies !== undefined) return this.#copies.get(i);
    const at = this.#offsets[i];
    return at === undefined ? undefined : this.#image.subarray(at, at + this.#cbytes[i]!);
  }

  /** Sets chunk `i` (a compressed Blosc chunk, read at once: the caller may reuse its memory afterwards). */
  set(i: number, chunk: Uint8Array): void {
    const { cbytes, nbytes } = readChunkHeader(chunk);
    const placed = this.#offsets.length;
    if (this.#copies === undefined && (i === placed || i === placed - 1)) {
      if (i === placed - 1) {
        this.#offsets.pop();
        this.#cbytes.pop();
      }
      this.#place(i, chunk.subarray(0, cbytes));
    } else {
      this.#toCopies().set(i, chunk.slice(0, cbytes));
    }
    this.#nbytes.set(i, nbytes);
  }

  /** Forgets chunks `from` and later. */
  dropFrom(from: number): void {
    for (const i of [...this.#nbytes.keys()]) if (i >= from) this.#nbytes.delete(i);
    if (this.#copies !== undefined) {
      for (const i of [...this.#copies.keys()]) if (i >= from) this.#copies.delete(i);
      return;
    }
    this.#offsets.length = Math.min(this.#offsets.length, from);
    this.#cbytes.length = this.#offsets.length;
  }

  /**
   * The file with its first `count` chunks, as `buildSuperchunk` lays it out; a view of the image
   * when the chunks were placed in order (valid until the next change).
   *
   * @throws Error when one of those chunks was never set (a writer's bug).
   */
  build(count: number): Uint8Array {
    const s = this.#settings;
    const chunks = Array.from({ length: count }, (_, i) => {
      const chunk = this.get(i);
      if (chunk === undefined) throw new Error(`internal: chunk ${s.firstChunk + i} of a new superchunk was never written`);
      return chunk;
    });
    // In order, with the chunk-size rule kept (all but the last hold chunkSize bytes): the image is
    // the file once its first bytes are written. Otherwise buildSuperchunk lays it out (and words
    // a broken rule).
    const lastNbytes = this.#nbytes.get(count - 1) ?? 0;
    const inPlace = this.#copies === undefined && count > 0 && lastNbytes <= s.chunkSize && chunks.every((_, i) => i === count - 1 || this.#nbytes.get(i) === s.chunkSize);
    if (!inPlace) {
      return buildSuperchunk({
        chunks, checksumId: s.checksumId, typesize: s.typesize, chunkSize: s.chunkSize, metadata: serializeSuperchunkMeta({ capacity: s.capacity, firstChunk: s.firstChunk }),
        capacity: s.capacity, sparePercent: s.sparePercent, firstChunk: s.firstChunk,
      });
    }
    const image = this.#image.subarray(0, this.#slotEnd(count - 1));
    superchunkPrefix(s, this.#meta, this.#offsets.slice(0, count), lastNbytes, image);
    return image;
  }

  /** Lays out chunk `i` (the next in order) in its slot: chunk, bound checksum, zeroed spare room. */
  #place(i: number, chunk: Uint8Array): void {
    const s = this.#settings;
    const at = i === 0 ? this.#dataStart : this.#slotEnd(i - 1);
    const slot = chunk.length + this.#checksumSize + spareRoom(chunk.length, s.chunkSize, s.sparePercent);
    this.#reserve(at + slot);
    const image = this.#image;
    image.set(chunk, at);
    image.set(slotChecksum(s, chunk, i), at + chunk.length);
    // A new image of the last chunk may be shorter than the one it replaces: spare room is zeros.
    image.fill(0, at + chunk.length + this.#checksumSize, at + slot);
    this.#offsets.push(at);
    this.#cbytes.push(chunk.length);
  }

  /**
   * Gives up the image (for another pending file of the same writer, once the bytes `build`
   * returned are no longer needed); this file then holds nothing.
   *
   * @example
   * ```ts
   * await store.put(key, file.build(n));
   * const next = new PendingSuperchunk(settings, file.releaseImage());
   * ```
   */
  releaseImage(): Uint8Array | undefined {
    const image = this.#image;
    this.#image = new Uint8Array(0);
    this.#offsets.length = 0;
    this.#cbytes.length = 0;
    this.#nbytes.clear();
    this.#copies = undefined;
    return image.length > 0 ? image : undefined;
  }

  /** The end of slot `i` (placed). */
  #slotEnd(i: number): number {
    const cbytes = this.#cbytes[i]!;
    return this.#offsets[i]! + cbytes + this.#checksumSize + spareRoom(cbytes, this.#settings.chunkSize, this.#settings.sparePercent);
  }

  /** Makes the image hold at least `bytes` bytes, keeping what it holds. */
  #reserve(bytes: number): void {
    if (this.#image.length >= bytes) return;
    const s = this.#settings;
    // A whole file of full, incompressible chunks, but no more at first than FIRST_IMAGE_LIMIT:
    // pages are touched only as slots are written.
    const whole = this.#dataStart + s.capacity * (s.chunkSize + 16 + this.#checksumSize + spareRoom(s.chunkSize + 16, s.chunkSize, s.sparePercent));
    let size = this.#image.length === 0 ? Math.min(whole, FIRST_IMAGE_LIMIT) : 2 * this.#image.length;
    while (size < bytes) size *= 2;
    const spare = this.#spare;
    this.#spare = undefined;
    // Whatever a spare image held before is overwritten: build() writes every byte up to the
    // last slot's end (header, metadata, offsets, chunks, checksums, zeroed spare room).
    const grown = spare !== undefined && spare.length >= size ? spare : new Uint8Array(size);
    if (this.#offsets.length > 0) grown.set(this.#image.subarray(0, this.#slotEnd(this.#offsets.length - 1)));
    this.#image = grown;
  }

  /** Switches to copies (a chunk out of order): every placed chunk is copied out of the image. */
  #toCopies(): Map<number, Uint8Array> {
    if (this.#copies !== undefined) return this.#copies;
    const copies = new Map<number, Uint8Array>();
    for (let i = 0; i < this.#offsets.length; i++) copies.set(i, this.get(i)!.slice());
    this.#copies = copies;
    this.#image = new Uint8Array(0);
    this.#offsets.length = 0;
    this.#cbytes.length = 0;
    return copies;
  }
}
