/**
 * The variable-length array of spec/v2.md §12: elements of different lengths (UTF-8 strings,
 * byte strings, ragged arrays) kept as two format-2 carrays, the concatenated `values/` and the
 * `offsets/` (`<i8`, n + 1 rows) that cut them into elements. Every read and write goes through
 * those two {@link CArray}s; this class only adds the element view and the write order of §12.
 *
 * @example
 * ```ts
 * const names = await openVLArray(store, "names");
 * await names.get(2); // "héllo"
 * ```
 * @module
 */
import { UsageError } from "@fmt/errors";
import type { Cparams, DType, JsonObject, JsonValue } from "@fmt/meta";
import { createJsonObject, encodeMetadata, jsonObjectKeys, serializeAttrs } from "@fmt/meta";
import type { ReadableStore, WritableStore } from "@fmt/fs-adapters";
import { AttrStore } from "./attr-store.js";
import type { AttrsWriter } from "./attr-store.js";
import type { CArray, SuperchunkSettings } from "./carray.js";
import { checkTakeIndices } from "./carray-take.js";
import { checkInteger, joinKey, normalizeSlice } from "./internal.js";
import type { DatasetLock } from "./lock.js";
import { checkOffsets, decodeElement, encodeElement, encodeElements, splitElements } from "./vlarray-elements.js";
import type { EncodedElements, VLElement, VLElementInput, VLInput, VLType, VLValues } from "./vlarray-elements.js";

/**
 * One block of {@link VLArray.iterBlocks}: elements `[start, stop)`.
 *
 * @example
 * ```ts
 * for await (const { start, elements } of names.iterBlocks()) console.log(start, elements.length);
 * ```
 */
export interface VLBlock {
  /** First element of the block. */
  start: number;
  /** One past the last element. */
  stop: number;
  /** The elements, decoded. */
  elements: VLValues;
}

/** What a vlarray is built from. @internal */
export interface VLArrayInit {
  store: ReadableStore;
  path: string;
  vtype: VLType;
  offsets: CArray;
  values: CArray;
  attrs: { [key: string]: JsonValue };
  /** Present when open for writing: the lock of the vlarray root. */
  writer?: { store: WritableStore; lock: DatasetLock };
}

/** Rows of values per append call given to the values carray at once. */
const APPEND_BATCH_BYTES = 4 * 1024 * 1024;

/**
 * A vlarray (spec/v2.md §12), read-only or open for writing: `length` elements, element `k`
 * being `values[offsets[k] : offsets[k + 1])`. `utf8` elements read as strings, `bytes` as
 * `Uint8Array`s, `ragged` as the {@link Values} of the `values/` dtype. Offsets are checked for
 * every element read (`FormatError` `INCONSISTENT`, field `offsets[k]`), and `utf8` elements
 * must be valid UTF-8 (`INCONSISTENT`, field `values`).
 *
 * Writing follows §12: an append writes `values/` first and commits with `offsets/`; a shrink
 * cuts `offsets/` first; an element can be replaced only by one of the same byte length.
 *
 * @example
 * ```ts
 * const words = await createVLArray(store, "words", ["ab", "", "héllo"], { vtype: "utf8" });
 * await words.append(["more"]);
 * await words.read(1, 3); // ["", "héllo"]
 * await words.close();
 * ```
 */
export class VLArray {
  /** Discriminant: `"vlarray"`. */
  readonly kind = "vlarray" as const;
  /** vlarrays exist only in format 2. */
  readonly formatVersion = 2 as const;
  /** The store the array is read from. */
  readonly store: ReadableStore;
  /** Store key of the vlarray root (`""` = the store root). */
  readonly path: string;
  /** `"utf8"`, `"bytes"` or `"ragged"`. */
  readonly vtype: VLType;
  /** Elements per row: always 1 (one element per row of a table). */
  readonly itemsPerRow = 1;
  /** User attributes of the vlarray root's `__attrs__`; `set`/`delete` need the array open for writing. */
  readonly attrs: AttrStore;
  readonly #init: VLArrayInit;
  readonly #offsets: CArray;
  readonly #values: CArray;
  #writer: { store: WritableStore; lock: DatasetLock } | undefined;

