import { FormatError, UsageError } from "@fmt/errors";
import { compress } from "@fmt/blosc";
import { BLPK_V1_HEADER_SIZE, writeBlpkV1Header } from "@fmt/header";
import type { ReadableStore, WritableStore } from "@fmt/fs-adapters";
import { createJsonObject, encodeMetadata, jsonObjectKeys, serializeAttrs, serializeSizes } from "@fmt/meta";
import type { JsonObject, JsonValue } from "@fmt/meta";
import type { CArray, Selector, SliceSelector } from "./carray.js";
import { encodeFill, isBlock, isRawRows } from "./carray-encode.js";
import type { ArrayInput, ElementInput, RawRows, ValuesBlock } from "./carray-encode.js";
import { collectRows, rowBlocks } from "./carray-input.js";
import { checkInteger, joinKey, normalizeSlice } from "./internal.js";
import { MAX_RESIZE_BYTES } from "./limits.js";
import type { DatasetLock } from "./lock.js";

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

/** What a loaded chunk looks like to the writer (the reader's internal record). @internal */
export interface WriterChunk {
  rows: number;
  decoded?: Uint8Array;
}

/** Privileged access the writer needs to its CArray. @internal */
export interface WriterHooks {
  setLength(n: number): void;
  loadChunk(index: number): Promise<WriterChunk & object>;
  decodeRows(loaded: never, from: number, to: number): Uint8Array;
}

/**
 * Reads the journal of an interrupted update: the set of chunk numbers it lists, or `undefined`
 * when there is none. A malformed journal is `FormatError` `BAD_METADATA`.
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
 * What an {@link AttrStore} needs from the dataset that owns it: a way to replace `__attrs__`.
 * A carray's writer and a ctable both provide it.
 *
 * @example
 * ```ts
 * const writer: AttrsWriter = { writeAttrs: async (value) => store.put("__attrs__", encodeMetadata(serializeAttrs(value))) };
 * ```
 */
export interface AttrsWriter {
  /** Replace the attributes file with `value`, atomically. */
  writeAttrs(value: JsonObject): Promise<void>;
}

/**
 * The user attributes of a carray (its `__attrs__` file). Reading works on every array;
 * `set`/`delete` rewrite `__attrs__` at once and need an array open for writing (else
 * `UsageError` `READ_ONLY`). `toJSON()`/`valueOf()` give a plain ordered object.
 *
 * @example
 * ```ts
 * await a.attrs.set("units", "m/s");
 * a.attrs.get("units");   // "m/s"
 * a.attrs.keys();         // ["units"]
 * await a.attrs.delete("units");
 * ```
 */
export class AttrStore {
  #data: JsonObject;
  readonly #path: string;
  readonly #writer: () => AttrsWriter | undefined;

  /** @internal */
  constructor(initial: { [key: string]: JsonValue }, path: string, writer: () => AttrsWriter | undefined) {
    this.#data = initial as JsonObject;
    this.#path = path;
    this.#writer = writer;
  }

