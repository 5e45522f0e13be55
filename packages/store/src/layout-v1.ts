/**
 * Format version 1 below the layout seam: one file `data/__k.blp` per chunk, a 16-byte `blpk`
 * header in front of one Blosc chunk (spec/v1.md §4, §8), `meta/sizes` as the commit, the
 * `.journal` + `data/__k.blp.next` files of a multi-chunk update (§8.5).
 *
 * @example
 * ```ts
 * const layout = new LayoutV1(store, geometry, await readJournal(store, ".journal"));
 * const { chunk } = await layout.read(0);
 * ```
 * @module
 */
import { FormatError } from "@fmt/errors";
import { BLPK_V1_HEADER_SIZE, readBlpkV1Header, writeBlpkV1Header } from "@fmt/header";
import type { ByteRange, ReadableStore, WritableStore } from "@fmt/fs-adapters";
import { encodeMetadata, serializeSizes } from "@fmt/meta";
import { joinKey, pathed } from "./internal.js";
import type { ChunkFetch, ChunkLayoutWriter, ChunkWriteOptions, InputBuffers, LayoutGeometry, PartialChunkAccess, StoredChunk } from "./layout.js";

/** Lent buffers may be slots of the decoder's own (unshared) memory: nothing leaves this thread. */
const ON_THIS_THREAD = { shared: false } as const;

/**
 * Name of the journal file of an interrupted multi-chunk update, in the dataset root. While it
 * exists, chunk `k` listed in it is read from `data/__k.blp.next` when that file exists.
 *
 * @example
 * ```ts
 * await store.get(`prices.bcolz/${JOURNAL_FILE}`); // undefined unless a writer was interrupted
 * ```
 */
export const JOURNAL_FILE = ".journal";

const BLPK_HEADER = writeBlpkV1Header();

/**
 * Reads the journal of an interrupted format-1 update: the set of chunk numbers it lists, or
 * `undefined` when there is none. A malformed journal is `FormatError` `BAD_METADATA`.
 *
 * @example
 * ```ts
 * const pending = await readJournal(store, "prices.bcolz/.journal"); // Set {3, 4} or undefined
 * ```
 */
export async function readJournal(store: ReadableStore, key: string): Promise<Set<number> | undefined> {
  const bytes = await store.get(key);
  if (bytes === undefined) return undefined;
  let doc: unknown;
  try {
    doc = JSON.parse(new TextDecoder().decode(bytes));
  } catch (cause) {
    throw new FormatError("BAD_JSON", "the journal of an interrupted update is not JSON", { path: key, field: "text", cause });
  }
  const chunks = (doc as { chunks?: unknown } | null)?.chunks;
  if (!Array.isArray(chunks) || !chunks.every((k) => Number.isSafeInteger(k) && (k as number) >= 0)) {
    throw new FormatError("BAD_METADATA", "journal must be {\"chunks\": [non-negative integers]}", { path: key, field: "chunks", actual: chunks });
  }
  return new Set(chunks as number[]);
}

/**
 * A chunk file's bytes, the 16-byte blpk v1 header and one Blosc chunk, laid out in `room` (which
 * must hold them) or in a new array.
 *
 * @example
 * ```ts
 * await store.put("data/__0.blp", chunkFile(compressed));
 * ```
 */
export function chunkFile(chunk: Uint8Array, room: Uint8Array = new Uint8Array(BLPK_V1_HEADER_SIZE + chunk.length)): Uint8Array {
  const file = room.subarray(0, BLPK_V1_HEADER_SIZE + chunk.length);
  file.set(BLPK_HEADER);
  file.set(chunk, BLPK_V1_HEADER_SIZE);
  return file;
}

/** The Blosc chunk inside a chunk file, after checking its container header. */
function unwrap(file: Uint8Array, key: string, index: number): StoredChunk {
  checkContainerHeader(file, key);
  return { index, key, chunk: file.subarray(BLPK_V1_HEADER_SIZE) };
}

/**
 * Checks a chunk file's container header (errors name `key`). A try statement, not `withPath`'s
 * closure: this runs for every chunk read (see `pathed`).
 */
function checkContainerHeader(file: Uint8Array, key: string): void {
  try {
    readBlpkV1Header(file, key);
  } catch (error) {
    throw pathed(error, key);
  }
}

/**
 * The fetch of one chunk file, read into a buffer `inputs` lends where it has one. A class, not an
 * object with a closure made per chunk: V8 optimized such closures again after every garbage
 * collection (see `pathed`).
 *
 * @example
 * ```ts
 * const [stored] = await new FileFetch(layout, 3, undefined).fetch();
 * ```
 */
