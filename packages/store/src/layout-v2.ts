/**
 * Format version 2 below the layout seam (spec/v2.md): chunks in superchunk files
 * `data/__s__.bin` behind an offsets table, checksums bound to the chunk's index, `meta/shape` as
 * the commit. Readers keep one checked {@link SuperchunkIndex} per file and coalesce neighbouring
 * slots into one range request (this module). The write side, {@link SuperchunkWriter}
 * (superchunk-writer.ts), appends slots, rewrites a chunk in place when it fits its slot (through
 * the journal when readers can see it) and relocates it when it does not, streams new superchunks
 * or creates them whole, and writes headers before the commit (§13); the writes that change one
 * file are in superchunk-file.ts.
 *
 * @example
 * ```ts
 * const layout = new LayoutV2(store, geometry, settings, undefined);
 * for await (const fetch of layout.plan([0, 1, 2])) for (const c of await fetch.fetch()) console.log(c.index);
 * ```
 * @module
 */
import { FormatError } from "@fmt/errors";
import { checksumKind, crc32Offload, journalChunkFileName, superchunkFileName } from "@fmt/header";
import type { ReadableStore, WritableStore } from "@fmt/fs-adapters";
import { encodeMetadata, serializeShapeV2 } from "@fmt/meta";
import { joinKey } from "./internal.js";
import { SuperchunkWriter, writesAtOnce } from "./superchunk-writer.js";
import type { ChunkFetch, ChunkLayoutWriter, ChunkWriteOptions, InputBuffers, LayoutGeometry, SegmentSums, StoredChunk } from "./layout.js";
import { chunkFromSlot, chunkOffset, loadSuperchunkIndex, offloadedCrc32, slotReadLength } from "./superchunk-index.js";
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
 * The bound on a store that keeps many requests in flight (a remote one) and says nothing of its
 * request size (`ReadableStore.rangeRequestBytes`, which the HTTP and S3 stores give): each
 * request's fixed cost is larger there.
 */
const MAX_GROUP_BYTES_CONCURRENT = 4 * 1024 * 1024;
/**
 * The bounds put on a store's `rangeRequestBytes` hint (the HTTP and S3 stores accept the same):
 * runs are read into buffers of that size, up to `prefetch + 1` of them at once.
 */
const MIN_HINTED_GROUP_BYTES = 64 * 1024;
const MAX_HINTED_GROUP_BYTES = 16 * 1024 * 1024;
const MAX_GROUP_CHUNKS = 64;

/** How many bytes one coalesced read of `store` may span. */
function maxGroupBytes(store: ReadableStore): number {
  const hint = store.rangeRequestBytes;
  if (typeof hint === "number" && Number.isFinite(hint)) return Math.min(MAX_HINTED_GROUP_BYTES, Math.max(MIN_HINTED_GROUP_BYTES, Math.floor(hint)));
  return store.concurrency !== undefined && store.concurrency > 4 ? MAX_GROUP_BYTES_CONCURRENT : MAX_GROUP_BYTES;
}

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
  /** The write side, once the layout writes (any write method, or `recover`). */
  #writer: SuperchunkWriter | undefined;

  constructor(store: ReadableStore, geometry: LayoutGeometry, settings: V2Settings, journal: readonly [number, number][] | undefined) {
    this.#store = store;
    this.#maxGroupBytes = maxGroupBytes(store);
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

  /** See {@link SuperchunkWriter.writesAtOnce}. */
  get writesAtOnce(): boolean {
    return writesAtOnce(this.#store);
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
    if (this.#writer?.active === true) return this.#writer.read(g);
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

  /** Adler-32 for files checked with Adler-32, CRC-32 for the others (see `ChunkLayout.segmentSums`). */
  get segmentSums(): SegmentSums {
    return checksumKind(this.#settings.checksumId).name === "adler32" ? "adler32" : "crc32";
  }

  get rawRanges(): ((g: number, windows: readonly { offset: number; length: number }[]) => Promise<Uint8Array[] | undefined>) | undefined {
    if (this.#writer?.active === true || !this.#settings.verify || checksumKind(this.#settings.checksumId).size === 0) return undefined;
    return (g, windows) => this.#rawRanges(g, windows);
  }

  async #rawRanges(g: number, windows: readonly { offset: number; length: number }[]): Promise<Uint8Array[] | undefined> {
    if (this.#writer?.active === true || this.#journal.has(g)) return undefined;
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
        if (this.#writer?.active !== true) void this.#index(s).catch(() => undefined);
      }
    };
    for (let k = 0; k < indices.length; ) {
      warm(k);
      const g = indices[k]!;
      const single: ChunkFetch = { indices: [g], fetch: async () => [await this.read(g)] };
      if (this.#writer?.active === true || this.#journal.has(g)) {
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

  /** The write side, made on first use. */
  #writing(): SuperchunkWriter {
    this.#writer ??= new SuperchunkWriter({
      store: this.store, geometry: this.#geometry, settings: this.#settings,
      fileKey: (s) => this.#fileKey(s), expectation: (s) => this.#expectation(s), range: (key, offset, length) => this.#range(key, offset, length),
      forgetIndex: (s) => this.#indexes.delete(s),
    });
    return this.#writer;
  }

  writeChunk(g: number, chunk: Uint8Array, options: ChunkWriteOptions): Promise<void> {
    return this.#writing().writeChunk(g, chunk, options);
  }

  writeChunksAtomically(chunks: ReadonlyMap<number, Uint8Array>): Promise<void> {
    return this.#writing().writeChunksAtomically(chunks);
  }

  prepareCommit(length: number): Promise<void> {
    return this.#writing().prepareCommit(length);
  }

  async commitLength(shape: readonly number[]): Promise<void> {
    await this.store.put(joinKey(this.#geometry.path, "meta/shape"), encodeMetadata(serializeShapeV2(shape)));
    this.#indexes.clear();
  }

  dropChunksBeyond(length: number, fileCount: number): Promise<void> {
    return this.#writing().dropChunksBeyond(length, fileCount);
  }

  /**
   * Opening for writing (§13.1): finishes an interrupted journaled update, removes staged and
   * compaction leftovers, and brings the files back to what the committed length describes.
   */
  recover(): Promise<void> {
    return this.#writing().recover();
  }

  /** Rewrites every superchunk holding dead space (§13.6); resolves to the bytes reclaimed. */
  compact(): Promise<number> {
    return this.#writing().compact();
  }
}
