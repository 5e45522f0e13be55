/**
 * {@link StreamedSuperchunk}: a new superchunk file that a format-2 writer writes as its chunks
 * come, on a store that takes written bytes at once and writes them in place (
 * `writeAt`, `positionalWritesAtOnce`: a `FileSystemStore` with `io: "sync"`, whose write thread
 * then writes the file while the writer compresses the next chunk). The file is created at its final name with room for its
 * header, metadata and offsets table; each chunk goes into its slot at the end (chunk, bound
 * checksum, zeroed spare room) as it comes; the first bytes are written last, before the commit.
 * Until the commit (`meta/shape`) the file lies beyond the required superchunks, which readers
 * ignore and the next writer deletes (spec/v2.md §13.1, §13.2 step 4).
 *
 * The bytes written are the bytes `buildSuperchunk` gives for the same chunks, as a
 * {@link PendingSuperchunk} would have put them whole: only chunks given in index order, each but
 * the last full, are streamed; anything else turns the file back into a pending one.
 *
 * @example
 * ```ts
 * const file = new StreamedSuperchunk(store, "data/__1__.bin", settings);
 * const written = file.append(chunk0); // the store took the bytes; `written` settles once stored
 * const prefix = file.finish(1);       // header, metadata and offsets, written at offset 0
 * await Promise.all([written, file.settled()]);
 * ```
 * @module
 */
import { checksumKind, readChunkHeader, spareRoom, verifyChunkChecksum } from "@fmt/header";
import type { WritableStore } from "@fmt/fs-adapters";
import { newSuperchunkLayout, slotBinding, slotChecksum, superchunkPrefix } from "./pending-superchunk.js";
import type { PendingSuperchunkSettings } from "./pending-superchunk.js";

/** Slots are written in place, to a file no reader follows yet, flushed by the store's `sync` before the commit. */
const IN_PLACE = { durable: false, unreferenced: true } as const;

/** A store that computes the Adler-32 of what it writes. */
type SummingStore = WritableStore & Required<Pick<WritableStore, "writeAtWithAdler32">>;

/**
 * Where a streamed chunk lies in its file.
 *
 * @example
 * ```ts
 * const { offset, cbytes } = file.slot(3)!;
 * ```
 */
export interface StreamedSlot {
  /** Offset of the chunk in the file. */
  offset: number;
  /** Compressed bytes of the chunk. */
  cbytes: number;
  /** Uncompressed bytes of the chunk. */
  nbytes: number;
  /**
   * The chunk's bound checksum as written after it (empty with checksum "none"); `undefined`
   * while the store computes it ({@link WritableStore.writeAtWithAdler32}), until the slot's write
   * settled.
   */
  checksum: Uint8Array | undefined;
}

/**
 * A new superchunk file written chunk by chunk (see the module comment).
 *
 * @example
 * ```ts
 * if (file.accepts(i, chunk)) written = file.append(chunk);
 * ```
 */
export class StreamedSuperchunk {
  readonly #store: WritableStore;
  readonly key: string;
  readonly settings: PendingSuperchunkSettings;
  readonly #meta: Uint8Array;
  readonly #dataStart: number;
  readonly #checksumSize: number;
  readonly #slots: StreamedSlot[] = [];
  /** The file's length so far (0: not created yet). */
  #end = 0;
  /** The stores' promises of the bytes written so far (never forgotten: a failure stays). */
  readonly #writes: Promise<void>[] = [];
  /**
   * Set once a write failed: the error, and the first slot whose bytes may be missing (the
   * capacity when only the first bytes failed). The file then takes no more chunks, and the
   * writer rebuilds it whole from the slots below.
   */
  #failure: { error: unknown; slot: number } | undefined;
  /**
   * Set by the writer once the file's first bytes are written: settles (never rejects) when the
   * file is done, or failed.
   */
  finishing: Promise<void> | undefined;
  /** Checksum and spare room of a slot, reused (the store takes the bytes at once): zeros after the checksum. */
  #tail = new Uint8Array(0);
  /**
   * The store, when it computes each slot's Adler-32 itself where it writes (the checksum is
   * Adler-32 and the store has `writeAtWithAdler32`); `undefined` when this writer computes it.
   */
  readonly #summingStore: SummingStore | undefined;