class FileFetch implements ChunkFetch {
  readonly indices: readonly number[];
  readonly #layout: LayoutV1;
  readonly #index: number;
  readonly #inputs: InputBuffers | undefined;

  constructor(layout: LayoutV1, index: number, inputs: InputBuffers | undefined) {
    this.indices = [index];
    this.#layout = layout;
    this.#index = index;
    this.#inputs = inputs;
  }

  async fetch(): Promise<StoredChunk[]> {
    const inputs = this.#inputs;
    const buffer = inputs?.take();
    let stored: StoredChunk | undefined;
    try {
      stored = await this.#layout.read(this.#index, buffer);
      return [stored];
    } finally {
      // A store that answered with memory of its own (or a failed read) leaves the buffer unused.
      if (buffer !== undefined && stored?.chunk.buffer !== buffer.buffer) inputs?.giveBack?.(buffer);
    }
  }
}

/**
 * Finishes an interrupted journaled update of the format-1 carray at `base` (roll forward), then
 * removes the journal and any staged `data/__k.blp.next` file no journal lists (on stores that can
 * list). Needs the dataset's lock.
 *
 * @example
 * ```ts
 * await recoverV1(store, "prices.bcolz");
 * ```
 */
export async function recoverV1(store: WritableStore, base: string): Promise<void> {
  const journalKey = joinKey(base, JOURNAL_FILE);
  const chunks = await readJournal(store, journalKey);
  if (chunks !== undefined) await rollForward(store, base, journalKey, chunks);
  // Staged chunks of an update killed before its journal was written were never committed:
  // readers ignore them; the writer removes them (spec/v1.md §8.5, like v2 §13.1).
  if (store.list !== undefined) {
    const prefix = joinKey(base, "data/");
    for (const key of await store.list(prefix)) if (/^__\d+\.blp\.next$/.test(key.slice(prefix.length))) await store.delete(key);
  }
}

/** Chunks whose keys a layout remembers (`keyOf`): about 200 KiB of strings at most. */
const KNOWN_KEYS = 4096;

/** Whether `last`'s windows are still those of `pieces` (a caller may have changed them in place). */
function sameWindows(last: { checkContainer: boolean; windows: readonly ByteRange[] }, pieces: readonly { offset: number; length: number }[]): boolean {
  const skip = last.checkContainer ? 1 : 0;
  if (last.windows.length !== pieces.length + skip) return false;
  for (let i = 0; i < pieces.length; i++) {
    const window = last.windows[i + skip] as { offset: number; length: number };
    if (window.offset !== BLPK_V1_HEADER_SIZE + pieces[i]!.offset || window.length !== pieces[i]!.length) return false;
  }
  return true;
}

/** Whether `lent` is still `into` behind the container header's empty slot. */
function sameLent(lent: readonly (Uint8Array | undefined)[], into: readonly (Uint8Array | undefined)[]): boolean {
  if (lent.length !== into.length + 1) return false;
  for (let i = 0; i < into.length; i++) if (lent[i + 1] !== into[i]) return false;
  return true;
}

async function rollForward(store: WritableStore, base: string, journalKey: string, chunks: Set<number>): Promise<void> {
  for (const k of chunks) {
    const key = joinKey(base, `data/__${k}.blp`);
    const next = await store.get(`${key}.next`);
    if (next !== undefined) await store.put(key, next, { durable: false });
  }
  // The installed chunks are durable before their staged copies and the journal go.
  await store.sync?.();
  for (const k of chunks) await store.delete(joinKey(base, `data/__${k}.blp.next`));
  await store.delete(journalKey);
}

/**
 * The format-1 layout. Reading needs only a {@link ReadableStore}; the write methods need the
 * store to be writable (the array only calls them when it was opened for writing).
 *
 * @example
 * ```ts
 * const layout = new LayoutV1(store, { path: "", chunklen: 1024, atomSize: 8, length: () => n }, undefined);
 * ```
 */
export class LayoutV1 implements ChunkLayoutWriter {
  readonly formatVersion = 1 as const;
  readonly #store: ReadableStore;
  readonly #geometry: LayoutGeometry;
  readonly #journal: ReadonlySet<number>;
  /** Chunk files laid out for a put, reused once it resolved (a store keeps its own copy). */
  readonly #spareFiles: Uint8Array[] = [];
  readonly partial: PartialChunkAccess;
  /** Keys of chunks below {@link KNOWN_KEYS}, as {@link keyOf} made them. */
  readonly #keys: string[] = [];
  /** The windows of the pieces asked for last (see {@link #windowsOf}). */
  #lastWindows: { pieces: readonly { offset: number; length: number }[]; checkContainer: boolean; windows: readonly ByteRange[] } | undefined;
  /** The buffers lent last, behind the container header's slot (see {@link #lentWithHead}). */
  #lastLent: { into: readonly (Uint8Array | undefined)[]; lent: readonly (Uint8Array | undefined)[] } | undefined;

