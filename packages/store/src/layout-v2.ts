/**
 * Format version 2 below the layout seam (spec/v2.md): chunks in superchunk files
 * `data/__s__.bin` behind an offsets table, checksums bound to the chunk's index, `meta/shape` as
 * the commit. Readers keep one checked {@link SuperchunkIndex} per file and coalesce neighbouring
 * slots into one range request; writers append slots, rewrite a chunk in place when it fits its
 * slot (through the journal when readers can see it) and relocate it when it does not, create new
 * superchunks whole, and write headers before the commit (§13).
 *
 * Positional writes use the store's `writeAt`; on stores without it (object stores) the writer
 * keeps the image of each file it changes and replaces the whole object, which is atomic there.
 * The writes that change one file (bytes, an offsets entry, the header, a slot) are in
 * superchunk-file.ts; this module decides which to make and when.
 *
 * @example
 * ```ts
 * const layout = new LayoutV2(store, geometry, settings, undefined);
 * for await (const fetch of layout.plan([0, 1, 2])) for (const c of await fetch.fetch()) console.log(c.index);
 * ```
 * @module
 */
import { FormatError } from "@fmt/errors";
import { buildSuperchunk, checksumKind, computeChunkChecksum, crc32Offload, journalChunkFileName, readChunkHeader, superchunkFileName } from "@fmt/header";
import type { ReadableStore, WritableStore } from "@fmt/fs-adapters";
import { encodeMetadata, parseJournalV2, serializeJournalV2, serializeShapeV2, serializeSuperchunkMeta } from "@fmt/meta";
import { joinKey, readText, withPath } from "./internal.js";
import { PendingSuperchunk } from "./pending-superchunk.js";
import { StreamedSuperchunk } from "./streamed-superchunk.js";
import type { ChunkFetch, ChunkLayoutWriter, ChunkWriteOptions, InputBuffers, LayoutGeometry, StoredChunk } from "./layout.js";
import { JOURNAL_FILE } from "./layout-v1.js";
import { fits, overwrite, putImage, relocate, setEntry, slotBytes, write, writeHeader } from "./superchunk-file.js";
import type { WriterFile } from "./superchunk-file.js";
import { chunkFromSlot, chunkOffset, loadSuperchunkIndex, offloadedCrc32, parseIndex, slotReadLength } from "./superchunk-index.js";
import type { IndexExpectation, SuperchunkIndex } from "./superchunk-index.js";

/**
 * A coalesced read stops growing at this many bytes or chunks. Runs are read into lent buffers
 * (LentBuffers) that serve later runs of the same pass once decoded: with 8 MiB runs a scan
 * of a 25 MB column had all its runs in flight at once and read each pass into fresh memory
 * (page faults, then collection); with 2 MiB four buffers cycle through the runs. `where` over 5 M rows
 * 37.7 → 29.0 ms, read-all unchanged (tools/bench/README.md, 2026-11-28 morning).
 */
const MAX_GROUP_BYTES = 2 * 1024 * 1024;
/**
 * The bound on a store that keeps many requests in flight (a remote one): each request's fixed
 * cost is larger, and runs × concurrency keeps the bytes in flight near 64 MiB.
 */
const MAX_GROUP_BYTES_CONCURRENT = 4 * 1024 * 1024;
const MAX_GROUP_CHUNKS = 64;

/**
 * The format-2 settings of a carray (from its `meta/storage`).
 *
 * @example
 * ```ts
 * const settings: V2Settings = { superchunksize: 128, checksumId: 1, spare: 10, typesize: 8, verify: true };
 * ```
 */
export interface V2Settings {
  /** `S`: chunks per superchunk. */
  superchunksize: number;
  /** Checksum id for superchunks created from now on. */
  checksumId: number;
  /** Spare room percentage for new slots. */
  spare: number;
  /** Blosc typesize recorded in new headers. */
  typesize: number;
  /** Verify checksums when reading (the caller may opt out). */
  verify: boolean;
}
/**
 * The format-2 layout of one carray.
 *
 * @example
 * ```ts
 * const layout = new LayoutV2(store, { path: "", chunklen: 2, atomSize: 4, length: () => 3 }, settings, undefined);
 * ```
 */