  constructor(store: WritableStore, key: string, settings: PendingSuperchunkSettings) {
    this.#store = store;
    this.key = key;
    this.settings = settings;
    ({ meta: this.#meta, dataStart: this.#dataStart, checksumSize: this.#checksumSize } = newSuperchunkLayout(settings));
    this.#summingStore = checksumKind(settings.checksumId).name === "adler32" && store.writeAtWithAdler32 !== undefined ? (store as SummingStore) : undefined;
  }

  /** How many chunks the file holds. */
  get size(): number {
    return this.#slots.length;
  }

  /** The file's length so far. */
  get length(): number {
    return this.#end;
  }

  /** Where chunk `i` lies, if written. */
  slot(i: number): StreamedSlot | undefined {
    return this.#slots[i];
  }

  /** Whether a write failed (known once its promise settled): the file takes no more chunks. */
  get failed(): boolean {
    return this.#failure !== undefined;
  }

  /** The slots written for sure once every write settled: all of them, or those below the first that failed. */
  get intactSlots(): number {
    return Math.min(this.#slots.length, this.#failure?.slot ?? Infinity);
  }

  /**
   * Whether `chunk` can be written as local chunk `i` now: the next in index order, after a full
   * chunk (the chunk-size rule: all but the last hold `chunkSize` bytes), no larger than one, and
   * no write failed.
   */
  accepts(i: number, chunk: Uint8Array): boolean {
    const last = this.#slots[this.#slots.length - 1];
    return this.#failure === undefined && i === this.#slots.length && i < this.settings.capacity && (last === undefined || last.nbytes === this.settings.chunkSize) && readChunkHeader(chunk).nbytes <= this.settings.chunkSize;
  }

  /**
   * Writes `chunk` (a compressed Blosc chunk {@link StreamedSuperchunk.accepts} accepted) into
   * the next slot. The store takes the bytes before this returns: the caller may reuse the
   * chunk's memory at once. The promise settles once the store has written them.
   */
  append(chunk: Uint8Array): Promise<void> {
    const s = this.settings;
    const { cbytes, nbytes } = readChunkHeader(chunk);
    const i = this.#slots.length;
    const written: Promise<void>[] = [];
    if (this.#end === 0) {
      written.push(this.#store.put(this.key, new Uint8Array(this.#dataStart), IN_PLACE));
      this.#end = this.#dataStart;
    }
    const at = this.#end;
    const spare = spareRoom(cbytes, s.chunkSize, s.sparePercent);
    const tailLength = this.#checksumSize + spare;
    const summing = this.#summingStore;
    let slot: StreamedSlot;
    if (summing !== undefined) {
      // The store computes the Adler-32 where it writes (the file store's write thread), puts the
      // bound value after the chunk and the spare room after it: this thread only hands the chunk
      // over. The slot's checksum is known once the write is done, which every reader of the slot
      // waits for (settled()). It is then the sum of the bytes the store took (its copy), no
      // longer of the chunk as this thread held it: a store that wrote other bytes than it was
      // given would write their sum too.
      const summed: StreamedSlot = { offset: at, cbytes, nbytes, checksum: undefined };
      const g = slotBinding(s, i)!;
      const stored = summing.writeAtWithAdler32(this.key, at, chunk.subarray(0, cbytes), g % 2 ** 32, spare, IN_PLACE).then((sum) => {
        summed.checksum = new Uint8Array([sum & 0xff, (sum >>> 8) & 0xff, (sum >>> 16) & 0xff, sum >>> 24]);
      });
      written.push(stored);
      slot = summed;
    } else {
      if (this.#tail.length < tailLength) this.#tail = new Uint8Array(Math.max(tailLength, 2 * this.#tail.length));
      const tail = this.#tail.subarray(0, tailLength);
      const checksum = slotChecksum(s, chunk.subarray(0, cbytes), i);
      tail.set(checksum);
      written.push(this.#write(at, chunk.subarray(0, cbytes)));
      // Without a checksum or spare room (checksum "none", spare 0) there is nothing after the chunk.
      if (tailLength > 0) written.push(this.#write(at + cbytes, tail));
      // The reused tail is zeros again after its checksum (the store copied it already).
      tail.fill(0, 0, this.#checksumSize);
      slot = { offset: at, cbytes, nbytes, checksum };
    }
    this.#slots.push(slot);
    this.#end = at + cbytes + tailLength;
    return this.#track(Promise.all(written).then(() => undefined), i);
  }

  /**
   * `bytes`, read back from slot `i` (chunk `firstChunk + i` of the array), once they match the checksum
   * computed when the chunk was written: the writer decodes them, or rebuilds the file whole from
   * them with checksums of its own, so bytes the store answers wrongly would otherwise pass as
   * the chunk. Nothing is checked with checksum "none". When the store computed the checksum
   * (`writeAtWithAdler32`), it is the sum of the bytes the store took: this catches bytes changed
   * on the store or on their way back, not a store that wrote other bytes than it was given.
   * Called once the slot's write settled ({@link StreamedSuperchunk.settled}).
   *
   * @throws FormatError CHECKSUM_MISMATCH, field `chunk[<index>].checksum`.
   */
  checked(i: number, bytes: Uint8Array): Uint8Array {
    const stored = this.#slots[i]!.checksum;
    if (stored === undefined) throw new Error(`internal: slot ${i} of ${this.key} read back before its write settled`);
    if (stored.length > 0) verifyChunkChecksum(this.settings.checksumId, bytes, stored, { path: this.key, index: this.settings.firstChunk + i, bind: slotBinding(this.settings, i) });
    return bytes;
  }

  /**
   * Writes the file's first bytes (header, metadata, offsets table) for its first `count` chunks
   * (every one written so far) and returns them: what `parseIndex` reads. The store takes them at
   * once; {@link StreamedSuperchunk.settled} waits for every write.
   */
  finish(count: number): Uint8Array {
    if (count !== this.#slots.length || count === 0) throw new Error(`internal: a streamed superchunk of ${this.#slots.length} chunks finished with ${count}`);
    const s = this.settings;
    const prefix = superchunkPrefix(s, this.#meta, this.#slots.map((slot) => slot.offset), this.#slots[count - 1]!.nbytes);
    // Its failure is reported by settled(), which the writer awaits before it commits.
    this.#track(this.#write(0, prefix), s.capacity).catch(() => undefined);
    return prefix;
  }

  /** Resolves once every write made so far is stored; rejects with the first failure, every time. */
  async settled(): Promise<void> {
    await Promise.all(this.#writes);
    if (this.#failure !== undefined) throw this.#failure.error;
  }

  /** Keeps `write` (the bytes of slot `slot`, or the first bytes) for {@link StreamedSuperchunk.settled}, noting a failure. */
  #track(write: Promise<void>, slot: number): Promise<void> {
    const kept = write.catch((error: unknown) => {
      // The lowest failed slot's error: the root cause (a missing slot makes later writes past
      // the end of the file fail too).
      if (this.#failure === undefined || slot < this.#failure.slot) this.#failure = { error, slot };
      throw error;
    });
    // Kept for settled(), which reports the failure itself.
    this.#writes.push(kept.catch(() => undefined));
    return kept;
  }

  #write(offset: number, bytes: Uint8Array): Promise<void> {
    return this.#store.writeAt!(this.key, offset, bytes, IN_PLACE);
  }
}
