import { UsageError } from "@fmt/errors";
import type { ChunkCodecPool } from "@fmt/blosc";
import { encodeMetadata, serializeAttrs } from "@fmt/meta";
import type { Cparams, DType, JsonObject, JsonValue } from "@fmt/meta";
import type { AttrsWriter } from "./attr-store.js";
import type { Selector } from "./options.js";
import { encodeFill, isBlock, isRawRows } from "./carray-encode.js";
import type { ArrayInput, ElementInput, RawRows, ValuesBlock } from "./carray-encode.js";
import { rowBlocks } from "./carray-input.js";
import { ChunkWrites } from "./chunk-writes.js";
import { checkInteger, joinKey, normalizeSlice } from "./internal.js";
import type { ChunkLayoutWriter } from "./layout.js";
import { MAX_RESIZE_BYTES } from "./limits.js";
import type { DatasetLock } from "./lock.js";

/** What the writer reads of its array: the layout and the current length. @internal */
export interface CarrayLayout {
  readonly path: string;
  readonly dtype: DType;
  readonly chunklen: number;
  readonly atomSize: number;
  readonly itemsPerRow: number;
  readonly cparams: Cparams;
  readonly dflt: JsonValue;
  readonly shape: readonly number[];
  readonly length: number;
  readonly nchunks: number;
  readonly leftoverRows: number;
  readonly nbytes: number;
}

/** What the writer may do to its array beyond reading it: the array keeps these private. @internal */
export interface CarrayWriterAccess {
  /** Sets the in-memory length (what readers of this array see). */
  setLength(n: number): void;
  /**
   * A copy (the writer may change it) of the first `rows` rows of chunk `index` as stored, and
   * the byte size the stored chunk declares (more than `rows` rows for a lenient leftover).
   */
  readChunkRows(index: number, rows: number): Promise<{ bytes: Uint8Array; storedNbytes: number }>;
  /** Chunk `index` changed on disk or in memory: anything decoded from it before is stale. */
  chunkChanged(index: number): void;
}

/** How a writer is set up. @internal */
export interface CarrayWriterInit {
  /** Where the chunks go, and the commit of the length (format 1 or 2). */
  layout: ChunkLayoutWriter;
  lock: DatasetLock;
  /** cbytes recorded in `meta/sizes` when the array was opened. */
  cbytes: number | bigint;
  /** Pool that compresses chunks; without one they are compressed on this thread. */
  workers?: ChunkCodecPool | undefined;
}

interface SelectionEntry {
  row: number;
  /** Index of the row's values in the encoded value buffer (-1: broadcast). */
  value: number;
}

/** What an append can roll back to: the in-memory state before it started. */
interface AppendSnapshot {
  length: number;
  leftover: Uint8Array;
  leftoverDirty: boolean;
  sizesDirty: boolean;
  cbytes: number | bigint;
}

/**
 * The write side of an open `CArray`, the same for both format versions: the in-memory leftover
 * chunk, chunk compression, the order of writes and commits that keeps the dataset readable at
 * every moment (spec v1 §8.5, v2 §13), and the lock. Where chunks go and what a commit writes is
 * the layout's business. @internal
 */
export class CarrayWriter implements AttrsWriter {
  readonly #array: CarrayLayout;
  readonly #access: CarrayWriterAccess;
  readonly #layout: ChunkLayoutWriter;
  readonly #lock: DatasetLock;
  readonly #chunks: ChunkWrites;
  /** Length recorded in `meta/sizes` on disk. */
  #committed: number;
  /**
   * The longest length `meta/sizes` may hold on disk (at least {@link #committed}): a commit that
   * failed may still have replaced the file (its rename done, the directory's flush failed), so
   * chunks below the length it tried count as read by readers until a commit succeeds.
   */
  #committedAtMost: number;
  /** Rows of the leftover chunk `[nchunks·chunklen, length)`, in a buffer of chunksize bytes. */
  #leftover: Uint8Array;
  /** Whether the leftover in memory differs from its file. */
  #leftoverDirty = false;
  #sizesDirty = false;
  #cbytes: number | bigint;
  /** One past the highest chunk file number that may exist. */
  #fileCount: number;

