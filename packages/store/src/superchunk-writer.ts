/**
 * The write side of the format-2 layout ({@link LayoutV2}): the files as one writer keeps them
 * and the changes it makes to them, one operation at a time (spec/v2.md §13): new superchunks
 * written whole or streamed slot by slot, slots appended, chunks rewritten in place through the
 * journal or relocated, headers written before the commit, recovery when opened for writing,
 * compaction. Which bytes one change writes into one file is in superchunk-file.ts.
 *
 * @example
 * ```ts
 * const writer = new SuperchunkWriter(context);
 * await writer.writeChunk(0, chunk, { committed: false, headroom: 0 });
 * await writer.prepareCommit(rows);
 * ```
 * @module
 */
import { FormatError } from "@fmt/errors";
import { buildSuperchunk, computeChunkChecksum, journalChunkFileName, readChunkHeader } from "@fmt/header";
import type { WritableStore } from "@fmt/fs-adapters";
import { encodeMetadata, parseJournalV2, serializeJournalV2, serializeSuperchunkMeta } from "@fmt/meta";
import { joinKey, readText, withPath } from "./internal.js";
import type { ChunkWriteOptions, LayoutGeometry, StoredChunk } from "./layout.js";
import { JOURNAL_FILE } from "./layout-v1.js";
import type { V2Settings } from "./layout-v2.js";
import { PendingSuperchunk } from "./pending-superchunk.js";
import { StreamedSuperchunk } from "./streamed-superchunk.js";
import { fits, overwrite, putImage, relocate, setEntry, slotBytes, write, writeHeader } from "./superchunk-file.js";
import type { WriterFile } from "./superchunk-file.js";
import { chunkFromSlot, chunkOffset, loadSuperchunkIndex, parseIndex, slotReadLength } from "./superchunk-index.js";
import type { IndexExpectation } from "./superchunk-index.js";

/**
 * What the writer takes from its layout: the store, the carray's geometry and settings, where
 * file `s` lives and what the committed length expects of it, byte ranges, and a way to drop a
 * reader's cached index of a file the writer changed.
 *
 * @example
 * ```ts
 * const context: WriterContext = { store, geometry, settings, fileKey, expectation, range, forgetIndex: (s) => indexes.delete(s) };
 * ```
 */
export interface WriterContext {
  store: WritableStore;
  geometry: LayoutGeometry;
  settings: V2Settings;
  fileKey(s: number): string;
  expectation(s: number): IndexExpectation;
  range(key: string, offset: number, length: number): Promise<Uint8Array>;
  forgetIndex(s: number): void;
}

/**
 * Whether a format-2 writer on `store` streams new superchunks and takes each chunk's bytes at
 * once ({@link SuperchunkWriter.writesAtOnce}): the store's `writeAt` takes bytes at once.
 *
 * @example
 * ```ts
 * writesAtOnce(new MemoryStore()); // true
 * ```
 */
export function writesAtOnce(store: unknown): boolean {
  const s = store as Partial<WritableStore>;
  return s.positionalWritesAtOnce === true && s.writeAt !== undefined;
}

/**
 * The files of one format-2 writer and the changes it makes (see the module comment).
 *
 * @example
 * ```ts
 * const writer = new SuperchunkWriter(context);
 * await writer.recover();
 * ```
 */
export class SuperchunkWriter {
  readonly #context: WriterContext;
  /** The files as this writer keeps them. */
  readonly #files = new Map<number, WriterFile>();
  #queue: Promise<unknown> = Promise.resolve();
  /** The image of the last superchunk this writer stored whole, for its next new one. */
  #spareImage: Uint8Array | undefined;
  /** Operations queued or running in {@link SuperchunkWriter.#serial}. */
  #running = 0;
  /**
   * Superchunks numbered from here on are not on the store, unless this writer created them (then
   * they are in `#files`): what recovery leaves (§13.1, no superchunk beyond the last required
   * one), kept as files are dropped. `undefined` before recovery.
   */
  #absentFrom: number | undefined;
  /** Set once this writer looked at a file: readers then go through {@link SuperchunkWriter.read}. */
  #active = false;

