/**
 * The seam between what a carray does (selection, take, cache, where, iterBlocks, workers,
 * journal of appends, lock: written once, above) and where its chunks live on the store
 * (written once per format version, below): format 1 keeps one `data/__k.blp` file per chunk
 * (`layout-v1.ts`), format 2 packs chunks into superchunk files behind an offsets table
 * (`layout-v2.ts`). A layout answers "where are chunk k's bytes", fetches them (planning and
 * coalescing the ranges it needs), writes a chunk, and commits a length.
 *
 * @example
 * ```ts
 * const layout: ChunkLayout = await openLayoutV1(store, "prices.bcolz", geometry);
 * const { chunk } = await layout.read(0); // the Blosc chunk of rows [0, chunklen)
 * ```
 * @module
 */
import type { WritableStore } from "@fmt/fs-adapters";

/**
 * A chunk as stored: its Blosc bytes with the container stripped and any checksum verified.
 *
 * @example
 * ```ts
 * const stored: StoredChunk = { index: 3, key: "data/__3.blp", chunk };
 * ```
 */
export interface StoredChunk {
  /** Global chunk index. */
  index: number;
  /** Store key of the file the bytes came from (errors name it). */
  key: string;
  /** The Blosc chunk, at least `cbytes` long (readers cut it there). */
  chunk: Uint8Array;
}

/**
 * Byte access inside chunks, for reading one Blosc block of a large chunk without the rest.
 * Only layouts that need not read a chunk whole offer it: format 2 verifies a checksum over the
 * whole chunk, so its first read of a chunk is whole, and later ones go through
 * {@link ChunkLayout.rawRanges} and checksums of that checked read instead.
 *
 * @example
 * ```ts
 * const head = await partial.head(7, 65536);
 * if (head.whole !== undefined) decodeWhole(head.whole); else planFrom(head.bytes);
 * ```
 */
export interface PartialChunkAccess {
  /**
   * One request of `length` bytes from the start of chunk `g`'s file: `bytes` is what of the Blosc
   * chunk it holds; when the file ended inside the window, `whole` is the chunk as
   * {@link ChunkLayout.read} gives it.
   */
  head(g: number, length: number): Promise<{ bytes: Uint8Array; whole?: StoredChunk }>;
  /** Bytes `[offset, offset + length)` of chunk `g`'s Blosc chunk, clipped at its file's end. */
  range(g: number, offset: number, length: number): Promise<Uint8Array>;
  /**
   * Several such windows through one request or open (stores with `getRanges`); `undefined` when
   * the chunk must be read whole instead (a staged, journaled chunk). `checkContainer`: the file's
   * container header is read in the same request and checked, as {@link PartialChunkAccess.head}
   * and whole reads check it. `into` lends a buffer per piece, as the store's `getRanges` takes
   * them: a piece read there is a view of its buffer, any other comes in memory of its own.
   */
  ranges?(g: number, pieces: readonly { offset: number; length: number }[], checkContainer?: boolean, into?: readonly (Uint8Array | undefined)[]): Promise<Uint8Array[] | undefined>;
  /**
   * Whether `ranges` costs about what reading the file whole costs, less the bytes not read: taken
   * to hold for a store without a `concurrency` hint (local files, memory: windows come through one
   * open, no request crosses a network); the HTTP and S3 stores declare one.
   */
  cheapRanges?: boolean;
}

/**
 * A fetch the reader runs: one or more chunks that one request (or one file read) brings in.
 *
 * @example
 * ```ts
 * for await (const group of layout.plan([0, 1, 2])) console.log(group.indices, (await group.fetch()).length);
 * ```
 */
export interface ChunkFetch {
  /** The chunks it brings, in increasing order. */
  indices: readonly number[];
  /** Runs the fetch. */
  fetch(): Promise<StoredChunk[]>;
}

/**
 * Buffers a reader lends the layout to read into (stores with `getInto`): one is taken per
 * fetch (a chunk file in format 1, a run of slots in format 2) and given back by the reader once
 * it is done with the chunks of that fetch, so that reading many chunks does not allocate (and
 * later collect) one buffer per read.
 *
 * @example
 * ```ts
 * const lent: InputBuffers = { take: () => spare.pop() };
 * for await (const f of layout.plan([0, 1, 2], 4, lent)) await f.fetch();
 * ```
 */