  constructor(array: CarrayLayout, access: CarrayWriterAccess, init: CarrayWriterInit) {
    this.#array = array;
    this.#access = access;
    this.#layout = init.layout;
    this.#lock = init.lock;
    this.#committed = array.length;
    this.#committedAtMost = array.length;
    this.#cbytes = init.cbytes;
    this.#leftover = new Uint8Array(0);
    this.#fileCount = Math.ceil(array.length / array.chunklen);
    const options = { typesize: array.dtype.bloscTypesize, clevel: array.cparams.clevel, shuffle: array.cparams.shuffle, cname: array.cparams.cname };
    this.#chunks = new ChunkWrites((g, chunk, o) => init.layout.writeChunk(g, chunk, o), options, init.workers, init.layout.writesAtOnce);
  }

  /** The length readers of the store see (the last commit). */
  get committedLength(): number {
    return this.#committed;
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
    const buffer = new Uint8Array(this.#chunksize);
    if (rows > 0) {
      const { bytes, storedNbytes } = await this.#access.readChunkRows(a.nchunks, rows);
      if (storedNbytes !== rows * a.atomSize) this.#leftoverDirty = true;
      buffer.set(bytes);
    }
    this.#leftover = buffer;
  }

  #ensureBuffer(): void {
    if (this.#leftover.length !== this.#chunksize) {
      const next = new Uint8Array(this.#chunksize);
      next.set(this.#leftover.subarray(0, Math.min(this.#leftover.length, next.length)));
      this.#leftover = next;
    }
  }

  /**
   * Whether chunk `index` holds rows readers of the committed length already see: it is then
   * replaced atomically and durably on its own, since no later commit point covers it.
   */
  #holdsCommittedRows(index: number): boolean {
    return index * this.#array.chunklen < this.#committedAtMost;
  }

  /** Commits length `n` (the layout's commitLength), keeping {@link #committedAtMost} true if it fails. */
  async #commit(n: number): Promise<void> {
    this.#committedAtMost = Math.max(this.#committedAtMost, n);
    await this.#layout.commitLength(this.#array.shape, this.#cbytes);
    this.#committed = n;
    this.#committedAtMost = n;
  }