  constructor(context: WriterContext) {
    this.#context = context;
  }

  /**
   * On a store that takes written bytes at once and writes in place (`writeAt` and
   * `positionalWritesAtOnce`), new superchunks are written as their chunks come
   * ({@link StreamedSuperchunk}), and `writeChunk` takes a chunk's bytes before it returns:
   * written into its slot at once when nothing else is queued, copied otherwise. Elsewhere chunks
   * are placed after awaits.
   */
  get writesAtOnce(): boolean {
    // Asked each time, as LayoutV2.writesAtOnce does: both answer alike whenever asked.
    return writesAtOnce(this.#context.store);
  }

  /**
   * Whether this writer has looked at any file: from then on its files may differ from what a
   * reader's cached indexes say, and chunks are read through {@link SuperchunkWriter.read}.
   */
  get active(): boolean {
    return this.#active;
  }

  /** Chunk `g` as this writer has it (its files change under a reader's cached indexes). */
  read(g: number): Promise<StoredChunk> {
    return this.#serial(() => this.#readWriting(g));
  }

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
    this.#active = true;
    await this.#files.get(s)?.streamed?.finishing;
    const known = this.#files.get(s) ?? this.#absentFile(s);
    if (known !== undefined) return known;
    const store = this.#context.store;
    const key = this.#context.fileKey(s);
    const expected = this.#context.expectation(s);
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
    const S = this.#context.settings.superchunksize;
    const key = this.#context.fileKey(s);
    const settings = {
      capacity: S, firstChunk: (s - 1) * S, checksumId: this.#context.settings.checksumId, typesize: this.#context.settings.typesize,
      chunkSize: this.#context.geometry.chunklen * this.#context.geometry.atomSize, sparePercent: this.#context.settings.spare,
    };
    return {
      s, key, firstChunk: (s - 1) * S, capacity: S, dataStart: 0, offsets: new Array<number>(S).fill(-1), metadataText: "",
      header: { version: 2, hasOffsets: true, hasMetadata: true, checksumId: this.#context.settings.checksumId, typesize: this.#context.settings.typesize, chunkSize: this.#context.geometry.chunklen * this.#context.geometry.atomSize, lastChunk: 0, nchunks: 0, metaSize: 0 },
      ...(this.writesAtOnce ? { streamed: new StreamedSuperchunk(this.#context.store, key, settings) } : { pending: new PendingSuperchunk(settings, this.#takeSpareImage()) }),
      live: 0, diskLive: 0, fileLength: 0, nbytes: new Map(),
    };
  }

  /** A new file for superchunk `s` when it is known not to be on the store (no need to look). */
  #absentFile(s: number): WriterFile | undefined {
    if (this.#absentFrom === undefined || s < this.#absentFrom) return undefined;
    this.#active = true;
    const file = this.#emptyFile(s);
    this.#files.set(s, file);
    return file;
  }

  /**
   * Turns a streamed file into a pending one (its chunks read back), for what streaming does not
   * do: a chunk out of order, a new image of one, fewer chunks than written. The file is then
   * written whole, replacing what was streamed.
   */
  async #unstream(file: WriterFile): Promise<PendingSuperchunk> {
    const streamed = file.streamed!;
    // A failed write was reported to its caller (and its write rolled back: the slots from the
    // failed one on lie beyond the length the carray keeps); the slots below it are what the
    // file holds.
    await streamed.settled().catch(() => undefined);
    const pending = new PendingSuperchunk(streamed.settings, this.#takeSpareImage());
    for (let i = 0; i < streamed.intactSlots; i++) {
      const slot = streamed.slot(i)!;
      pending.set(i, streamed.checked(i, await this.#context.range(file.key, slot.offset, slot.cbytes)));
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
    if (streamed.size < this.#context.settings.superchunksize) return written;
    let finished: Promise<void>;
    try {
      finished = this.#finishStreamed(file, streamed.size);
    } catch (error) {
      // Reported with `written`, never left without a handler.
      finished = Promise.reject(error);
    }
    return Promise.all([written, finished]).then(() => undefined);
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
    const index = parseIndex(prefix, file.key, { s: file.s, required: count, chunklen: this.#context.geometry.chunklen, atomsize: this.#context.geometry.atomSize, superchunksize: file.capacity });
    const nbytes = new Map(Array.from({ length: count }, (_, i) => [i, streamed.slot(i)!.nbytes]));
    const finished: WriterFile = { ...index, live: count, diskLive: count, fileLength: streamed.length, nbytes };
    const done = streamed.settled().then(() => {
      // Unless the file was dropped meanwhile (a shrink deleted it).
      if (this.#files.get(file.s) === file) this.#files.set(file.s, finished);
    });
    streamed.finishing = done.catch(() => undefined);
    return done;
  }

  async #readWriting(g: number): Promise<StoredChunk> {
    const S = this.#context.settings.superchunksize;
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
      const chunk = (await this.#context.range(file.key, slot.offset, slot.cbytes)).slice();
      return { index: g, key: file.key, chunk: streamed.checked(i, chunk) };
    }
    if (file.pending !== undefined) {
      const chunk = file.pending.get(i);
      if (chunk === undefined) throw new FormatError("MISSING_FILE", `chunk ${g} was never written`, { path: file.key, field: "file" });
      // A copy: the pending file's memory changes with the next write, maybe before the reader decodes.
      return { index: g, key: file.key, chunk: chunk.slice() };
    }
    const at = chunkOffset(file, i, file.fileLength);
    const length = Math.min(file.fileLength - at, slotReadLength(file, i, file.live));
    const slot = file.image !== undefined ? file.image.subarray(at, at + length) : await this.#context.range(file.key, at, length);
    // Entries written since the last header write are live for this writer already.
    const view = file.live > file.header.nchunks ? { ...file, header: { ...file.header, nchunks: file.live } } : file;
    return { index: g, key: file.key, chunk: chunkFromSlot(view, i, slot, this.#context.settings.verify) };
  }

  /** Writes a pending superchunk whole with its first `count` chunks (§13.2 step 4). */
  async #materialize(file: WriterFile, count: number): Promise<void> {
    const pending = file.pending!;
    const bytes = pending.build(count);
    await this.#context.store.put(file.key, bytes, { durable: false });
    const index = parseIndex(bytes, file.key, { s: file.s, required: count, chunklen: this.#context.geometry.chunklen, atomsize: this.#context.geometry.atomSize, superchunksize: file.capacity });
    const nbytes = new Map(Array.from({ length: count }, (_, i) => [i, pending.nbytesOf(i)!]));
    const next: WriterFile = { ...index, live: count, diskLive: count, fileLength: bytes.length, nbytes };
    // Kept for stores without writeAt; a view of a much larger image would keep all of it alive.
    if (this.#context.store.writeAt === undefined) next.image = 4 * bytes.buffer.byteLength > 5 * bytes.length ? bytes.slice() : bytes;
    // Otherwise the image is done with (the store kept its own copy): the next new superchunk of
    // this writer lays out its chunks there, in pages already touched, instead of in a fresh
    // image of up to 64 MiB per superchunk (page faults, and collections for the external memory).
    else this.#spareImage = pending.releaseImage();
    this.#files.set(file.s, next);
  }

  writeChunk(g: number, chunk: Uint8Array, options: ChunkWriteOptions): Promise<void> {
    const S = this.#context.settings.superchunksize;
    const i = g % S;
    if (this.writesAtOnce) {
      // The bytes are taken now (writesAtOnce): the next chunk of a streamed file goes into its
      // slot at once when nothing is queued before it; anything else works on a copy.
      const s = Math.floor(g / S) + 1;
      const known = this.#running === 0 ? this.#files.get(s) ?? this.#absentFile(s) : undefined;
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
        // A partial chunk is the last of its file: chunks above it are stale (left by a write
        // that failed and was rolled back), and would break the chunk-size rule.
        if (readChunkHeader(chunk).nbytes < file.header.chunkSize) file.pending.dropFrom(i + 1);
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
        await write(this.#context.store, file, at, slotBytes(file, chunk, g, this.#context.settings.spare));
        await setEntry(this.#context.store, file, i, at);
        file.nbytes.set(i, readChunkHeader(chunk).nbytes);
        file.live = Math.max(file.live, i + 1);
      } else if (fits(file, i, chunk)) {
        await overwrite(this.#context.store, file, i, chunk, g);
      } else {
        await relocate(this.#context.store, file, i, chunk, g, false, this.#context.settings.spare);
      }
      await putImage(this.#context.store, file);
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
    const S = this.#context.settings.superchunksize;
    const store = this.#context.store;
    const entries = [...chunks].map(([g, chunk]) => ({ g, chunk, s: Math.floor(g / S) + 1, i: g % S }));
    for (const e of entries) await this.#file(e.s);
    if (entries.length === 1) {
      const e = entries[0]!;
      const file = this.#files.get(e.s)!;
      if (!fits(file, e.i, e.chunk)) {
        await relocate(this.#context.store, file, e.i, e.chunk, e.g, true, this.#context.settings.spare);
        await putImage(this.#context.store, file);
        await this.#refreshLastChunk(file, e.i);
        return;
      }
    }
    for (const e of entries) {
      const file = this.#files.get(e.s)!;
      const sum = computeChunkChecksum(file.header.checksumId, e.chunk, e.g);
      const staged = new Uint8Array(e.chunk.length + sum.length);
      staged.set(e.chunk);
      staged.set(sum, e.chunk.length);
      await store.put(joinKey(this.#context.geometry.path, journalChunkFileName(e.s, e.i)), staged, { durable: false });
    }
    await store.sync?.();
    const journalKey = joinKey(this.#context.geometry.path, JOURNAL_FILE);
    await store.put(journalKey, encodeMetadata(serializeJournalV2(entries.map((e) => [e.s, e.i] as [number, number]))));
    await this.#install(entries);
    await store.sync?.();
    for (const e of entries) await store.delete(joinKey(this.#context.geometry.path, journalChunkFileName(e.s, e.i)));
    await store.delete(journalKey);
  }

  async #install(entries: { g: number; chunk: Uint8Array; s: number; i: number }[]): Promise<void> {
    const touched = new Set<WriterFile>();
    for (const e of entries) {
      const file = this.#files.get(e.s)!;
      if (fits(file, e.i, e.chunk)) await overwrite(this.#context.store, file, e.i, e.chunk, e.g);
      else await relocate(this.#context.store, file, e.i, e.chunk, e.g, false, this.#context.settings.spare);
      touched.add(file);
    }
    for (const file of touched) {
      await putImage(this.#context.store, file);
      await this.#refreshLastChunk(file, ...entries.filter((e) => e.s === file.s).map((e) => e.i));
    }
  }

  /** Keeps the header's last-chunk hint right when the last live chunk changed size. */
  async #refreshLastChunk(file: WriterFile, ...changed: number[]): Promise<void> {
    const last = file.diskLive - 1;
    if (!changed.includes(last) || file.nbytes.get(last) === file.header.lastChunk) return;
    await writeHeader(this.#context.store, file, file.diskLive);
    await putImage(this.#context.store, file);
  }

  prepareCommit(length: number): Promise<void> {
    return this.#serial(async () => {
      const S = this.#context.settings.superchunksize;
      const n = Math.ceil(length / this.#context.geometry.chunklen);
      await Promise.all([...this.#files.values()].map((file) => file.streamed?.finishing ?? Promise.resolve()));
      for (const file of [...this.#files.values()].sort((a, b) => a.s - b.s)) {
        const required = Math.max(0, Math.min(S, n - (file.s - 1) * S));
        if (file.streamed !== undefined) {
          if (required === 0) {
            this.#files.delete(file.s);
            // Created on the store already: beyond the required superchunks, but not left behind.
            if (file.streamed.length > 0) await this.#context.store.delete(file.key);
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
          else this.#files.delete(file.s);
          continue;
        }
        const lastChanged = file.nbytes.has(required - 1) && file.nbytes.get(required - 1) !== file.header.lastChunk;
        if (required > 0 && (file.live !== file.diskLive || file.diskLive !== required || lastChanged)) {
          for (let i = 0; i < required; i++) if (file.offsets[i]! < 0) throw new Error(`internal: chunk ${file.firstChunk + i} of ${file.key} was never written`);
          await writeHeader(this.#context.store, file, required);
          await putImage(this.#context.store, file);
        }
      }
      await this.#context.store.sync?.();
    });
  }

  dropChunksBeyond(length: number, fileCount: number): Promise<void> {
    return this.#serial(async () => {
      const S = this.#context.settings.superchunksize;
      const n = Math.ceil(length / this.#context.geometry.chunklen);
      const last = Math.ceil(n / S);
      if (last >= 1) {
        const file = await this.#file(last);
        const required = n - (last - 1) * S;
        if (file.streamed !== undefined) {
          if (required < file.streamed.size || file.streamed.failed) (await this.#unstream(file)).dropFrom(required);
        } else if (file.pending !== undefined) {
          file.pending.dropFrom(required);
        } else if (file.diskLive !== required) {
          await writeHeader(this.#context.store, file, required, true);
          await putImage(this.#context.store, file, true);
        }
      }
      for (let s = Math.max(last + 1, Math.ceil(fileCount / S)); s > last; s--) {
        this.#files.delete(s);
        this.#context.forgetIndex(s);
        await this.#context.store.delete(this.#context.fileKey(s));
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
      const store = this.#context.store;
      const base = this.#context.geometry.path;
      const journalKey = joinKey(base, JOURNAL_FILE);
      const text = await readText(store, journalKey);
      if (text !== undefined) {
        const pairs = withPath(journalKey, () => parseJournalV2(text, journalKey));
        const entries: { g: number; chunk: Uint8Array; s: number; i: number }[] = [];
        for (const [s, i] of pairs) {
          const next = await store.get(joinKey(base, journalChunkFileName(s, i)));
          if (next === undefined) continue;
          const file = await this.#file(s);
          const g = (s - 1) * this.#context.settings.superchunksize + i;
          const chunk = chunkFromSlot(file, i, next, true, joinKey(base, journalChunkFileName(s, i)));
          entries.push({ g, chunk: chunk.slice(), s, i });
        }
        await this.#install(entries);
        await store.sync?.();
        for (const [s, i] of pairs) await store.delete(joinKey(base, journalChunkFileName(s, i)));
        await store.delete(journalKey);
      }
      const S = this.#context.settings.superchunksize;
      const n = Math.ceil(this.#context.geometry.length() / this.#context.geometry.chunklen);
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
        for (let s = last + 1; (await store.get(this.#context.fileKey(s))) !== undefined; s++) existing.add(s);
      }
      if (last >= 1) {
        const file = await this.#file(last);
        const required = n - (last - 1) * S;
        if (file.pending === undefined && file.streamed === undefined && file.diskLive !== required) {
          await writeHeader(this.#context.store, file, required, true);
          await putImage(this.#context.store, file, true);
        }
      }
      for (const s of [...existing].filter((s) => s > last).sort((a, b) => b - a)) await store.delete(this.#context.fileKey(s));
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
      const S = this.#context.settings.superchunksize;
      const n = Math.ceil(this.#context.geometry.length() / this.#context.geometry.chunklen);
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
          sparePercent: this.#context.settings.spare, firstChunk: file.firstChunk,
        });
        if (bytes.length >= file.fileLength) continue;
        reclaimed += file.fileLength - bytes.length;
        await this.#context.store.put(file.key, bytes);
        this.#files.delete(s);
        // On the store, and no longer known here: looked up again when next written.
        if (this.#absentFrom !== undefined && s >= this.#absentFrom) this.#absentFrom = s + 1;
        this.#context.forgetIndex(s);
      }
      return reclaimed;
    });
  }
}