export interface InputBuffers {
  /** A buffer of at least `bytes` bytes (default: a chunk file's) to read the next fetch into, or `undefined` for a new one. */
  take(bytes?: number): Uint8Array | undefined;
  /** A taken buffer's memory now has another `ArrayBuffer` (it was transferred to a thread and back). */
  replace?(before: ArrayBufferLike, after: ArrayBufferLike): void;
  /**
   * Takes back a buffer (or a view of it) that no chunk the fetch returns lies in: the store
   * answered with memory of its own, or the fetch failed and read again.
   */
  giveBack?(buffer: Uint8Array): void;
}

/** How {@link ChunkLayoutWriter.writeChunk} may store a chunk. */
export interface ChunkWriteOptions {
  /** Readers of the committed length see the chunk: replace it atomically and durably. */
  committed: boolean;
  /** Bytes just before the chunk in its buffer that the layout may overwrite (default 0). */
  headroom?: number;
}

/**
 * The checksums single-row reads remember per segment of a checked chunk (see
 * {@link ChunkLayout.segmentSums}).
 *
 * @example
 * ```ts
 * const kind: SegmentSums = "adler32";
 * ```
 */
export type SegmentSums = "adler32" | "crc32";

/**
 * Where a carray's chunks live, for reading.
 *
 * @example
 * ```ts
 * layout.keyOf(70); // "data/__70.blp" (format 1) or "data/__2__.bin" (format 2, S = 64)
 * ```
 */
export interface ChunkLayout {
  /** The format version the layout implements. */
  readonly formatVersion: 1 | 2;
  /** Store key of the file holding chunk `g`. */
  keyOf(g: number): string;
  /**
   * Whether the store reads into lent buffers (`getInto`): readers lend them only then, since a
   * remote store fills arrays of its own and a lent buffer would be allocated for nothing.
   */
  readonly readsInto: boolean;
  /**
   * Whether lent buffers may be slots in the decoder's WebAssembly memory (`ResidentInputs` of
   * @fmt/blosc), and of which kind: `shared: false` when the layout checks what it fetched on this
   * thread; `shared: true` when it hands its fetches to a checksum thread that reads shared memory
   * where it lies (format 2 with a CRC-32 offload that `sharesMemory`); `undefined` when it
   * transfers them to such a thread (an offload that takes only transfers), which a WebAssembly
   * memory cannot be: ordinary buffers then. `slotBytes`: its largest fetch (format 2's runs of
   * slots), when that is more than a chunk file.
   */
  readonly residentInputs: { readonly shared: boolean; readonly slotBytes?: number } | undefined;
  /**
   * Chunk `g`, whole and checked (`MISSING_FILE` when its file is missing). `buffer`: memory the
   * caller lends to read the file or slot into (stores with `getInto`); the chunk returned may
   * be a view of it, valid until the caller reuses the buffer.
   */
  read(g: number, buffer?: Uint8Array): Promise<StoredChunk>;
  /**
   * The fetches that bring chunks `indices` (increasing or not, each once), in the order given:
   * format 1 reads one file per chunk, format 2 joins neighbouring slots of a superchunk into one
   * range request. `ahead`: how many fetches the caller keeps in flight (format 2 loads the
   * indexes of that many superchunks, halved, ahead of the one being planned).
   */
  plan(indices: readonly number[], ahead?: number, inputs?: InputBuffers): AsyncGenerator<ChunkFetch, void, undefined>;
  /** Partial access (format 1 only). */
  readonly partial?: PartialChunkAccess;
  /**
   * Byte ranges of chunk `g`'s Blosc chunk, read as stored and not checked, through one request
   * or open where the store can (format 2: the reader compares them with checksums of a checked
   * read, see checked-ranges.ts); the function resolves to `undefined` for a chunk that is not in
   * a slot of a stored superchunk (a staged, journaled chunk). Absent when whole reads do not
   * check checksums (none stored, or the caller opted out) or this handle writes.
   */
  readonly rawRanges?: ((g: number, windows: readonly { offset: number; length: number }[]) => Promise<Uint8Array[] | undefined>) | undefined;
  /**
   * The checksum a reader remembers for each segment of a checked chunk, to check the
   * {@link rawRanges} it reads again (checked-ranges.ts): the file's own when it is Adler-32,
   * CRC-32 otherwise, so that no segment is checked more weakly than the file checks its chunks.
   */
  readonly segmentSums?: SegmentSums;
  /** Forgets what the layout learnt about files (after a write through another handle). */
  forget(): void;
}