  /** Starts writing chunk `index` (see {@link ChunkWrites.add}); its cbytes count once stored. */
  async #startChunk(index: number, rows: Uint8Array, countCbytes = true): Promise<void> {
    this.#fileCount = Math.max(this.#fileCount, index + 1);
    this.#access.chunkChanged(index);
    await this.#chunks.add(index, rows, this.#holdsCommittedRows(index), (cbytes) => {
      if (countCbytes) this.#addCbytes(cbytes);
    });
  }

  /** Writes chunk `index` and waits until it is stored. */
  async #writeChunk(index: number, rows: Uint8Array, countCbytes = false): Promise<void> {
    await this.#startChunk(index, rows, countCbytes);
    await this.#chunks.drain();
  }

  #addCbytes(delta: number): void {
    this.#cbytes = typeof this.#cbytes === "bigint" ? this.#cbytes + BigInt(delta) : this.#cbytes + delta;
  }

  /**
   * Appends one chunk exactly as stored elsewhere (conversion between format versions, spec/v2.md
   * §14): `chunk` is a checked Blosc chunk of `rows` rows (`rows × atomSize` = its nbytes),
   * `decoded` the same rows decoded. The array must end on a chunk boundary; a partial chunk must
   * be the last one appended. The chunk's bytes are written unchanged, not recompressed.
   */
  async appendStoredChunk(chunk: Uint8Array, rows: number, decoded: Uint8Array): Promise<void> {
    this.#lock.assertHeld(this.#array.path);
    const a = this.#array;
    if (a.leftoverRows !== 0 || rows < 1 || rows > a.chunklen || decoded.length !== rows * a.atomSize) {
      throw new UsageError("INVALID_ARGUMENT", "a stored chunk is appended at a chunk boundary, with its rows", { path: a.path, field: "rows", expected: `1..${a.chunklen} at a chunk boundary`, actual: rows });
    }
    const index = a.nchunks;
    this.#fileCount = Math.max(this.#fileCount, index + 1);
    this.#access.chunkChanged(index);
    await this.#layout.writeChunk(index, chunk, { committed: this.#holdsCommittedRows(index) });
    if (rows === a.chunklen) this.#addCbytes(chunk.length);
    else {
      // The rows stay in memory as the leftover, already stored: the flush need not write them again.
      this.#ensureBuffer();
      this.#leftover.set(decoded);
      this.#leftoverDirty = false;
    }
    this.#setLength(a.length + rows);
  }

  /**
   * Appends any input, all or nothing: when a value is refused or a chunk cannot be written, the
   * array keeps its previous length and rows (chunk files already written lie beyond the
   * committed length, where readers never look, and are removed or replaced by the next flush).
   */
  async append(values: ArrayInput): Promise<void> {
    this.#lock.assertHeld(this.#array.path);
    const a = this.#array;
    this.#ensureBuffer();
    const before: AppendSnapshot = {
      length: a.length,
      leftover: this.#leftover.slice(0, a.leftoverRows * a.atomSize),
      leftoverDirty: this.#leftoverDirty,
      sizesDirty: this.#sizesDirty,
      cbytes: this.#cbytes,
    };
    try {
      for await (const bytes of rowBlocks(values, a.dtype, a.itemsPerRow, a.cparams.quantize)) await this.#appendRows(bytes);
      await this.#chunks.drain();
    } catch (error) {
      await this.#chunks.drain().catch(() => undefined);
      this.#restore(before);
      throw error;
    }
  }

  #restore(before: AppendSnapshot): void {
    const a = this.#array;
    this.#access.setLength(before.length);
    this.#leftover.fill(0);
    this.#leftover.set(before.leftover);
    // The leftover file may now hold a full chunk written meanwhile: its first rows are still
    // right, but the next flush writes the exact leftover again.
    this.#leftoverDirty = before.leftoverDirty || a.leftoverRows > 0;
    this.#sizesDirty = before.sizesDirty;
    this.#cbytes = before.cbytes;
    for (let k = Math.floor(before.length / a.chunklen); k < this.#fileCount; k++) this.#access.chunkChanged(k);
  }

  /** Appends rows given as bytes in the dtype layout (length a multiple of atomSize); they must stay unchanged until the chunks are drained. */
  async #appendRows(bytes: Uint8Array): Promise<void> {
    const a = this.#array;
    const atom = a.atomSize;
    const chunksize = this.#chunksize;
    let off = 0;
    while (off < bytes.length) {
      const rest = a.leftoverRows;
      const index = a.nchunks;
      if (rest === 0 && bytes.length - off >= chunksize) {
        // Whole chunks straight from the input: they lie beyond the committed rows (or replace a stale file).
        await this.#startChunk(index, bytes.subarray(off, off + chunksize));
        off += chunksize;
        this.#setLength(a.length + a.chunklen);
        continue;
      }
      const take = Math.min(chunksize - rest * atom, bytes.length - off);
      this.#leftover.set(bytes.subarray(off, off + take), rest * atom);
      this.#access.chunkChanged(index);
      off += take;
      const filled = rest + take / atom;
      if (filled === a.chunklen) {
        // The leftover became full: its file (whose committed rows are unchanged) is replaced by
        // the full chunk before meta/sizes changes; readers of the old length use its first rows.
        // The copy frees the leftover buffer for the next rows while the chunk is in flight.
        await this.#startChunk(index, this.#leftover.slice());
        this.#leftoverDirty = false;
      } else {
        this.#leftoverDirty = true;
      }
      this.#setLength(a.length + take / atom);
    }
  }

  #setLength(n: number): void {
    this.#access.setLength(n);
    this.#sizesDirty = true;
  }

  /**
   * Writes the leftover and the length in the order that keeps the old or the new length
   * readable. Growing, the length file is the commit point: the layout makes everything written
   * since the last commit durable (and, in format 2, writes the superchunk headers) just before it.
   * Shrinking, the length is committed first, then the chunks beyond it go, then the new leftover.
   */
  async flush(): Promise<void> {
    const a = this.#array;
    await this.#chunks.drain();
    if (!this.#sizesDirty && !this.#leftoverDirty && a.length === this.#committed) return;
    const n = a.length;
    const writeLeftover = async (): Promise<void> => {
      if (a.leftoverRows > 0 && this.#leftoverDirty) await this.#writeChunk(a.nchunks, this.#leftover.subarray(0, a.leftoverRows * a.atomSize));
      this.#leftoverDirty = false;
    };
    const needed = Math.ceil(n / a.chunklen);
    const dropBeyond = async (): Promise<void> => {
      for (let k = needed; k < this.#fileCount; k++) this.#access.chunkChanged(k);
      if (this.#fileCount > needed) await this.#layout.dropChunksBeyond(n, this.#fileCount);
      this.#fileCount = needed;
    };
    if (n >= this.#committed) {
      await writeLeftover();
      await this.#layout.prepareCommit(n);
      await this.#commit(n);
      await dropBeyond();
    } else {
      // Shrinking: the new length first; the chunk that becomes the leftover still holds at least
      // the new number of rows, which readers accept. Then cleanup, then the exact leftover.
      await this.#commit(n);
      await dropBeyond();
      await writeLeftover();
    }
    this.#sizesDirty = false;
  }

  /** The cbytes figure meta/sizes will get (bcolz's informational estimate). */
  get cbytes(): number | bigint {
    return this.#cbytes;
  }

  /** Replaces `__attrs__` (durably: it is a commit of its own). */
  async writeAttrs(attrs: JsonObject): Promise<void> {
    this.#lock.assertHeld(this.#array.path);
    await this.#layout.store.put(joinKey(this.#array.path, "__attrs__"), encodeMetadata(serializeAttrs(attrs)));
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
      this.#ensureBuffer();
      // Every chunk in flight reads the same block of fill rows, which never changes.
      for (let remaining = n - a.length; remaining > 0; ) {
        const rows = Math.min(remaining, rowsPerBlock);
        await this.#appendRows(block.subarray(0, rows * a.atomSize));
        remaining -= rows;
      }
      await this.#chunks.drain();
    } else if (n < a.length) {
      const newFull = Math.floor(n / a.chunklen);
      const rest = n % a.chunklen;
      this.#ensureBuffer();
      if (newFull < a.nchunks && rest > 0) {
        const { bytes } = await this.#access.readChunkRows(newFull, rest);
        this.#leftover.set(bytes);
      }
      this.#access.chunkChanged(newFull);
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
      const sl = selector;
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
    const input: ArrayInput = isBlock(values, a.dtype) ? (values as ValuesBlock | RawRows) : [values];
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
    const staged = new Map<number, Uint8Array>();

    for (const [k, g] of groups) {
      const first = k * a.chunklen;
      if (k === leftoverIndex) {
        this.#ensureBuffer();
        for (const e of g) this.#leftover.set(rowBytes(e.value), (e.row - first) * atom);
        this.#access.chunkChanged(k);
        this.#leftoverDirty = true;
        if (touchesCommitted(g)) {
          const rows = this.#leftover.subarray(0, a.leftoverRows * atom);
          if (journaled) {
            staged.set(k, await this.#chunks.compress(rows.slice()));
          } else {
            // One file changes: the atomic (and durable) replace is enough. Rows beyond the
            // committed length ride along; readers of the committed length ignore them.
            await this.#writeChunk(k, rows);
          }
          this.#leftoverDirty = a.length !== this.#committed;
        }
        continue;
      }
      const { bytes: rows } = await this.#access.readChunkRows(k, a.chunklen);
      for (const e of g) rows.set(rowBytes(e.value), (e.row - first) * atom);
      if (journaled && touchesCommitted(g)) {
        staged.set(k, await this.#chunks.compress(rows));
      } else {
        await this.#writeChunk(k, rows);
      }
    }
    if (staged.size > 0) {
      // All or nothing through the layout's journal (spec v1 §8.5, v2 §13.4).
      for (const k of staged.keys()) this.#access.chunkChanged(k);
      await this.#layout.writeChunksAtomically(staged);
    }
  }

  async release(): Promise<void> {
    await this.#lock.release();
  }
}