  /**
   * The value of attribute `key`, or `undefined`.
   *
   * @example
   * ```ts
   * a.attrs.get("units");
   * ```
   */
  get(key: string): JsonValue | undefined {
    return Object.prototype.hasOwnProperty.call(this.#data, key) ? this.#data[key] : undefined;
  }

  /**
   * Whether attribute `key` exists.
   *
   * @example
   * ```ts
   * a.attrs.has("units");
   * ```
   */
  has(key: string): boolean {
    return Object.prototype.hasOwnProperty.call(this.#data, key);
  }

  /**
   * Attribute names in file order.
   *
   * @example
   * ```ts
   * for (const k of a.attrs.keys()) console.log(k, a.attrs.get(k));
   * ```
   */
  keys(): string[] {
    return jsonObjectKeys(this.#data);
  }

  /**
   * Sets attribute `key` (kept in insertion order) and rewrites `__attrs__`.
   *
   * @example
   * ```ts
   * await a.attrs.set("scale", pyFloat(0.5));
   * ```
   */
  async set(key: string, value: JsonValue): Promise<void> {
    if (typeof key !== "string") throw new UsageError("INVALID_ARGUMENT", "attribute names are strings", { path: this.#path, field: "key", actual: key });
    const writer = this.#require();
    const next = createJsonObject([...this.keys().map((k) => [k, this.#data[k]!] as [string, JsonValue]), [key, value]]);
    await writer.writeAttrs(next);
    this.#data = next;
  }

  /**
   * Removes attribute `key` (no error if absent) and rewrites `__attrs__`.
   *
   * @example
   * ```ts
   * await a.attrs.delete("scale");
   * ```
   */
  async delete(key: string): Promise<void> {
    const writer = this.#require();
    const next = createJsonObject(this.keys().filter((k) => k !== key).map((k) => [k, this.#data[k]!] as [string, JsonValue]));
    await writer.writeAttrs(next);
    this.#data = next;
  }

  /**
   * The attributes as a plain ordered JSON object (what `__attrs__` holds).
   *
   * @example
   * ```ts
   * JSON.stringify(a.attrs); // uses toJSON
   * ```
   */
  toJSON(): JsonObject {
    return this.#data;
  }

  /**
   * Same as {@link AttrStore.toJSON}.
   *
   * @example
   * ```ts
   * const plain = a.attrs.valueOf();
   * ```
   */
  valueOf(): JsonObject {
    return this.#data;
  }

  #require(): AttrsWriter {
    const writer = this.#writer();
    if (writer === undefined) throw new UsageError("READ_ONLY", "attributes of a read-only array cannot change", { path: this.#path, field: "mode", expected: "a", actual: "r" });
    return writer;
  }
}

interface SelectionEntry {
  row: number;
  /** Index of the row's values in the encoded value buffer (-1: broadcast). */
  value: number;
}

/**
 * The write side of an open {@link CArray}: the in-memory leftover chunk, chunk compression,
 * the write order that keeps the dataset readable at every moment, and the lock. @internal
 */
export class CarrayWriter {
  readonly #array: CArray;
  readonly #store: WritableStore;
  readonly #lock: DatasetLock;
  readonly #hooks: WriterHooks;
  /** Length recorded in `meta/sizes` on disk. */
  #committed: number;
  /** Rows of the leftover chunk `[nchunks·chunklen, length)`, in a buffer of chunksize bytes. */
  #leftover: Uint8Array;
  /** Whether the leftover in memory differs from its file. */
  #leftoverDirty = false;
  #sizesDirty = false;
  #cbytes: number | bigint;
  /** One past the highest chunk file number that may exist. */
  #fileCount: number;

  constructor(array: CArray, store: WritableStore, lock: DatasetLock, cbytes: number | bigint, hooks: WriterHooks) {
    this.#array = array;
    this.#store = store;
    this.#lock = lock;
    this.#hooks = hooks;
    this.#committed = array.length;
    this.#cbytes = cbytes;
    this.#leftover = new Uint8Array(0);
    this.#fileCount = Math.ceil(array.length / array.chunklen);
  }

  /** Finishes an interrupted journaled update (roll forward), then removes the journal. */
  static async recover(store: WritableStore, base: string): Promise<void> {
    const journalKey = joinKey(base, JOURNAL_FILE);
    const chunks = await readJournal(store, journalKey);
    if (chunks === undefined) return;
    for (const k of chunks) {
      const key = joinKey(base, `data/__${k}.blp`);
      const next = await store.get(`${key}.next`);
      if (next !== undefined) await store.put(key, next);
    }
    for (const k of chunks) await store.delete(joinKey(base, `data/__${k}.blp.next`));
    await store.delete(journalKey);
  }

  get #chunksize(): number {
    return this.#array.chunklen * this.#array.atomSize;
  }

  /** The leftover rows in memory (`undefined` before {@link CarrayWriter.loadLeftover}). */
  leftoverBytes(): Uint8Array | undefined {
    if (this.#leftover.length === 0 && this.#array.leftoverRows > 0) return undefined;
    return this.#leftover.subarray(0, this.#array.leftoverRows * this.#array.atomSize);
  }

  /** Reads the leftover chunk file into memory (it may hold more rows than needed: then it is rewritten at the next flush). */
  async loadLeftover(): Promise<void> {
    const a = this.#array;
    const rows = a.leftoverRows;
    this.#leftover = new Uint8Array(0);
    if (rows > 0) {
      const loaded = await this.#hooks.loadChunk(a.nchunks);
      const bytes = this.#hooks.decodeRows(loaded as never, 0, rows);
      const stored = (loaded as { storedNbytes?: number }).storedNbytes;
      if (stored !== undefined && stored !== rows * a.atomSize) this.#leftoverDirty = true;
      this.#leftover = new Uint8Array(this.#chunksize);
      this.#leftover.set(bytes);
      return;
    }
    this.#leftover = new Uint8Array(this.#chunksize);
  }



  #ensureBuffer(): void {
    if (this.#leftover.length !== this.#chunksize) {
      const next = new Uint8Array(this.#chunksize);
      next.set(this.#leftover.subarray(0, Math.min(this.#leftover.length, next.length)));
      this.#leftover = next;
    }
  }

  /** The bytes of a chunk file: the 16-byte blpk v1 header and one Blosc chunk. */
  encodeChunkFile(rows: Uint8Array): { file: Uint8Array; cbytes: number } {
    const a = this.#array;
    const chunk = compress(rows, { typesize: a.dtype.bloscTypesize, clevel: a.cparams.clevel, shuffle: a.cparams.shuffle, cname: a.cparams.cname });
    const file = new Uint8Array(BLPK_V1_HEADER_SIZE + chunk.length);
    file.set(writeBlpkV1Header());
    file.set(chunk, BLPK_V1_HEADER_SIZE);
    return { file, cbytes: chunk.length };
  }

  async #putChunk(index: number, rows: Uint8Array, key = this.#array.chunkKey(index)): Promise<number> {
    const { file, cbytes } = this.encodeChunkFile(rows);
    await this.#store.put(key, file);
    this.#fileCount = Math.max(this.#fileCount, index + 1);
    return cbytes;
  }

  #addCbytes(delta: number): void {
    this.#cbytes = typeof this.#cbytes === "bigint" ? this.#cbytes + BigInt(delta) : this.#cbytes + delta;
  }

  async append(values: ArrayInput): Promise<void> {
    this.#lock.assertHeld(this.#array.path);
    const a = this.#array;
    // All or nothing: every element is converted and checked (and an iterable drained) before the
    // first row reaches the array, so a bad value anywhere leaves the length and files unchanged.
    const bytes = await collectRows(values, a.dtype, a.itemsPerRow, a.cparams.quantize);
    await this.appendBytes(bytes);
  }

  /** Appends rows given as bytes in the dtype layout (length a multiple of atomSize). */
  async appendBytes(bytes: Uint8Array): Promise<void> {
    const a = this.#array;
    const atom = a.atomSize;
    const chunksize = this.#chunksize;
    this.#ensureBuffer();
    let off = 0;
    while (off < bytes.length) {
      const rest = a.leftoverRows;
      const index = a.nchunks;
      if (rest === 0 && bytes.length - off >= chunksize) {
        // A whole chunk straight from the input: it lies beyond the committed rows (or replaces a stale file).
        this.#addCbytes(await this.#putChunk(index, bytes.subarray(off, off + chunksize)));
        off += chunksize;
        this.#setLength(a.length + a.chunklen);
        continue;
      }
      const take = Math.min(chunksize - rest * atom, bytes.length - off);
      this.#leftover.set(bytes.subarray(off, off + take), rest * atom);
      off += take;
      const filled = rest + take / atom;
      if (filled === a.chunklen) {
        // The leftover became full: its file (whose committed rows are unchanged) is replaced by
        // the full chunk before meta/sizes changes; readers of the old length use its first rows.
        this.#addCbytes(await this.#putChunk(index, this.#leftover));
        this.#leftoverDirty = false;
      } else {
        this.#leftoverDirty = true;
      }
      this.#setLength(a.length + take / atom);
    }
  }

  #setLength(n: number): void {
    this.#hooks.setLength(n);
    this.#sizesDirty = true;
  }

  /** Writes the leftover and meta/sizes in the order that keeps the old or the new length readable. */
  async flush(): Promise<void> {
    const a = this.#array;
    if (!this.#sizesDirty && !this.#leftoverDirty && a.length === this.#committed) return;
    const n = a.length;
    const writeLeftover = async (): Promise<void> => {
      if (a.leftoverRows > 0 && this.#leftoverDirty) await this.#putChunk(a.nchunks, this.#leftover.subarray(0, a.leftoverRows * a.atomSize));
      this.#leftoverDirty = false;
    };
    if (n >= this.#committed) {
      await writeLeftover();
      await this.#writeSizes();
    } else {
      // Shrinking: the new length first; the chunk that becomes the leftover still holds at least
      // the new number of rows, which readers accept. Then the exact leftover, then cleanup.
      await this.#writeSizes();
      await writeLeftover();
    }
    this.#committed = n;
    this.#sizesDirty = false;
    const needed = Math.ceil(n / a.chunklen);
    for (let k = needed; k < this.#fileCount; k++) await this.#store.delete(a.chunkKey(k));
    this.#fileCount = needed;
  }

  async #writeSizes(): Promise<void> {
    const a = this.#array;
    // bcolz's formula: compressed full chunks plus the leftover buffer at its full size.
    const text = serializeSizes({ shape: [...a.shape], nbytes: a.nbytes, cbytes: this.#cbytes });
    await this.#store.put(joinKey(a.path, "meta/sizes"), encodeMetadata(text));
  }

  /** The cbytes figure meta/sizes will get (bcolz's informational estimate). */
  get cbytes(): number | bigint {
    return this.#cbytes;
  }

  async writeAttrs(attrs: JsonObject): Promise<void> {
    this.#lock.assertHeld(this.#array.path);
    await this.#store.put(joinKey(this.#array.path, "__attrs__"), encodeMetadata(serializeAttrs(attrs)));
  }

  async resize(n: number): Promise<void> {
    this.#lock.assertHeld(this.#array.path);
    const a = this.#array;
    checkInteger(n, "n");
    if (n < 0) throw new UsageError("OUT_OF_RANGE", "length cannot be negative", { path: a.path, field: "n", expected: ">= 0", actual: n });
    if (n > a.length && n * a.atomSize > MAX_RESIZE_BYTES) {
      throw new UsageError("SIZE_LIMIT", `resize would grow the array to ${n * a.atomSize} bytes, more than MAX_RESIZE_BYTES (${MAX_RESIZE_BYTES})`, {
        path: a.path,
        field: "n",
        expected: `n x ${a.atomSize} <= ${MAX_RESIZE_BYTES}`,
        actual: n,
      });
    }
    if (n > a.length) {
      const fill = encodeFill(a.dtype, a.dflt);
      const rowsPerBlock = Math.max(1, a.chunklen);
      const row = new Uint8Array(a.atomSize);
      for (let i = 0; i < a.itemsPerRow; i++) row.set(fill, i * fill.length);
      const block = new Uint8Array(rowsPerBlock * a.atomSize);
      for (let r = 0; r < rowsPerBlock; r++) block.set(row, r * a.atomSize);
      let remaining = n - a.length;
      while (remaining > 0) {
        const rows = Math.min(remaining, rowsPerBlock);
        await this.appendBytes(block.subarray(0, rows * a.atomSize));
        remaining -= rows;
      }
    } else if (n < a.length) {
      const newFull = Math.floor(n / a.chunklen);
      const rest = n % a.chunklen;
      this.#ensureBuffer();
      if (newFull < a.nchunks && rest > 0) {
        const loaded = await this.#hooks.loadChunk(newFull);
        this.#leftover.set(this.#hooks.decodeRows(loaded as never, 0, rest));
      }
      this.#leftoverDirty = rest > 0;
      this.#setLength(n);
    }
    await this.flush();
  }

  /** Row numbers selected by `selector`, sorted, with the index of each row's values. */
  #select(selector: Selector): { entries: SelectionEntry[]; count: number } {
    const a = this.#array;
    const n = a.length;
    const checkRow = (r: unknown, field: string): number => {
      if (typeof r !== "number" || !Number.isSafeInteger(r)) throw new UsageError("INVALID_ARGUMENT", "row indices must be integers", { path: a.path, field, actual: r });
      const i = r < 0 ? r + n : r;
      if (i < 0 || i >= n) throw new UsageError("OUT_OF_RANGE", "row index out of range", { path: a.path, field, expected: `-${n} <= index < ${n}`, actual: r });
      return i;
    };
    if (typeof selector === "number") return { entries: [{ row: checkRow(selector, "index"), value: 0 }], count: 1 };
    if (typeof selector !== "object" || selector === null) throw new UsageError("INVALID_ARGUMENT", "unsupported selector", { path: a.path, field: "selector", actual: typeof selector });
    if (!("length" in selector)) {
      const sl = selector as SliceSelector;
      const s = normalizeSlice(n, sl.start, sl.stop, sl.step);
      const entries: SelectionEntry[] = [];
      for (let r = s.start, i = 0; r < s.stop; r += s.step, i++) entries.push({ row: r, value: i });
      return { entries, count: entries.length };
    }
    const list = selector as ArrayLike<number | boolean>;
    if (list.length > 0 && typeof list[0] === "boolean") {
      if (list.length !== n) throw new UsageError("INVALID_ARGUMENT", "a boolean mask must have one entry per row", { path: a.path, field: "mask", expected: n, actual: list.length });
      const entries: SelectionEntry[] = [];
      for (let r = 0; r < n; r++) {
        const m = list[r];
        if (typeof m !== "boolean") throw new UsageError("INVALID_ARGUMENT", "a mask holds only booleans", { path: a.path, field: `mask[${r}]`, actual: m });
        if (m) entries.push({ row: r, value: entries.length });
      }
      return { entries, count: entries.length };
    }
    // Index list: numpy semantics, the last assignment to a row wins.
    const byRow = new Map<number, number>();
    for (let i = 0; i < list.length; i++) byRow.set(checkRow(list[i], `indices[${i}]`), i);
    const entries = [...byRow.entries()].map(([row, value]) => ({ row, value })).sort((x, y) => x.row - y.row);
    return { entries, count: list.length };
  }

  async set(selector: Selector, values: ElementInput | ValuesBlock | RawRows): Promise<void> {
    this.#lock.assertHeld(this.#array.path);
    const a = this.#array;
    const atom = a.atomSize;
    const { entries, count } = this.#select(selector);
    // Encode the values: one element, one row, or count rows.
    let encoded = new Uint8Array(0);
    const input: ArrayInput = isBlock(values, a.dtype) ? (values as ValuesBlock | RawRows) : [values as ElementInput];
    for await (const part of rowBlocks(input, a.dtype, 1, a.cparams.quantize)) {
      const joined = new Uint8Array(encoded.length + part.length);
      joined.set(encoded);
      joined.set(part, encoded.length);
      encoded = joined;
    }
    const elements = encoded.length / a.dtype.itemsize;
    let rowBytes: (value: number) => Uint8Array;
    if (elements === 1 && !(isRawRows(values) && a.itemsPerRow !== 1)) {
      const row = new Uint8Array(atom);
      for (let i = 0; i < a.itemsPerRow; i++) row.set(encoded, i * a.dtype.itemsize);
      rowBytes = () => row;
    } else if (elements === a.itemsPerRow && count !== 1) {
      rowBytes = () => encoded;
    } else if (elements === count * a.itemsPerRow) {
      rowBytes = (v) => encoded.subarray(v * atom, (v + 1) * atom);
    } else {
      throw new UsageError("INVALID_ARGUMENT", "the number of values does not match the selection", {
        path: a.path,
        field: "values",
        expected: `1, ${a.itemsPerRow} or ${count * a.itemsPerRow} elements`,
        actual: elements,
      });
    }
    if (entries.length === 0) return;

    // Group by chunk.
    const groups = new Map<number, SelectionEntry[]>();
    for (const e of entries) {
      const k = Math.floor(e.row / a.chunklen);
      let g = groups.get(k);
      if (g === undefined) groups.set(k, (g = []));
      g.push(e);
    }
    const leftoverIndex = a.nchunks;
    const touchesCommitted = (g: SelectionEntry[]): boolean => g.some((e) => e.row < this.#committed);
    const committedChunks = [...groups.entries()].filter(([, g]) => touchesCommitted(g)).map(([k]) => k);
    const journaled = committedChunks.length >= 2;
    const staged: number[] = [];

    for (const [k, g] of groups) {
      const first = k * a.chunklen;
      if (k === leftoverIndex) {
        this.#ensureBuffer();
        for (const e of g) this.#leftover.set(rowBytes(e.value), (e.row - first) * atom);
        this.#leftoverDirty = true;
        if (touchesCommitted(g)) {
          const rows = this.#leftover.subarray(0, a.leftoverRows * atom);
          if (journaled) {
            await this.#putChunk(k, rows, `${a.chunkKey(k)}.next`);
            staged.push(k);
          } else {
            // One file changes: the atomic replace is enough. Rows beyond the committed length
            // ride along; readers of the committed length ignore them.
            await this.#putChunk(k, rows);
          }
          this.#leftoverDirty = a.length !== this.#committed;
        }
        continue;
      }
      const loaded = await this.#hooks.loadChunk(k);
      const rows = this.#hooks.decodeRows(loaded as never, 0, a.chunklen);
      for (const e of g) rows.set(rowBytes(e.value), (e.row - first) * atom);
      if (journaled && touchesCommitted(g)) {
        await this.#putChunk(k, rows, `${a.chunkKey(k)}.next`);
        staged.push(k);
      } else {
        await this.#putChunk(k, rows);
      }
    }
    if (staged.length > 0) await this.#install(staged);
  }

  /** Commits staged `.next` chunk files through the journal, installs them, and cleans up. */
  async #install(chunks: number[]): Promise<void> {
    const a = this.#array;
    const journalKey = joinKey(a.path, JOURNAL_FILE);
    await this.#store.put(journalKey, new TextEncoder().encode(`${JSON.stringify({ format: 1, chunks })}\n`));
    for (const k of chunks) {
      const next = await this.#store.get(`${a.chunkKey(k)}.next`);
      if (next === undefined) throw new FormatError("MISSING_FILE", "a staged chunk vanished", { path: `${a.chunkKey(k)}.next`, field: "file" });
      await this.#store.put(a.chunkKey(k), next);
    }
    for (const k of chunks) await this.#store.delete(`${a.chunkKey(k)}.next`);
    await this.#store.delete(journalKey);
  }

  async release(): Promise<void> {
    await this.#lock.release();
  }
}