/**
 * Where a carray's chunks live, for writing: the format's write order and commit points (spec
 * v1 §8.5, v2 §13), below the writer's format-independent logic.
 *
 * @example
 * ```ts
 * await layout.writeChunk(4, compressed, { committed: false });
 * await layout.prepareCommit(5 * chunklen);
 * await layout.commitLength([5 * chunklen], cbytes);
 * ```
 */
export interface ChunkLayoutWriter extends ChunkLayout {
  /** The store written to. */
  readonly store: WritableStore;
  /**
   * Stores `chunk` (a compressed Blosc chunk) as chunk `g`. `committed`: readers of the committed
   * length see chunk `g`, so the replacement must be atomic and durable on its own. `headroom`:
   * the caller's buffer has that many bytes just before `chunk` that the layout may write into
   * (format 1 frames the chunk with its 16-byte file header there instead of copying the chunk).
   * The caller reuses `chunk`'s memory once the promise resolves: a layout that keeps the bytes
   * copies them. Several calls may be in flight; a layout whose files depend on the order chunks
   * come in (format 2 places new chunks as they come) takes them in the order of the calls,
   * queued before its first await.
   * A rejected call may take uncommitted chunks written after it down with it (format 2: a
   * streamed superchunk keeps only its slots below the first failed write): the caller rolls its
   * length back to before the failed chunk, as the carray writer does when an operation fails.
   */
  writeChunk(g: number, chunk: Uint8Array, options: ChunkWriteOptions): Promise<void>;
  /**
   * `true` when `writeChunk` of a chunk given with headroom is done with its bytes by the time it
   * returns its promise (format 1 on a store whose `put` writes at once): the chunk may then live
   * in memory that the next call into @fmt/blosc reuses.
   */
  readonly writesAtOnce: boolean;
  /**
   * Replaces several committed chunks all or nothing: stages each, commits through the journal
   * (`.journal`), installs, cleans up.
   */
  writeChunksAtomically(chunks: ReadonlyMap<number, Uint8Array>): Promise<void>;
  /** Before the commit of a grown length: everything that commit makes visible is written and durable. */
  prepareCommit(length: number): Promise<void>;
  /** The commit: the file that records the length (`meta/sizes` with `cbytes` in format 1, `meta/shape` in format 2). */
  commitLength(shape: readonly number[], cbytes: number | bigint): Promise<void>;
  /** After a committed shrink to `length` rows: chunks the length no longer needs are removed (`fileCount`: one past the highest chunk that may exist). */
  dropChunksBeyond(length: number, fileCount: number): Promise<void>;
  /**
   * When the array is opened for writing, before its writer loads the leftover rows: what the
   * layout repairs of an interrupted write (format 2, spec/v2.md §13.1). Format 1 has nothing
   * left to do: `recoverV1` finished its journal in carray-open.ts before the array existed.
   */
  recover(): Promise<void>;
  /** Rewrites files holding dead space (format 2, §13.6); resolves to the bytes reclaimed (format 1 has none: 0). */
  compact(): Promise<number>;
}

/**
 * What a layout knows of the array's shape of chunks.
 *
 * @example
 * ```ts
 * const geometry: LayoutGeometry = { path: "", chunklen: 1024, atomSize: 8, length: () => 5000 };
 * ```
 */
export interface LayoutGeometry {
  /** Store key of the array's directory. */
  path: string;
  /** Rows per chunk. */
  chunklen: number;
  /** Bytes per row. */
  atomSize: number;
  /** The committed length readers use (format 2 derives the required chunks from it). */
  length(): number;
}