  /**
   * Use {@link openVLArray} or {@link createVLArray}.
   * @internal
   */
  constructor(init: VLArrayInit) {
    this.#init = init;
    this.store = init.store;
    this.path = init.path;
    this.vtype = init.vtype;
    this.#offsets = init.offsets;
    this.#values = init.values;
    this.#writer = init.writer;
    const attrsWriter: AttrsWriter = { writeAttrs: (value: JsonObject) => this.#writeAttrs(value) };
    this.attrs = new AttrStore(init.attrs, init.path, () => (this.#writer === undefined ? undefined : attrsWriter));
  }

  /** The `offsets/` carray (`<i8`, `length + 1` rows). */
  get offsets(): CArray {
    return this.#offsets;
  }

  /** The `values/` carray (`|u1` for utf8 and bytes, the element dtype for ragged). */
  get values(): CArray {
    return this.#values;
  }

  /** The dtype of `values/`: `|u1` for utf8 and bytes, the element dtype for ragged. */
  get dtype(): DType {
    return this.#values.dtype;
  }

  /** Number of elements, `len(offsets) − 1`. */
  get length(): number {
    return this.#offsets.length - 1;
  }

  /** `[length]`. */
  get shape(): readonly number[] {
    return Object.freeze([this.length]);
  }

  /** Rows per chunk of `values/` (what the conformance protocol reports as the vlarray's chunklen). */
  get chunklen(): number {
    return this.#values.chunklen;
  }

  /** Compression parameters of `values/`. */
  get cparams(): Cparams {
    return this.#values.cparams;
  }

  /** Superchunk settings of `values/`. */
  get superchunks(): Readonly<SuperchunkSettings> | undefined {
    return this.#values.superchunks;
  }

  /** `"a"` while open for writing (until {@link VLArray.close}), else `"r"`. */
  get mode(): "r" | "a" {
    return this.#writer === undefined ? "r" : "a";
  }

  /**
   * Element `index` (negative counts from the end): reads two offsets and only the rows of
   * `values/` the element covers. Out of range is `UsageError` `OUT_OF_RANGE`.
   *
   * @example
   * ```ts
   * await words.get(-1); // the last word
   * ```
   */
  async get(index: number): Promise<VLElement> {
    checkInteger(index, "index");
    const k = index < 0 ? index + this.length : index;
    if (k < 0 || k >= this.length) {
      throw new UsageError("OUT_OF_RANGE", "element index out of range", { path: this.path, field: "index", expected: `-${this.length} <= index < ${this.length}`, actual: index });
    }
    const [from, to] = await this.#offsetPair(k);
    return decodeElement(this.vtype, this.dtype, await this.#values.readBytes(from, to), this.#values.path, k);
  }

  /**
   * Elements selected like Python's `a[start:stop:step]` (negative bounds from the end, clamped).
   *
   * @example
   * ```ts
   * await words.read();         // every element
   * await words.read(0, 10, 2); // elements 0, 2, 4, 6, 8
   * ```
   */
  async read(start?: number, stop?: number, step?: number): Promise<VLValues> {
    const s = normalizeSlice(this.length, start, stop, step);
    if (s.step === 1) return this.#readRange(s.start, s.stop);
    const indices: number[] = [];
    for (let k = s.start; k < s.stop; k += s.step) indices.push(k);
    return this.take(indices);
  }

  /**
   * Elements at `indices` (any order, duplicates, negative from the end), each chunk of
   * `offsets/` and `values/` read and decoded once. Errors as `CArray.take`.
   *
   * @example
   * ```ts
   * await words.take([2, 0, 2]);
   * ```
   */
  async take(indices: ArrayLike<number>): Promise<VLValues> {
    const ks = checkTakeIndices(indices, this.length, this.path);
    if (ks.length === 0) return [];
    const pairs = new Float64Array(ks.length * 2);
    ks.forEach((k, p) => {
      pairs[2 * p] = k;
      pairs[2 * p + 1] = k + 1;
    });
    const raw = (await this.#offsets.take(pairs)) as BigInt64Array;
    const valuesLength = this.#values.length;
    const bounds: number[] = [];
    let total = 0;
    ks.forEach((k, p) => {
      const [from, to] = checkOffsets(raw.subarray(2 * p, 2 * p + 2), k, valuesLength, this.#offsets.path);
      bounds.push(from!, to!);
      total += to! - from!;
    });
    const rows = new Float64Array(total);
    let at = 0;
    for (let p = 0; p < ks.length; p++) for (let r = bounds[2 * p]!; r < bounds[2 * p + 1]!; r++) rows[at++] = r;
    const bytes = total === 0 ? new Uint8Array(0) : await this.#values.takeBytes(rows);
    const size = this.dtype.itemsize;
    const out: VLElement[] = [];
    at = 0;
    ks.forEach((k, p) => {
      const n = bounds[2 * p + 1]! - bounds[2 * p]!;
      out.push(decodeElement(this.vtype, this.dtype, bytes.subarray(at * size, (at + n) * size), this.#values.path, k));
      at += n;
    });
    return out as VLValues;
  }

  /**
   * Elements `[start, stop)` in blocks whose boundaries fall on multiples of `blockLen` (default
   * the chunklen of `offsets/`), each block one read of `offsets/` and one of `values/`.
   *
   * @example
   * ```ts
   * for await (const block of words.iterBlocks(1000)) console.log(block.elements.length);
   * ```
   */
  async *iterBlocks(blockLen: number = this.#offsets.chunklen, start = 0, stop: number = this.length): AsyncGenerator<VLBlock, void, undefined> {
    checkInteger(blockLen, "blockLen");
    if (blockLen < 1) throw new UsageError("INVALID_ARGUMENT", "blockLen must be at least 1", { field: "blockLen", expected: ">= 1", actual: blockLen });
    this.#checkBounds(start, stop);
    for (let pos = start; pos < stop; ) {
      const end = Math.min(stop, (Math.floor(pos / blockLen) + 1) * blockLen);
      yield { start: pos, stop: end, elements: await this.#readRange(pos, end) };
      pos = end;
    }
  }

  /**
   * Encodes elements for an append without writing anything: every element is checked
   * (`UsageError` `INVALID_ARGUMENT`/`OUT_OF_RANGE` naming `elements[i]`). A ctable checks all its
   * columns this way before it writes any.
   *
   * @example
   * ```ts
   * const encoded = await words.encode(["x", "yz"]);
   * ```
   */
  async encode(elements: VLInput): Promise<EncodedElements> {
    return encodeElements(this.vtype, this.dtype, elements, this.path);
  }

  /**
   * Appends elements (spec/v2.md §12 "Writing"): `values/` first, then `offsets/`, whose
   * `meta/shape` is the commit. All or nothing: a bad element or a failed write leaves the
   * elements as they were. Read-only arrays throw `UsageError` `READ_ONLY`.
   *
   * @example
   * ```ts
   * await words.append(["x", "yz"]);
   * await ragged.append([new Int32Array([1, 2]), [3]]);
   * ```
   */
  async append(elements: VLInput): Promise<void> {
    this.#requireWriter();
    await this.appendEncoded(await this.encode(elements));
  }

  /**
   * Appends elements encoded by {@link VLArray.encode}.
   *
   * @example
   * ```ts
   * await words.appendEncoded(await words.encode(["a"]));
   * ```
   */
  async appendEncoded(encoded: EncodedElements): Promise<void> {
    this.#requireWriter();
    if (encoded.count === 0) return;
    const oldValues = this.#values.length;
    const oldLength = this.length;
    let end = await this.#end();
    if (oldValues !== end) {
      // Opening for writing trimmed values to offsets[n]; anything else is another writer's doing.
      throw new UsageError("INVALID_ARGUMENT", "values/ does not end at offsets[n]", { path: this.path, field: "values", expected: end, actual: oldValues });
    }
    const ends = new BigInt64Array(encoded.count);
    encoded.rows.forEach((n, i) => {
      end += n;
      ends[i] = BigInt(end);
    });
    try {
      const size = this.dtype.itemsize;
      const step = Math.max(size, APPEND_BATCH_BYTES - (APPEND_BATCH_BYTES % size));
      for (let at = 0; at < encoded.bytes.length; at += step) await this.#values.append({ bytes: encoded.bytes.subarray(at, Math.min(encoded.bytes.length, at + step)) });
      await this.#values.flush();
      await this.#offsets.append(ends);
      await this.#offsets.flush();
    } catch (error) {
      // Back to the old elements, as far as the store allows (a later writer trims the rest).
      if (this.#offsets.length !== oldLength + 1) await this.#offsets.resize(oldLength + 1).catch(() => undefined);
      if (this.#values.length !== oldValues) await this.#values.resize(oldValues).catch(() => undefined);
      throw error;
    }
  }

  /**
   * Replaces element `index` by `value` of the same length in bytes (a `set` on `values/`);
   * another length is `UsageError` `INVALID_ARGUMENT` (it would move every later element).
   *
   * @example
   * ```ts
   * await words.set(0, "AB"); // "ab" → "AB"
   * ```
   */
  async set(index: number, value: VLElementInput): Promise<void> {
    this.#requireWriter();
    checkInteger(index, "index");
    const k = index < 0 ? index + this.length : index;
    if (k < 0 || k >= this.length) {
      throw new UsageError("OUT_OF_RANGE", "element index out of range", { path: this.path, field: "index", expected: `-${this.length} <= index < ${this.length}`, actual: index });
    }
    const bytes = encodeElement(this.vtype, this.dtype, value, "value");
    const [from, to] = await this.#offsetPair(k);
    const rows = bytes.length / this.dtype.itemsize;
    if (rows !== to - from) {
      throw new UsageError("INVALID_ARGUMENT", `element ${k} holds ${to - from} rows of values; a replacement must have the same length`, { path: this.path, field: "value", expected: `${(to - from) * this.dtype.itemsize} bytes`, actual: `${bytes.length} bytes` });
    }
    if (rows === 0) return;
    await this.#values.set({ start: from, stop: to }, { bytes });
    await this.#values.flush();
  }

  /**
   * Changes the number of elements to `n`: fewer cuts `offsets/` first (the commit), then
   * `values/` (spec/v2.md §12); more appends empty elements.
   *
   * @example
   * ```ts
   * await words.resize(2);
   * ```
   */
  async resize(n: number): Promise<void> {
    this.#requireWriter();
    checkInteger(n, "n");
    if (n < 0) throw new UsageError("OUT_OF_RANGE", "the length must not be negative", { path: this.path, field: "n", expected: ">= 0", actual: n });
    if (n === this.length) return;
    if (n > this.length) {
      await this.appendEncoded({ count: n - this.length, bytes: new Uint8Array(0), rows: new Array<number>(n - this.length).fill(0) });
      return;
    }
    const end = n === 0 ? 0 : (await this.#offsetPair(n - 1))[1];
    await this.#offsets.resize(n + 1);
    await this.#values.resize(end);
  }

  /**
   * Removes the last `n` elements (`0 ≤ n ≤ length`).
   *
   * @example
   * ```ts
   * await words.trim(1);
   * ```
   */
  async trim(n: number): Promise<void> {
    checkInteger(n, "n");
    if (n < 0 || n > this.length) {
      throw new UsageError("OUT_OF_RANGE", "cannot trim more elements than the array has", { path: this.path, field: "n", expected: `0 <= n <= ${this.length}`, actual: n });
    }
    await this.resize(this.length - n);
  }

  /**
   * Makes every change durable (`values/` first, then `offsets/`). A no-op when read-only.
   *
   * @example
   * ```ts
   * await words.flush();
   * ```
   */
  async flush(): Promise<void> {
    if (this.#writer === undefined) return;
    await this.#values.flush();
    await this.#offsets.flush();
  }

  /**
   * Flushes, closes both carrays, releases the vlarray's `.lock`; reads keep working. Idempotent.
   *
   * @example
   * ```ts
   * await words.close();
   * ```
   */
  async close(): Promise<void> {
    const writer = this.#writer;
    if (writer === undefined) return;
    this.#writer = undefined;
    try {
      await this.#values.close();
      await this.#offsets.close();
    } finally {
      await writer.lock.release();
    }
  }

  /**
   * A read-only view of the first `n` elements (how a table reader sees the committed length
   * while an append is under way). @internal
   */
  committedPrefix(n: number): VLArray {
    const init: VLArrayInit = { ...this.#init, offsets: this.#offsets.committedPrefix(n + 1) };
    delete init.writer;
    return new VLArray(init);
  }

  /** offsets[n]: where the values of the elements end. */
  async #end(): Promise<number> {
    if (this.length === 0) return 0;
    return (await this.#offsetPair(this.length - 1))[1];
  }

  /** offsets[k] and offsets[k + 1], checked. */
  async #offsetPair(k: number): Promise<[number, number]> {
    const raw = (await this.#offsets.take([k, k + 1])) as BigInt64Array;
    const [from, to] = checkOffsets(raw, k, this.#values.length, this.#offsets.path);
    return [from!, to!];
  }

  async #readRange(start: number, stop: number): Promise<VLValues> {
    this.#checkBounds(start, stop);
    if (start === stop) return [];
    const raw = (await this.#offsets.read(start, stop + 1)) as BigInt64Array;
    const offsets = checkOffsets(raw, start, this.#values.length, this.#offsets.path);
    const bytes = await this.#values.readBytes(offsets[0], offsets[offsets.length - 1]);
    return splitElements(this.vtype, this.dtype, bytes, offsets, this.#values.path, start);
  }

  #checkBounds(start: number, stop: number): void {
    checkInteger(start, "start");
    checkInteger(stop, "stop");
    if (start < 0 || stop > this.length || start > stop) {
      throw new UsageError("OUT_OF_RANGE", "element range out of bounds", { path: this.path, field: "start..stop", expected: `0 <= start <= stop <= ${this.length}`, actual: `${start}..${stop}` });
    }
  }

  #requireWriter(): { store: WritableStore; lock: DatasetLock } {
    if (this.#writer === undefined || !this.#writer.lock.held) {
      throw new UsageError("READ_ONLY", 'the vlarray is open read-only (open it with mode "a" to write)', { path: this.path, field: "mode", expected: "a", actual: "r" });
    }
    return this.#writer;
  }

  async #writeAttrs(value: JsonObject): Promise<void> {
    const writer = this.#requireWriter();
    await writer.store.put(joinKey(this.path, "__attrs__"), encodeMetadata(serializeAttrs(createJsonObject(jsonObjectKeys(value).map((k) => [k, value[k]!] as [string, JsonValue])))));
  }
}