export class LayoutV2 implements ChunkLayoutWriter {
  readonly formatVersion = 2 as const;
  readonly #store: ReadableStore;
  readonly #maxGroupBytes: number;
  readonly #geometry: LayoutGeometry;
  readonly #settings: V2Settings;
  /** Global indices listed by an unfinished `.journal`: read from their `.next` file when it exists. */
  readonly #journal: ReadonlyMap<number, [number, number]>;
  readonly #indexes = new Map<number, Promise<SuperchunkIndex>>();
  /** Present once the layout writes: the files as the writer keeps them. */
  #files: Map<number, WriterFile> | undefined;
  #queue: Promise<unknown> = Promise.resolve();
  /** The image of the last superchunk this writer stored whole, for its next new one. */
  #spareImage: Uint8Array | undefined;
  /** Write-side operations queued or running in {@link LayoutV2.#serial}. */
  #running = 0;
  /**
   * Superchunks numbered from here on are not on the store, unless this writer created them (then
   * they are in `#files`): what recovery leaves (§13.1, no superchunk beyond the last required
   * one), kept as files are dropped. `undefined` before recovery.
   */
  #absentFrom: number | undefined;

  constructor(store: ReadableStore, geometry: LayoutGeometry, settings: V2Settings, journal: readonly [number, number][] | undefined) {
    this.#store = store;
    this.#maxGroupBytes = store.concurrency !== undefined && store.concurrency > 4 ? MAX_GROUP_BYTES_CONCURRENT : MAX_GROUP_BYTES;
    this.#geometry = geometry;
    this.#settings = settings;
    this.#journal = new Map((journal ?? []).map(([s, i]) => [(s - 1) * settings.superchunksize + i, [s, i]]));
  }

  get readsInto(): boolean {
    return this.#store.getInto !== undefined;
  }