  constructor(store: ReadableStore, geometry: LayoutGeometry, journal: ReadonlySet<number> | undefined) {
    this.#store = store;
    this.#geometry = geometry;
    this.#journal = journal ?? new Set();
    this.partial = {
      head: async (g, length) => {
        const key = this.keyOf(g);
        if (this.#journal.has(g)) return { bytes: new Uint8Array(0), whole: await this.read(g) };
        const bytes = await this.#range(key, 0, length);
        if (bytes.length < length) return { bytes, whole: unwrap(bytes, key, g) };
        checkContainerHeader(bytes, key);
        return { bytes: bytes.subarray(BLPK_V1_HEADER_SIZE) };
      },
      range: (g, offset, length) => this.#range(this.keyOf(g), BLPK_V1_HEADER_SIZE + offset, length),
    };
    const getRanges = store.getRanges?.bind(store);
    if (getRanges !== undefined) {
      this.partial.ranges = async (g, pieces, checkContainer = false, into = undefined) => {
        // A journaled chunk is read whole (from its staged file), as head() does.
        if (this.#journal.has(g)) return undefined;
        const key = this.keyOf(g);
        const windows = this.#windowsOf(pieces, checkContainer);
        const got = await getRanges(key, windows, into === undefined || !checkContainer ? into : this.#lentWithHead(into));
        if (got === undefined) throw new FormatError("MISSING_FILE", "chunk file is missing", { path: key, field: "file" });
        if (!checkContainer) return got;
        // The container header leaves the front of the answer (an array of its own) in place.
        checkContainerHeader(got.shift()!, key);
        return got;
      };
      this.partial.cheapRanges = store.concurrency === undefined;
    }
  }

  /**
   * The file windows of `pieces` (chunk offsets) behind the container header, with the header's
   * own window first when it is checked. A `where` pass asks for the same pieces for each of its
   * chunk files: the last answer is kept, so that its files cost no new objects here (each
   * chunk's allocations in a young process are fresh pages of V8's new space: see
   * tools/bench/README.md).
   */
  #windowsOf(pieces: readonly { offset: number; length: number }[], checkContainer: boolean): readonly ByteRange[] {
    const last = this.#lastWindows;
    if (last !== undefined && last.pieces === pieces && last.checkContainer === checkContainer && sameWindows(last, pieces)) return last.windows;
    const windows: ByteRange[] = checkContainer ? [{ offset: 0, length: BLPK_V1_HEADER_SIZE }] : [];
    // A loop, no closure: this runs for every chunk of a `where` pass (see `pathed`).
    for (const p of pieces) windows.push({ offset: BLPK_V1_HEADER_SIZE + p.offset, length: p.length });
    this.#lastWindows = { pieces, checkContainer, windows };
    return windows;
  }

  /** `into` behind a slot for the container header (which is not lent a buffer), kept as {@link #windowsOf} keeps its windows. */
  #lentWithHead(into: readonly (Uint8Array | undefined)[]): readonly (Uint8Array | undefined)[] {
    const last = this.#lastLent;
    if (last !== undefined && last.into === into && sameLent(last.lent, into)) return last.lent;
    const lent = [undefined, ...into];
    this.#lastLent = { into, lent };
    return lent;
  }

  get readsInto(): boolean {
    return this.#store.getInto !== undefined;
  }

  /** Chunk files are read, checked and decoded on this thread. */
  get residentInputs(): { readonly shared: boolean } {
    return ON_THIS_THREAD;
  }

  get store(): WritableStore {
    return this.#store as WritableStore;
  }

  /** writeChunk with headroom calls `put` before its first await: as the store's `putsAtOnce` says. */
  get writesAtOnce(): boolean {
    return (this.#store as Partial<WritableStore>).putsAtOnce === true;
  }

  keyOf(g: number): string {
    // Remembered for the first chunks: a `where` pass asks for each chunk's key more than once.
    if (g >= KNOWN_KEYS) return joinKey(this.#geometry.path, `data/__${g}.blp`);
    return (this.#keys[g] ??= joinKey(this.#geometry.path, `data/__${g}.blp`));
  }

  async read(g: number, buffer?: Uint8Array): Promise<StoredChunk> {
    const key = this.keyOf(g);
    let file: Uint8Array | undefined;
    if (this.#journal.has(g)) file = await this.#get(`${key}.next`, buffer);
    file ??= await this.#get(key, buffer);
    if (file === undefined) throw new FormatError("MISSING_FILE", `chunk file ${g} is missing`, { path: key, field: "file" });
    return unwrap(file, key, g);
  }

  /** The file at `key`, read into `buffer` where the store can. */
  #get(key: string, buffer: Uint8Array | undefined): Promise<Uint8Array | undefined> {
    const store = this.#store;
    return buffer !== undefined && store.getInto !== undefined ? store.getInto(key, buffer) : store.get(key);
  }

  async *plan(indices: readonly number[], _ahead?: number, inputs?: InputBuffers): AsyncGenerator<ChunkFetch, void, undefined> {
    for (const g of indices) yield new FileFetch(this, g, inputs);
  }

  forget(): void {}

  async #range(key: string, offset: number, length: number): Promise<Uint8Array> {
    const store = this.#store;
    const bytes = store.getRange === undefined ? (await store.get(key))?.subarray(offset, offset + length) : await store.getRange(key, { offset, length });
    if (bytes === undefined) throw new FormatError("MISSING_FILE", "chunk file is missing", { path: key, field: "file" });
    return bytes;
  }

  async writeChunk(g: number, chunk: Uint8Array, options: ChunkWriteOptions): Promise<void> {
    // A chunk no committed length reaches is read by nobody until the next commit: written in
    // place where the store can (no temporary file and rename per chunk of a create).
    const put = { durable: options.committed, unreferenced: !options.committed };
    if ((options.headroom ?? 0) >= BLPK_V1_HEADER_SIZE) {
      // The file header goes into the caller's room before the chunk: no copy of the chunk.
      const file = new Uint8Array(chunk.buffer, chunk.byteOffset - BLPK_V1_HEADER_SIZE, BLPK_V1_HEADER_SIZE + chunk.length);
      file.set(BLPK_HEADER);
      await this.store.put(this.keyOf(g), file, put);
      return;
    }
    const maxFile = BLPK_V1_HEADER_SIZE + this.#geometry.chunklen * this.#geometry.atomSize + 16;
    const fits = BLPK_V1_HEADER_SIZE + chunk.length <= maxFile;
    const room = fits ? (this.#spareFiles.pop() ?? new Uint8Array(maxFile)) : undefined;
    try {
      await this.store.put(this.keyOf(g), chunkFile(chunk, room), put);
    } finally {
      if (room !== undefined && this.#spareFiles.length < 8) this.#spareFiles.push(room);
    }
  }

  /**
   * Stages `data/__k.blp.next` files, commits through the journal (the staged files are made
   * durable just before it), installs them, makes the installed chunks durable, then removes
   * the staged copies and the journal.
   */
  async writeChunksAtomically(chunks: ReadonlyMap<number, Uint8Array>): Promise<void> {
    const store = this.store;
    const files = new Map<number, Uint8Array>();
    for (const [g, chunk] of chunks) {
      const file = chunkFile(chunk);
      files.set(g, file);
      await store.put(`${this.keyOf(g)}.next`, file, { durable: false });
    }
    const journalKey = joinKey(this.#geometry.path, JOURNAL_FILE);
    await store.sync?.();
    await store.put(journalKey, new TextEncoder().encode(`${JSON.stringify({ format: 1, chunks: [...files.keys()] })}\n`));
    for (const [g, file] of files) await store.put(this.keyOf(g), file, { durable: false });
    await store.sync?.();
    for (const g of files.keys()) await store.delete(`${this.keyOf(g)}.next`);
    await store.delete(journalKey);
  }

  async prepareCommit(): Promise<void> {
    await this.store.sync?.();
  }

  async commitLength(shape: readonly number[], cbytes: number | bigint): Promise<void> {
    // bcolz's formula for cbytes: compressed full chunks plus the leftover buffer at its full size.
    const text = serializeSizes({ shape: [...shape], nbytes: shape[0]! * this.#geometry.atomSize, cbytes });
    await this.store.put(joinKey(this.#geometry.path, "meta/sizes"), encodeMetadata(text));
  }

  async dropChunksBeyond(length: number, fileCount: number): Promise<void> {
    for (let k = Math.ceil(length / this.#geometry.chunklen); k < fileCount; k++) await this.store.delete(this.keyOf(k));
  }

  /** Nothing to do: `recoverV1` finished the journal before the array was opened. */
  async recover(): Promise<void> {}

  /** A chunk file per chunk leaves no dead space: 0. */
  async compact(): Promise<number> {
    return 0;
  }
}