  /**
   * Runs of slots may be read into the decoder's memory unless their CRC-32s go to a checksum
   * thread that takes only transfers (offloadedCrc32): into shared memory when that thread reads
   * it in place, into ordinary WebAssembly memory when checksums are computed here (none to check,
   * another kind, or no such thread).
   */
  get residentInputs(): { readonly shared: boolean; readonly slotBytes: number } | undefined {
    const offload = this.#settings.verify && checksumKind(this.#settings.checksumId).name === "crc32" ? crc32Offload() : undefined;
    if (offload === undefined) return { shared: false, slotBytes: this.#maxGroupBytes };
    return offload.sharesMemory === true ? { shared: true, slotBytes: this.#maxGroupBytes } : undefined;
  }

  get store(): WritableStore {
    return this.#store as WritableStore;
  }

  /**
   * On a store that takes written bytes at once and writes in place (`writeAt` and
   * `positionalWritesAtOnce`), new superchunks are written as their chunks come
   * ({@link StreamedSuperchunk}), and
   * `writeChunk` takes a chunk's bytes before it returns: written into its slot at once when
   * nothing else is queued, copied otherwise. Elsewhere chunks are placed after awaits.
   */
  get writesAtOnce(): boolean {
    return this.#streams;
  }

  get #streams(): boolean {
    const store = this.#store as Partial<WritableStore>;
    return store.positionalWritesAtOnce === true && store.writeAt !== undefined;
  }

  /** The settings (S, checksum, spare) the layout writes with. */
  get settings(): Readonly<V2Settings> {
    return this.#settings;
  }

  keyOf(g: number): string {
    return this.#fileKey(Math.floor(g / this.#settings.superchunksize) + 1);
  }

  #fileKey(s: number): string {
    return joinKey(this.#geometry.path, superchunkFileName(s));
  }

  /** What §10.4 expects of file `s` under the committed length. */
  #expectation(s: number): IndexExpectation {
    const S = this.#settings.superchunksize;
    const n = Math.ceil(this.#geometry.length() / this.#geometry.chunklen);
    return { s, required: Math.max(0, Math.min(S, n - (s - 1) * S)), chunklen: this.#geometry.chunklen, atomsize: this.#geometry.atomSize, superchunksize: S };
  }

  forget(): void {
    this.#indexes.clear();
  }

  #index(s: number, fresh = false): Promise<SuperchunkIndex> {
    let pending = fresh ? undefined : this.#indexes.get(s);
    if (pending === undefined) {
      pending = loadSuperchunkIndex(this.#store, this.#fileKey(s), this.#expectation(s));
      pending.catch(() => this.#indexes.delete(s));
      this.#indexes.set(s, pending);
    }
    return pending;
  }

  async read(g: number, buffer?: Uint8Array): Promise<StoredChunk> {
    if (this.#files !== undefined) return this.#serial(() => this.#readWriting(g));
    const S = this.#settings.superchunksize;
    const s = Math.floor(g / S) + 1;
    const i = g % S;
    const index = await this.#index(s);
    const staged = this.#journal.has(g) ? await this.#readStaged(index, g) : undefined;
    if (staged !== undefined) return staged;
    try {
      return await this.#readIndexed(index, i, g, buffer);
    } catch (error) {
      // A writer may have relocated or compacted since the index was read (§13.5): read it again once.
      if (!(error instanceof FormatError) || error.code === "MISSING_FILE") throw error;
      const again = await this.#index(s, true);
      return this.#readIndexed(again, i, g, buffer);
    }
  }

  get rawRanges(): ((g: number, windows: readonly { offset: number; length: number }[]) => Promise<Uint8Array[] | undefined>) | undefined {
    if (this.#files !== undefined || !this.#settings.verify || checksumKind(this.#settings.checksumId).size === 0) return undefined;
    return (g, windows) => this.#rawRanges(g, windows);
  }

  async #rawRanges(g: number, windows: readonly { offset: number; length: number }[]): Promise<Uint8Array[] | undefined> {
    if (this.#files !== undefined || this.#journal.has(g)) return undefined;
    const S = this.#settings.superchunksize;
    const index = await this.#index(Math.floor(g / S) + 1);
    const at = chunkOffset(index, g % S);
    const store = this.#store;
    if (store.getRanges === undefined) return Promise.all(windows.map((w) => this.#range(index.key, at + w.offset, w.length)));
    const got = await store.getRanges(index.key, windows.map((w) => ({ offset: at + w.offset, length: w.length })));
    if (got === undefined) throw new FormatError("MISSING_FILE", "superchunk is missing", { path: index.key, field: "file" });
    return got;
  }

  async #readIndexed(index: SuperchunkIndex, i: number, g: number, buffer: Uint8Array | undefined): Promise<StoredChunk> {
    const required = this.#expectation(index.s).required;
    const at = chunkOffset(index, i);
    const slot = await this.#range(index.key, at, slotReadLength(index, i, required), buffer);
    return { index: g, key: index.key, chunk: chunkFromSlot(index, i, slot, this.#settings.verify) };
  }

  async #readStaged(index: SuperchunkIndex, g: number): Promise<StoredChunk | undefined> {
    const [s, i] = this.#journal.get(g)!;
    const key = joinKey(this.#geometry.path, journalChunkFileName(s, i));
    const file = await this.#store.get(key);
    if (file === undefined) return undefined;
    return { index: g, key, chunk: chunkFromSlot(index, i, file, this.#settings.verify, key) };
  }

  /** Bytes `[offset, offset + length)` of superchunk `key`, read into `buffer` when the store can. */
  async #range(key: string, offset: number, length: number, buffer?: Uint8Array): Promise<Uint8Array> {
    const store = this.#store;
    let bytes: Uint8Array | undefined;
    if (buffer !== undefined && store.getInto !== undefined) bytes = await store.getInto(key, buffer, { offset, length });
    else if (store.getRange !== undefined) bytes = await store.getRange(key, { offset, length });
    else bytes = (await store.get(key))?.subarray(offset, offset + length);
    if (bytes === undefined) throw new FormatError("MISSING_FILE", "superchunk is missing", { path: key, field: "file" });
    return bytes;
  }

  async *plan(indices: readonly number[], fetchesAhead = 4, inputs?: InputBuffers): AsyncGenerator<ChunkFetch, void, undefined> {
    const S = this.#settings.superchunksize;
    // The indexes of the next superchunks load while this one's runs are fetched (half as many
    // as the reader's fetches ahead): planning a run needs its superchunk's index, and loading
    // them one by one would cap a remote read at one request in flight when superchunks are small.
    const lookahead = Math.max(1, Math.ceil(fetchesAhead / 2));
    const ahead: number[] = []; // superchunks whose index load was started, in order of first use
    let warmed = 0;
    const warm = (from: number): void => {
      const current = Math.floor(indices[from]! / S) + 1;
      while (ahead.length > 0 && ahead[0]! < current) ahead.shift();
      for (; warmed < indices.length; warmed++) {
        const s = Math.floor(indices[warmed]! / S) + 1;
        if (ahead.includes(s) || s < current) continue;
        if (ahead.length >= lookahead) break;
        ahead.push(s);
        if (this.#files === undefined) void this.#index(s).catch(() => undefined);
      }
    };
    for (let k = 0; k < indices.length; ) {
      warm(k);
      const g = indices[k]!;
      const single: ChunkFetch = { indices: [g], fetch: async () => [await this.read(g)] };
      if (this.#files !== undefined || this.#journal.has(g)) {
        yield single;
        k++;
        continue;
      }
      const s = Math.floor(g / S) + 1;
      let group: { indices: number[]; start: number; end: number; index: SuperchunkIndex } | undefined;
      try {
        const index = await this.#index(s);
        const required = this.#expectation(s).required;
        const start = chunkOffset(index, g % S);
        let end = start + slotReadLength(index, g % S, required);
        const members = [g];
        while (k + members.length < indices.length && members.length < MAX_GROUP_CHUNKS) {
          const next = indices[k + members.length]!;
          if (next !== g + members.length || Math.floor(next / S) + 1 !== s || this.#journal.has(next) || next % S >= required) break;
          const at = chunkOffset(index, next % S);
          const length = slotReadLength(index, next % S, required);
          if (at !== end || at + length - start > this.#maxGroupBytes) break;
          members.push(next);
          end = at + length;
        }
        group = { indices: members, start, end, index };
      } catch (error) {
        if (!(error instanceof FormatError)) throw error;
      }
      if (group === undefined) {
        yield single; // the error shows (or the retry succeeds) when the chunk is read
        k++;
        continue;
      }
      const { start, end, index } = group;
      const members = group.indices;
      yield {
        indices: members,
        fetch: async () => {
          const lent = inputs?.take(end - start);
          // The lent memory while the run may lie in it, under its current identity.
          let held = lent;
          try {
            let bytes = await this.#range(index.key, start, end - start, lent);
            if (lent !== undefined && bytes.buffer !== lent.buffer) {
              inputs?.giveBack?.(lent); // the store answered with memory of its own
              held = undefined;
            }
            let sums: (number | undefined)[] | undefined;
            // A run read into a lent buffer has its CRC-32s computed on another thread, if one is set up.
            if (this.#settings.verify && held !== undefined) {
              const answer = await offloadedCrc32(index, members.map((m) => m % S), start, bytes);
              if (answer === "lost") {
                held = undefined; // gone with the other thread
                bytes = await this.#range(index.key, start, end - start);
              } else if (answer !== undefined) {
                inputs?.replace?.(held.buffer, answer.bytes.buffer);
                ({ bytes, sums } = answer);
                held = bytes;
              }
            }
            return members.map((m, k) => {
              const at = chunkOffset(index, m % S) - start;
              return { index: m, key: index.key, chunk: chunkFromSlot(index, m % S, bytes.subarray(at), this.#settings.verify, index.key, sums?.[k]) };
            });
          } catch (error) {
            // No chunk of the run is returned from the lent memory now.
            if (held !== undefined && held.buffer.byteLength > 0) inputs?.giveBack?.(held);
            if (!(error instanceof FormatError)) throw error;
            return Promise.all(members.map((m) => this.read(m))); // one by one, each retried once
          }
        },
      };
      k += members.length;
    }
  }

  // ---- writing ------------------------------------------------------------------------------

  /** Runs write-side work one operation at a time (slots, entries and headers of a file change together). */
  #serial<T>(work: () => Promise<T>): Promise<T> {
    this.#running++;
    const run = this.#queue.then(work, work);
    const done = (): void => {
      this.#running--;
    };
    this.#queue = run.then(done, done);
    return run;
  }

  /** The writer's view of file `s`, loaded (or started empty) on first use. */
  async #file(s: number): Promise<WriterFile> {
    this.#files ??= new Map();
    await this.#files.get(s)?.streamed?.finishing;
    const known = this.#files.get(s) ?? this.#absentFile(s);
    if (known !== undefined) return known;
    const store = this.store;
    const key = this.#fileKey(s);
    const expected = this.#expectation(s);
    let file: WriterFile;
    const size = store.writeAt === undefined ? undefined : await (store.byteLength?.(key) ?? store.get(key).then((b) => b?.length));
    if (store.writeAt !== undefined && size !== undefined) {
      const index = await loadSuperchunkIndex(store, key, expected);
      file = { ...index, live: index.header.nchunks, diskLive: index.header.nchunks, fileLength: size, nbytes: new Map() };
    } else {
      const image = store.writeAt === undefined ? await store.get(key) : undefined;
      if (image !== undefined) {
        const index = parseIndex(image, key, expected);
        file = { ...index, live: index.header.nchunks, diskLive: index.header.nchunks, fileLength: image.length, image, nbytes: new Map() };
      } else {
        file = this.#emptyFile(s);
      }
    }
    this.#files.set(s, file);
    return file;
  }

  #takeSpareImage(): Uint8Array | undefined {
    const spare = this.#spareImage;
    this.#spareImage = undefined;
    return spare;
  }

  #emptyFile(s: number): WriterFile {
    const S = this.#settings.superchunksize;
    const key = this.#fileKey(s);
    const settings = {
      capacity: S, firstChunk: (s - 1) * S, checksumId: this.#settings.checksumId, typesize: this.#settings.typesize,
      chunkSize: this.#geometry.chunklen * this.#geometry.atomSize, sparePercent: this.#settings.spare,
    };
    return {
      s, key, firstChunk: (s - 1) * S, capacity: S, dataStart: 0, offsets: new Array<number>(S).fill(-1), metadataText: "",
      header: { version: 2, hasOffsets: true, hasMetadata: true, checksumId: this.#settings.checksumId, typesize: this.#settings.typesize, chunkSize: this.#geometry.chunklen * this.#geometry.atomSize, lastChunk: 0, nchunks: 0, metaSize: 0 },
      ...(this.#streams ? { streamed: new StreamedSuperchunk(this.store, key, settings) } : { pending: new PendingSuperchunk(settings, this.#takeSpareImage()) }),
      live: 0, diskLive: 0, fileLength: 0, nbytes: new Map(),
    };
  }

  /** A new file for superchunk `s` when it is known not to be on the store (no need to look). */
  #absentFile(s: number): WriterFile | undefined {
    if (this.#absentFrom === undefined || s < this.#absentFrom) return undefined;
    const file = this.#emptyFile(s);
    (this.#files ??= new Map()).set(s, file);
    return file;
  }

  /**
   * Turns a streamed file into a pending one (its chunks read back), for what streaming does not
   * do: a chunk out of order, a new image of one, fewer chunks than written. The file is then
   * written whole, replacing what was streamed.
   */
  async #unstream(file: WriterFile): Promise<PendingSuperchunk> {
    const streamed = file.streamed!;
    // A failed write was reported to its caller; the slots below it are what the file holds.
    await streamed.settled().catch(() => undefined);
    const pending = new PendingSuperchunk(streamed.settings, this.#takeSpareImage());
    for (let i = 0; i < streamed.intactSlots; i++) {
      const slot = streamed.slot(i)!;
      pending.set(i, await this.#range(file.key, slot.offset, slot.cbytes));
    }
    file.pending = pending;
    file.streamed = undefined;
    return pending;
  }

  /**
   * Writes chunk `i` of a streamed file into its next slot now (the store takes the bytes at
   * once), and the file's first bytes once it is full, as a whole-file writer puts a full file.
   * Resolves once the store wrote them.
   */
  #stream(file: WriterFile, chunk: Uint8Array): Promise<void> {
    const streamed = file.streamed!;
    const written = streamed.append(chunk);
    if (streamed.size < this.#settings.superchunksize) return written;
    return Promise.all([written, this.#finishStreamed(file, streamed.size)]).then(() => undefined);
  }

  /**
   * Writes the first bytes of a streamed file with its `count` chunks (§13.2 step 4), and once
   * every write of the file is stored, makes it an ordinary one for this writer. A failure leaves
   * it streamed and failed: the next commit rebuilds it whole. Meanwhile the file takes no more
   * chunks, and the work that looks it up (`#file`, the commit) waits for the outcome, while
   * the chunks of the next file go on.
   */
  #finishStreamed(file: WriterFile, count: number): Promise<void> {
    const streamed = file.streamed!;
    const prefix = streamed.finish(count);
    const index = parseIndex(prefix, file.key, { s: file.s, required: count, chunklen: this.#geometry.chunklen, atomsize: this.#geometry.atomSize, superchunksize: file.capacity });
    const nbytes = new Map(Array.from({ length: count }, (_, i) => [i, streamed.slot(i)!.nbytes]));
    const finished: WriterFile = { ...index, live: count, diskLive: count, fileLength: streamed.length, nbytes };
    const done = streamed.settled().then(() => {
      // Unless the file was dropped meanwhile (a shrink deleted it).
      if (this.#files?.get(file.s) === file) this.#files.set(file.s, finished);
    });
    streamed.finishing = done.catch(() => undefined);
    return done;
  }

  async #readWriting(g: number): Promise<StoredChunk> {
    const S = this.#settings.superchunksize;
    const file = await this.#file(Math.floor(g / S) + 1);
    const i = g % S;
    if (file.streamed !== undefined) {
      const slot = file.streamed.slot(i);
      if (slot === undefined) throw new FormatError("MISSING_FILE", `chunk ${g} was never written`, { path: file.key, field: "file" });
      const streamed = file.streamed;
      // A failed write lost its slot and those after it; the slots below are on the store.
      await streamed.settled().catch((error: unknown) => {
        if (i >= streamed.intactSlots) throw error;
      });
      // A copy: a store may answer with a view of memory it changes with the next write.
      return { index: g, key: file.key, chunk: (await this.#range(file.key, slot.offset, slot.cbytes)).slice() };
    }
    if (file.pending !== undefined) {
      const chunk = file.pending.get(i);
      if (chunk === undefined) throw new FormatError("MISSING_FILE", `chunk ${g} was never written`, { path: file.key, field: "file" });
      // A copy: the pending file's memory changes with the next write, maybe before the reader decodes.
      return { index: g, key: file.key, chunk: chunk.slice() };
    }
    const at = chunkOffset(file, i, file.fileLength);
    const length = Math.min(file.fileLength - at, slotReadLength(file, i, file.live));
    const slot = file.image !== undefined ? file.image.subarray(at, at + length) : await this.#range(file.key, at, length);
    // Entries written since the last header write are live for this writer already.
    const view = file.live > file.header.nchunks ? { ...file, header: { ...file.header, nchunks: file.live } } : file;
    return { index: g, key: file.key, chunk: chunkFromSlot(view, i, slot, this.#settings.verify) };
  }

  /** Writes a pending superchunk whole with its first `count` chunks (§13.2 step 4). */
  async #materialize(file: WriterFile, count: number): Promise<void> {
    const pending = file.pending!;
    const bytes = pending.build(count);
    await this.store.put(file.key, bytes, { durable: false });
    const index = parseIndex(bytes, file.key, { s: file.s, required: count, chunklen: this.#geometry.chunklen, atomsize: this.#geometry.atomSize, superchunksize: file.capacity });
    const nbytes = new Map(Array.from({ length: count }, (_, i) => [i, pending.nbytesOf(i)!]));
    const next: WriterFile = { ...index, live: count, diskLive: count, fileLength: bytes.length, nbytes };
    // Kept for stores without writeAt; a view of a much larger image would keep all of it alive.
    if (this.store.writeAt === undefined) next.image = 4 * bytes.buffer.byteLength > 5 * bytes.length ? bytes.slice() : bytes;
    // Otherwise the image is done with (the store kept its own copy): the next new superchunk of
    // this writer lays out its chunks there, in pages already touched, instead of in a fresh
    // image of up to 64 MiB per superchunk (page faults, and collections for the external memory).
    else this.#spareImage = pending.releaseImage();
    this.#files!.set(file.s, next);
  }

  writeChunk(g: number, chunk: Uint8Array, options: ChunkWriteOptions): Promise<void> {
    const S = this.#settings.superchunksize;
    const i = g % S;
    if (this.#streams) {
      // The bytes are taken now (writesAtOnce): the next chunk of a streamed file goes into its
      // slot at once when nothing is queued before it; anything else works on a copy.
      const s = Math.floor(g / S) + 1;
      const known = this.#running === 0 ? this.#files?.get(s) ?? this.#absentFile(s) : undefined;
      if (!options.committed && known?.streamed?.accepts(i, chunk) === true) return this.#stream(known, chunk);
      chunk = chunk.slice();
    }
    const taken = this.#serial(async (): Promise<{ written: Promise<void> } | undefined> => {
      const file = await this.#file(Math.floor(g / S) + 1);
      if (file.streamed !== undefined) {
        // Not waited for here: the next queued chunk goes on meanwhile.
        if (file.streamed.accepts(i, chunk)) return { written: this.#stream(file, chunk) };
        await this.#unstream(file);
      }
      if (file.pending !== undefined) {
        // Laid out in the file's image at once (the caller reuses `chunk`'s memory once this resolves).
        file.pending.set(i, chunk);
        if (file.pending.size === S) await this.#materialize(file, S);
        return;
      }
      if (options.committed && i < file.diskLive && file.offsets[i]! >= 0) {
        await this.#atomically(new Map([[g, chunk]]));
        return;
      }
      // Not visible to readers of the committed length: change it freely.
      if (file.offsets[i]! < 0 || i >= file.live) {
        const at = file.fileLength;
        await write(this.store, file, at, slotBytes(file, chunk, g, this.#settings.spare));
        await setEntry(this.store, file, i, at);
        file.nbytes.set(i, readChunkHeader(chunk).nbytes);
        file.live = Math.max(file.live, i + 1);
      } else if (fits(file, i, chunk)) {
        await overwrite(this.store, file, i, chunk, g);
      } else {
        await relocate(this.store, file, i, chunk, g, false, this.#settings.spare);
      }
      await putImage(this.store, file);
      return undefined;
    });
    return taken.then((streaming) => streaming?.written);
  }

  writeChunksAtomically(chunks: ReadonlyMap<number, Uint8Array>): Promise<void> {
    return this.#serial(() => this.#atomically(chunks));
  }

  /**
   * One committed chunk that does not fit its slot: relocation, atomic by itself (§13.5).
   * Otherwise: `.next` files, the journal as the commit, installation in place or by relocation,
   * cleanup (§13.4).
   */
  async #atomically(chunks: ReadonlyMap<number, Uint8Array>): Promise<void> {
    const S = this.#settings.superchunksize;
    const store = this.store;
    const entries = [...chunks].map(([g, chunk]) => ({ g, chunk, s: Math.floor(g / S) + 1, i: g % S }));
    for (const e of entries) await this.#file(e.s);
    if (entries.length === 1) {
      const e = entries[0]!;
      const file = this.#files!.get(e.s)!;
      if (!fits(file, e.i, e.chunk)) {
        await relocate(this.store, file, e.i, e.chunk, e.g, true, this.#settings.spare);
        await putImage(this.store, file);
        await this.#refreshLastChunk(file, e.i);
        return;
      }
    }
    for (const e of entries) {
      const file = this.#files!.get(e.s)!;
      const sum = computeChunkChecksum(file.header.checksumId, e.chunk, e.g);
      const staged = new Uint8Array(e.chunk.length + sum.length);
      staged.set(e.chunk);
      staged.set(sum, e.chunk.length);
      await store.put(joinKey(this.#geometry.path, journalChunkFileName(e.s, e.i)), staged, { durable: false });
    }
    await store.sync?.();
    const journalKey = joinKey(this.#geometry.path, JOURNAL_FILE);
    await store.put(journalKey, encodeMetadata(serializeJournalV2(entries.map((e) => [e.s, e.i] as [number, number]))));
    await this.#install(entries);
    await store.sync?.();
    for (const e of entries) await store.delete(joinKey(this.#geometry.path, journalChunkFileName(e.s, e.i)));
    await store.delete(journalKey);
  }

  async #install(entries: { g: number; chunk: Uint8Array; s: number; i: number }[]): Promise<void> {
    const touched = new Set<WriterFile>();
    for (const e of entries) {
      const file = this.#files!.get(e.s)!;
      if (fits(file, e.i, e.chunk)) await overwrite(this.store, file, e.i, e.chunk, e.g);
      else await relocate(this.store, file, e.i, e.chunk, e.g, false, this.#settings.spare);
      touched.add(file);
    }
    for (const file of touched) {
      await putImage(this.store, file);
      await this.#refreshLastChunk(file, ...entries.filter((e) => e.s === file.s).map((e) => e.i));
    }
  }

  /** Keeps the header's last-chunk hint right when the last live chunk changed size. */
  async #refreshLastChunk(file: WriterFile, ...changed: number[]): Promise<void> {
    const last = file.diskLive - 1;
    if (!changed.includes(last) || file.nbytes.get(last) === file.header.lastChunk) return;
    await writeHeader(this.store, file, file.diskLive);
    await putImage(this.store, file);
  }

  prepareCommit(length: number): Promise<void> {
    return this.#serial(async () => {
      const S = this.#settings.superchunksize;
      const n = Math.ceil(length / this.#geometry.chunklen);
      await Promise.all([...(this.#files?.values() ?? [])].map((file) => file.streamed?.finishing ?? Promise.resolve()));
      for (const file of [...(this.#files?.values() ?? [])].sort((a, b) => a.s - b.s)) {
        const required = Math.max(0, Math.min(S, n - (file.s - 1) * S));
        if (file.streamed !== undefined) {
          if (required === 0) {
            this.#files!.delete(file.s);
            // Created on the store already: beyond the required superchunks, but not left behind.
            if (file.streamed.length > 0) await this.store.delete(file.key);
            continue;
          }
          if (required === file.streamed.size && !file.streamed.failed) {
            await this.#finishStreamed(file, required);
            continue;
          }
          await this.#unstream(file);
        }
        if (file.pending !== undefined) {
          if (required > 0) await this.#materialize(file, required);
          else this.#files!.delete(file.s);
          continue;
        }
        const lastChanged = file.nbytes.has(required - 1) && file.nbytes.get(required - 1) !== file.header.lastChunk;
        if (required > 0 && (file.live !== file.diskLive || file.diskLive !== required || lastChanged)) {
          for (let i = 0; i < required; i++) if (file.offsets[i]! < 0) throw new Error(`internal: chunk ${file.firstChunk + i} of ${file.key} was never written`);
          await writeHeader(this.store, file, required);
          await putImage(this.store, file);
        }
      }
      await this.store.sync?.();
    });
  }

  async commitLength(shape: readonly number[]): Promise<void> {
    await this.store.put(joinKey(this.#geometry.path, "meta/shape"), encodeMetadata(serializeShapeV2(shape)));
    this.#indexes.clear();
  }

  dropChunksBeyond(length: number, fileCount: number): Promise<void> {
    return this.#serial(async () => {
      const S = this.#settings.superchunksize;
      const n = Math.ceil(length / this.#geometry.chunklen);
      const last = Math.ceil(n / S);
      if (last >= 1) {
        const file = await this.#file(last);
        const required = n - (last - 1) * S;
        if (file.streamed !== undefined) {
          if (required < file.streamed.size || file.streamed.failed) (await this.#unstream(file)).dropFrom(required);
        } else if (file.pending !== undefined) {
          file.pending.dropFrom(required);
        } else if (file.diskLive !== required) {
          await writeHeader(this.store, file, required, true);
          await putImage(this.store, file, true);
        }
      }
      for (let s = Math.max(last + 1, Math.ceil(fileCount / S)); s > last; s--) {
        this.#files?.delete(s);
        this.#indexes.delete(s);
        await this.store.delete(this.#fileKey(s));
      }
      if (this.#absentFrom !== undefined) this.#absentFrom = Math.min(this.#absentFrom, last + 1);
    });
  }

  /**
   * Opening for writing (§13.1): finishes an interrupted journaled update, removes staged and
   * compaction leftovers, and brings the files back to what the committed length describes (the
   * last required superchunk's nchunks, no superchunk beyond it).
   */
  recover(): Promise<void> {
    return this.#serial(async () => {
      const store = this.store;
      const base = this.#geometry.path;
      const journalKey = joinKey(base, JOURNAL_FILE);
      const text = await readText(store, journalKey);
      if (text !== undefined) {
        const pairs = withPath(journalKey, () => parseJournalV2(text, journalKey));
        const entries: { g: number; chunk: Uint8Array; s: number; i: number }[] = [];
        for (const [s, i] of pairs) {
          const next = await store.get(joinKey(base, journalChunkFileName(s, i)));
          if (next === undefined) continue;
          const file = await this.#file(s);
          const g = (s - 1) * this.#settings.superchunksize + i;
          const chunk = chunkFromSlot(file, i, next, true, joinKey(base, journalChunkFileName(s, i)));
          entries.push({ g, chunk: chunk.slice(), s, i });
        }
        await this.#install(entries);
        await store.sync?.();
        for (const [s, i] of pairs) await store.delete(joinKey(base, journalChunkFileName(s, i)));
        await store.delete(journalKey);
      }
      const S = this.#settings.superchunksize;
      const n = Math.ceil(this.#geometry.length() / this.#geometry.chunklen);
      const last = Math.ceil(n / S);
      const existing = new Set<number>();
      if (store.list !== undefined) {
        const prefix = joinKey(base, "data/");
        for (const key of await store.list(prefix)) {
          const rest = key.slice(prefix.length);
          if (/^__\d+__\.bin\.(\d+\.next|compact)$/.test(rest)) await store.delete(key);
          const m = /^__(\d+)__\.bin$/.exec(rest);
          if (m !== null) existing.add(Number(m[1]));
        }
      } else {
        for (let s = last + 1; (await store.get(this.#fileKey(s))) !== undefined; s++) existing.add(s);
      }
      if (last >= 1) {
        const file = await this.#file(last);
        const required = n - (last - 1) * S;
        if (file.pending === undefined && file.streamed === undefined && file.diskLive !== required) {
          await writeHeader(this.store, file, required, true);
          await putImage(this.store, file, true);
        }
      }
      for (const s of [...existing].filter((s) => s > last).sort((a, b) => b - a)) await store.delete(this.#fileKey(s));
      this.#absentFrom = last + 1;
    });
  }

  /**
   * Rewrites every superchunk holding dead space with its required chunks in index order, fresh
   * slots and no dead space (§13.6), each by one atomic replacement. Resolves to the bytes
   * reclaimed.
   */
  compact(): Promise<number> {
    return this.#serial(async () => {
      const S = this.#settings.superchunksize;
      const n = Math.ceil(this.#geometry.length() / this.#geometry.chunklen);
      let reclaimed = 0;
      for (let s = 1; s <= Math.ceil(n / S); s++) {
        const file = await this.#file(s);
        if (file.pending !== undefined || file.streamed !== undefined) continue;
        const required = Math.min(S, n - (s - 1) * S);
        const chunks: Uint8Array[] = [];
        for (let i = 0; i < required; i++) chunks.push((await this.#readWriting(file.firstChunk + i)).chunk.slice());
        const metadata = serializeSuperchunkMeta({ capacity: file.capacity, firstChunk: file.firstChunk });
        const bytes = buildSuperchunk({
          chunks, checksumId: file.header.checksumId, typesize: file.header.typesize, chunkSize: file.header.chunkSize, metadata, capacity: file.capacity,
          sparePercent: this.#settings.spare, firstChunk: file.firstChunk,
        });
        if (bytes.length >= file.fileLength) continue;
        reclaimed += file.fileLength - bytes.length;
        await this.store.put(file.key, bytes);
        this.#files!.delete(s);
        // On the store, and no longer known here: looked up again when next written.
        if (this.#absentFrom !== undefined && s >= this.#absentFrom) this.#absentFrom = s + 1;
        this.#indexes.delete(s);
      }
      return reclaimed;
    });
  }
}
