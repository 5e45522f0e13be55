/**
 * The ctable (spec/v1.md §3.3, spec/v2.md §11): columns of equal length read and written
 * together, each a carray or (format 2) a vlarray. Opening and creating tables live in
 * `ctable-open.ts`, the write helpers in `ctable-write.ts`.
 * The types of its API (columns, blocks, `addColumn` options) are in `ctable-types.ts`.
 *
 * @example
 * ```ts
 * const t = await openCtable(store, "trades.bcolz");
 * await t.readRows(0, 10);
 * ```
 * @module
 */
import { ConflictError, UsageError } from "@fmt/errors";
import { encodeMetadata } from "@fmt/meta";
import type { JsonObject, JsonValue } from "@fmt/meta";
import type { ReadableStore, WritableStore } from "@fmt/fs-adapters";
import type { CArray } from "./carray.js";
import { readOptionsOf } from "./carray-open.js";
import type { OpenOptions, RowBlock } from "./options.js";
import type { ArrayInput, ElementInput } from "./carray-encode.js";
import { collectRows } from "./carray-input.js";
import { AttrStore } from "./attr-store.js";
import type { AttrsWriter } from "./attr-store.js";
import { callLimits, checkChunkWork, checkReadBytes } from "./limits.js";
import { chunksTouched, selectedCount } from "./selection.js";
import { APPEND_JOURNAL_FILE, attrsText, checkNewColumnName, columnInputs, copyColumn, createNewColumn, removeColumn, somethingAt, TABLE_V1 } from "./ctable-write.js";
import type { TableFormat } from "./ctable-write.js";
import { checkInteger, joinKey, normalizeSlice } from "./internal.js";
import type { DatasetLock } from "./lock.js";
import type { VLBlock } from "./vlarray.js";
import type { EncodedElements, VLInput, VLValues } from "./vlarray-elements.js";
import { openColumn } from "./vlarray-open.js";
import { runWhere } from "@fmt/expr";
import type { ColumnValues, StoredComparison, TypedValues, WhereOptions, WhereQuery, WhereResult } from "@fmt/expr";
import type { AddColumnOptions, TableBlock, TableBlockOptions, TableColumn } from "./ctable-types.js";

// Kept for the modules that import these from here (ctable-open.ts holds them).
export { createCtable, open, openCtable } from "./ctable-open.js";
// The types of the table API live in ctable-types.ts; index.ts and the table modules import them from here.
export type { AddColumnOptions, TableBlock, TableBlockOptions, TableColumn } from "./ctable-types.js";

/** The write state of a table open in mode "a". */
type TableWriter = { store: WritableStore; lock: DatasetLock };

/**
 * A bcolz ctable (read-only, or writable when created or opened with mode `"a"`): a directory with `__rootdirs__` (the column names, in
 * order), `__attrs__`, and one carray directory per column, named like the column. Every column
 * has its own dtype, cparams and chunklen, and all have the same length.
 *
 * @example
 * ```ts
 * import { FileSystemStore } from "@fmt/fs-adapters/node";
 * const t = await openCtable(new FileSystemStore("/data/trades.bcolz"));
 * console.log(t.names, t.length);                 // ["id", "price"] 4321
 * const { id, price } = await t.readRows(0, 10);  // BigInt64Array, Float64Array
 * const hits = await t.where("price > 100 & id < 50");
 * ```
 */
export class CTable {
  /** Discriminant: `"ctable"`. */
  readonly kind = "ctable" as const;
  /** The store the table is read from. */
  readonly store: ReadableStore;
  /** Store key of the table's directory (`""` = the store root). */
  readonly path: string;
  /**
   * User attributes from the table's own `__attrs__` (`{}` when the file is missing): `get`,
   * `keys`, `toJSON()`; `set`/`delete` rewrite `__attrs__` when the table is open for writing.
   */
  readonly attrs: AttrStore;
  #names: string[];
  #columns: TableColumn[];
  #writer: TableWriter | undefined;
  readonly #options: OpenOptions;
  readonly #format: TableFormat;

  /** The format version of the table: 1 (bcolz 1.x, `__rootdirs__`) or 2 (spec/v2.md §11, columns under `data/`). */
  get formatVersion(): 1 | 2 {
    return this.#format.version;
  }

  /**
   * Use {@link openCtable}, {@link createCtable} or {@link open}.
   * @internal
   */
  constructor(store: ReadableStore, path: string, names: string[], columns: TableColumn[], attrs: { [key: string]: JsonValue }, writer?: { store: WritableStore; lock: DatasetLock }, options: OpenOptions = {}, format: TableFormat = TABLE_V1) {
    this.store = store;
    this.path = path;
    this.#format = format;
    this.#names = [...names];
    this.#columns = [...columns];
    this.#writer = writer;
    this.#options = options;
    // The table's __attrs__ is written by the table itself, not by a column's writer.
    const attrsWriter: AttrsWriter = { writeAttrs: (value: JsonObject) => this.#writeAttrs(value) };
    this.attrs = new AttrStore(attrs, path, () => (this.#writer === undefined ? undefined : attrsWriter));
  }

  /** Column names in `__rootdirs__` order. */
  get names(): readonly string[] {
    return Object.freeze([...this.#names]);
  }

  /** The columns, in the order of {@link CTable.names}. */
  get columns(): readonly TableColumn[] {
    return Object.freeze([...this.#columns]);
  }

  /** Number of rows (the same in every column). */
  get length(): number {
    return this.#columns[0]?.length ?? 0;
  }

  /** `"a"` while the table is open for writing (until {@link CTable.close}), else `"r"`. */
  get mode(): "r" | "a" {
    return this.#writer === undefined ? "r" : "a";
  }

  /**
   * The column called `name` (`UsageError` `INVALID_ARGUMENT` if there is none).
   *
   * @example
   * ```ts
   * const price = t.column("price");
   * console.log(price.dtype.str, price.chunklen);
   * ```
   */
  column(name: string): TableColumn {
    const i = this.#names.indexOf(name);
    if (i < 0) throw new UsageError("INVALID_ARGUMENT", "no such column", { path: this.path, field: "name", expected: this.#names.join(", "), actual: name });
    return this.#columns[i]!;
  }

  /**
   * Decoded values of one column, sliced like {@link CArray.read} (whose note on results of 32 MiB
   * and more applies).
   *
   * @example
   * ```ts
   * const prices = await t.readColumn("price");         // whole column
   * const some = await t.readColumn("price", 100, 200);  // rows 100..199
   * ```
   */
  async readColumn(name: string, start?: number, stop?: number, step?: number): Promise<ColumnValues> {
    return this.column(name).read(start, stop, step);
  }

  /**
   * Reads rows `[start, stop)` of column `name` into `out`, like {@link CArray.readInto}: a
   * typed array of the column's class holding exactly those rows' elements, filled in place.
   *
   * @example
   * ```ts
   * const prices = new Float64Array(t.length);
   * await t.readColumnInto("price", prices);
   * ```
   */
  async readColumnInto(name: string, out: TypedValues, start?: number, stop?: number): Promise<void> {
    const column = this.column(name);
    if (column.kind === "vlarray") throw new UsageError("INVALID_ARGUMENT", "a vlarray column has no fixed-size values to read into a typed array; use readColumn", { path: this.path, field: "name", actual: name });
    await column.readInto(out, start, stop);
  }

  /**
   * Decoded values of the rows at `indices` (any order, duplicates, negative indices counting
   * from the end) of every column, or only of `columns`, keyed by column name, like
   * {@link CArray.take}: each column reads and decodes each chunk it needs once. Errors as
   * {@link CArray.takeBytes}; an unknown column name is `UsageError` `INVALID_ARGUMENT`.
   *
   * @example
   * ```ts
   * const picked = await t.takeRows([10, -1, 10]);
   * console.log(picked["price"]); // three values
   * ```
   */
  async takeRows(indices: ArrayLike<number>, columns?: readonly string[]): Promise<{ [name: string]: ColumnValues }> {
    const names = columns === undefined ? this.#names : [...columns];
    const selected = names.map((name) => this.column(name));
    const values = await Promise.all(selected.map((c) => c.take(indices)));
    return Object.fromEntries(names.map((name, i) => [name, values[i]!]));
  }

  /**
   * Decoded values of rows `start:stop:step` (Python slice semantics, as in
   * {@link CArray.read}) of every column, or only of `columns` (in the order given), keyed by
   * column name. Columns not selected are not read. An unknown name is `UsageError`
   * `INVALID_ARGUMENT`.
   *
   * @example
   * ```ts
   * const rows = await t.readRows(0, 3);
   * console.log(rows["id"], rows["price"]);
   * const some = await t.readRows(100, 200, 1, ["price", "qty"]);
   * ```
   */
  async readRows(start?: number, stop?: number, step?: number, columns?: readonly string[]): Promise<{ [name: string]: ColumnValues }> {
    const s = normalizeSlice(this.length, start, stop, step);
    const names = columns === undefined ? this.#names : [...columns];
    const selected = names.map((name) => this.column(name));
    // The limits hold for the call as a whole, not per column.
    const limits = callLimits(this.#options);
    checkReadBytes(limits, selected.reduce((total, c) => total + selectedCount(s.start, s.stop, s.step) * knownRowBytes(c), 0), this.path);
    checkChunkWork(limits, selected.reduce((total, c) => total + chunksTouched(s.start, s.stop, s.step, rowChunklen(c)), 0), this.path);
    const values = await Promise.all(selected.map((c) => c.read(s.start, s.stop, s.step)));
    return Object.fromEntries(names.map((name, i) => [name, values[i]!]));
  }

  /**
   * Rows `[start, stop)` in blocks whose boundaries fall on multiples of `blockLen`, with the
   * stored bytes of the selected columns (all by default). Columns are decoded in step, one
   * chunk per column at a time; columns that are not selected are not read at all. With an
   * empty `columns` list the blocks carry only their row ranges.
   *
   * Accepts an options object, or the older positional form `iterBlocks(blockLen, start, stop)`.
   * Defaults: `blockLen` = the chunklen of the first selected column (so its blocks are whole
   * chunks), `start` 0, `stop` the length; bounds must satisfy `0 <= start <= stop <= length`
   * (`UsageError` `OUT_OF_RANGE`).
   *
   * @example
   * ```ts
   * for await (const { start, stop, columns } of t.iterBlocks({ columns: ["price"], blockLen: 10_000 })) {
   *   const price = decodeValues(columns["price"]!, t.column("price").dtype) as Float64Array;
   *   console.log(start, stop, price.length);
   * }
   * ```
   */
  async *iterBlocks(options?: number | TableBlockOptions, start?: number, stop?: number): AsyncGenerator<TableBlock, void, undefined> {
    const opts: TableBlockOptions = typeof options === "object" && options !== null ? options : { blockLen: options, start, stop };
    if (typeof options === "object" && options !== null && (start !== undefined || stop !== undefined)) {
      throw new UsageError("INVALID_ARGUMENT", "give start/stop inside the options object", { field: "start", expected: "iterBlocks({ start, stop })" });
    }
    const names = opts.columns === undefined ? [...this.#names] : this.#checkColumns(opts.columns, "columns");
    const selected = names.map((name) => this.column(name));
    const from = opts.start ?? 0;
    const to = opts.stop ?? this.length;
    const first = selected[0] ?? this.#columns[0];
    const len = opts.blockLen ?? (first === undefined ? 1 : rowChunklen(first));
    checkInteger(len, "blockLen");
    if (len < 1) throw new UsageError("INVALID_ARGUMENT", "blockLen must be at least 1", { field: "blockLen", expected: ">= 1", actual: len });
    checkInteger(from, "start");
    checkInteger(to, "stop");
    if (from < 0 || to > this.length || from > to) {
      throw new UsageError("OUT_OF_RANGE", "row range out of bounds", { path: this.path, field: "start..stop", expected: `0 <= start <= stop <= ${this.length}`, actual: `${from}..${to}` });
    }
    const limits = callLimits(this.#options);
    checkReadBytes(limits, selected.reduce((total, c) => total + Math.min(len, to - from) * knownRowBytes(c), 0), this.path);
    checkChunkWork(limits, selected.reduce((total, c) => total + chunksTouched(from, to, 1, rowChunklen(c)), 0), this.path);
    if (selected.length === 0) {
      for (let pos = from; pos < to; ) {
        const blockStop = Math.min(to, (Math.floor(pos / len) + 1) * len);
        yield { start: pos, stop: blockStop, columns: Object.create(null) as { [name: string]: Uint8Array } };
        pos = blockStop;
      }
      return;
    }
    const reuse = opts.reuse === true;
    const blocksUnusedAfterLoop = opts.blocksUnusedAfterLoop === true;
    const iterators: AsyncGenerator<RowBlock | VLBlock, void, undefined>[] = selected.map((c) => (c.kind === "vlarray" ? c.iterBlocks(len, from, to) : c.iterBlocks({ blockLen: len, start: from, stop: to, reuse, blocksUnusedAfterLoop })));
    try {
      for (let pos = from; pos < to; ) {
        const steps = await Promise.all(iterators.map((it) => it.next()));
        const columns: { [name: string]: Uint8Array } = Object.create(null) as { [name: string]: Uint8Array };
        let elements: { [name: string]: VLValues } | undefined;
        let blockStop = pos;
        steps.forEach((step, i) => {
          // Every column yields the same block boundaries, since they depend only on the arguments.
          if (step.done !== true) {
            if ("bytes" in step.value) columns[names[i]!] = step.value.bytes;
            else (elements ??= Object.create(null) as { [name: string]: VLValues })[names[i]!] = step.value.elements;
            blockStop = step.value.stop;
          }
        });
        if (blockStop <= pos) return; // unreachable unless a column ends early
        yield { start: pos, stop: blockStop, columns, ...(elements === undefined ? {} : { elements }) };
        pos = blockStop;
      }
      // The caller asked past the last block: each column is asked past its last one too, so that
      // it knows no block of it is held any more (its pass's memory then serves later passes).
      await Promise.all(iterators.map((it) => it.next()));
    } finally {
      await Promise.all(iterators.map((it) => it.return(undefined)));
    }
  }

  /**
   * Rows `[start, stop)` of a fixed-size column compared with a constant as they are stored: the
   * optional `compareColumn` of `@fmt/expr`'s `WhereTable`, which {@link CTable.where} uses for a
   * query that is one such comparison counted or listed whole. Byte-shuffled chunks are compared
   * on their byte planes, decoded only as far as they decide and never unshuffled. `false`,
   * having read nothing, when the column or the constant does not allow it.
   *
   * @example
   * ```ts
   * let n = 0;
   * await t.compareColumn({ column: "price", op: ">", value: 2.5 }, { start: 0, stop: t.length, masks: false }, (first, matches) => (n += matches));
   * ```
   */
  async compareColumn(comparison: StoredComparison, options: { start: number; stop: number; masks: boolean }, visit: (first: number, matches: number, mask: Uint8Array | undefined) => void): Promise<boolean> {
    const column = this.column(comparison.column);
    return column.kind === "vlarray" ? false : column.compareStored(comparison, options, visit);
  }

  /**
   * Finds the rows that satisfy `query`, evaluating it block by block (chunk-aligned blocks of
   * rows, see {@link CTable.iterBlocks}) and reading only the columns it needs.
   *
   * `query` is an expression string (grammar and typing rules: {@link parseExpression},
   * {@link compileExpression}), e.g. `'price > 2906.5 & (qty < 10 | sym == "ABC")'`, or a JS
   * predicate ({@link WhereQuery}). The result depends on `options.as`:
   * - `"indices"` (default): the matching row numbers, ascending, as a `Float64Array` (exact for
   *   every row number up to 2^53; `Array.from(hits)` gives a `number[]`, and {@link CTable.takeRows}
   *   takes it as it is);
   * - `"rows"`: the matching rows as `{ [column]: Values }` (like {@link CTable.readRows}),
   *   restricted to `options.columns`;
   * - `"count"`: the number of matches.
   * `limit` stops after that many matches; `start`/`stop` restrict the rows searched.
   *
   * Errors: `UsageError` `INVALID_ARGUMENT` for a bad expression (with `field: "expression"`, the
   * bad token's position in `actual`, and a caret in the message), an unknown column, bad
   * options, or a predicate mask of the wrong length; read errors of the columns as in
   * {@link CArray.iterBlocks}. Errors thrown by a predicate propagate unchanged.
   *
   * @example
   * ```ts
   * const hits = await t.where('price > 2906.5 & (qty < 10 | sym == "ABC")');   // Float64Array [3, 17, ...]
   * const matching = await t.takeRows(hits);                                      // those rows, every column
   * const n = await t.where("flag & ts >= 1500000000000000000", { as: "count" });
   * const some = await t.where("qty % 2 == 0", { as: "rows", columns: ["id", "qty"], limit: 5 });
   * const viaJs = await t.where({ row: (r) => (r["qty"] as number) > 3, columns: ["qty"] });
   * ```
   */
  where(query: WhereQuery, options?: WhereOptions & { as?: "indices" }): Promise<Float64Array>;
  where(query: WhereQuery, options: WhereOptions & { as: "rows" }): Promise<{ [name: string]: ColumnValues }>;
  where(query: WhereQuery, options: WhereOptions & { as: "count" }): Promise<number>;
  where(query: WhereQuery, options?: WhereOptions): Promise<WhereResult>;
  async where(query: WhereQuery, options: WhereOptions = {}): Promise<WhereResult> {
    // The result of where is one call's output: the table's maxReadBytes bounds it too.
    if (typeof options !== "object" || options === null) return runWhere(this, query, options);
    const maxResultBytes = options.maxResultBytes ?? callLimits(this.#options).maxReadBytes;
    return runWhere(this, query, { ...options, maxResultBytes });
  }

  /**
   * Appends rows to every column, all or nothing: `rows` is either an object of columns
   * (`{ id: BigInt64Array, price: [1.5, 2.5], sym: ["a", "b"] }`, each any carray input) or an
   * array of records (`[{ id: 1n, price: 1.5, sym: "a" }, …]`; a multidimensional column takes
   * an array per record). Every column must be given, with the same number of rows
   * (`UsageError` `INVALID_ARGUMENT` otherwise, before anything is written); values are checked
   * against each dtype first, too.
   *
   * Crash safety: the table root gets a journal (`.append`, holding the old length) while the
   * columns' chunks and then their `meta/sizes` are written, and loses it when all are done. A
   * table interrupted in between is rolled back to the old length when next opened with mode
   * `"a"`; meanwhile (and while an append runs in another process) read-only opens see the
   * length recorded in the journal, the last committed one. An I/O error during the call rolls
   * back at once as far as the store allows.
   *
   * @example
   * ```ts
   * await t.append({ id: [5n, 6n], price: [1.5, 2.5] });
   * await t.append([{ id: 7n, price: 3.5 }]);
   * await v2.append([{ id: 8n, sym: "héllo" }]); // a utf8 vlarray column takes strings
   * ```
   */
  async append(rows: { readonly [name: string]: ArrayInput } | readonly { readonly [name: string]: unknown }[]): Promise<void> {
    const writer = this.#requireWriter();
    const inputs = columnInputs(this.path, this.#names, this.#columns, rows);
    const encoded: (Uint8Array | EncodedElements)[] = [];
    let count: number | undefined;
    for (const [i, column] of this.#columns.entries()) {
      const prepared = column.kind === "vlarray" ? await column.encode(inputs[i] as unknown as VLInput) : await collectRows(inputs[i]!, column.dtype, column.itemsPerRow, 0);
      const n = prepared instanceof Uint8Array ? prepared.length / (column as CArray).atomSize : prepared.count;
      if (count !== undefined && n !== count) {
        throw new UsageError("INVALID_ARGUMENT", `column "${this.#names[i]}" got ${n} rows, column "${this.#names[0]}" got ${count}`, { path: this.path, field: `rows.${this.#names[i]}`, expected: count, actual: n });
      }
      count = n;
      encoded.push(prepared);
    }
    if (count === undefined || count === 0) return;
    const committed = this.length;
    const journalKey = joinKey(this.path, APPEND_JOURNAL_FILE);
    await writer.store.put(journalKey, this.#format.appendJournalBytes(committed));
    try {
      for (const [i, column] of this.#columns.entries()) {
        const prepared = encoded[i]!;
        if (column.kind === "vlarray") await column.appendEncoded(prepared as EncodedElements);
        else await column.append({ bytes: prepared as Uint8Array });
      }
      for (const column of this.#columns) await column.flush();
    } catch (error) {
      let rolledBack = true;
      for (const column of this.#columns) {
        if (column.length !== committed) await column.resize(committed).catch(() => (rolledBack = false));
      }
      if (rolledBack) await writer.store.delete(journalKey).catch(() => undefined);
      throw error;
    }
    await writer.store.delete(journalKey);
  }

  /**
   * Adds a column of `length` rows at `options.position` (default: last) and records it in
   * `__rootdirs__`. `data` is any carray input with exactly `length` rows, or a fill value: a
   * scalar (`0`, `1.5`, `5n`, `true`, `"abc"`, `null` for NaT) or `{ fill: value }` (the form to
   * use for a `Uint8Array` value of an `S` column). `options` are the carray's
   * (`dtype` — inferred from typed arrays and uniform arrays, required for fills of strings —,
   * `chunklen`, `cparams` — default: the first column's —, `dflt`, `attrs`, `shape`).
   *
   * The name must be an ASCII Python identifier that is not a keyword (`UsageError`
   * `UNSAFE_NAME`) nor an existing column (`INVALID_ARGUMENT`). A directory left at that path
   * (e.g. by {@link CTable.deleteColumn} with `keepData`) gives `ConflictError`
   * `ALREADY_EXISTS` unless `overwrite: true`. The column is written completely before
   * `__rootdirs__` names it, so an interruption leaves the table as it was (plus an unlisted
   * directory).
   *
   * @example
   * ```ts
   * await t.addColumn("c", new Int16Array(t.length), { position: 1, cparams: { cname: "zlib", clevel: 9 }, chunklen: 500 });
   * await t.addColumn("flag", false, { dtype: "|b1" });
   * await t.addColumn("note", "n/a", { vtype: "utf8" });           // format 2: a vlarray column, filled
   * await t.addColumn("tags", t.length === 2 ? ["a", "bc"] : [], { vtype: "utf8" });
   * ```
   */
  async addColumn(name: string, data: ArrayInput | ElementInput | VLInput | { fill: ElementInput | readonly ElementInput[] | Uint8Array }, options: AddColumnOptions = {}): Promise<TableColumn> {
    const writer = this.#requireWriter();
    if (typeof options !== "object" || options === null) throw new UsageError("INVALID_ARGUMENT", "options must be an object", { path: this.path, field: "options", actual: options });
    checkNewColumnName(name, "name", this.path);
    if (this.#names.includes(name)) throw new UsageError("INVALID_ARGUMENT", `column "${name}" already exists`, { path: this.path, field: "name", actual: name });
    const position = options.position ?? this.#names.length;
    if (!Number.isSafeInteger(position) || position < 0 || position > this.#names.length) {
      throw new UsageError("OUT_OF_RANGE", "position must be an integer from 0 to the number of columns", { path: this.path, field: "position", expected: `0..${this.#names.length}`, actual: position });
    }
    const length = this.length;
    const column = await createNewColumn(writer.store, this.#format.columnPath(this.path, name), name, data, options, {
      length,
      tableOptions: this.#options,
      first: this.#columns[0],
      format: this.#format,
    });
    try {
      if (column.length !== length) {
        throw new UsageError("INVALID_ARGUMENT", `the new column has ${column.length} rows, the table has ${length}`, { path: this.path, field: "data", expected: length, actual: column.length });
      }
      const names = [...this.#names];
      names.splice(position, 0, name);
      await writer.store.put(this.#format.namesKey(this.path), this.#format.namesBytes(names));
      this.#names = names;
      this.#columns.splice(position, 0, column);
      return column;
    } catch (error) {
      await column.close().catch(() => undefined);
      await removeColumn(writer.store, column).catch(() => undefined);
      throw error;
    }
  }

  /**
   * Removes column `name` from `__rootdirs__` first, then (unless `keepData`) deletes its
   * directory; with `keepData: true` the directory stays on the store, unlisted (bcolz's
   * `delcol(keep=True)`). The last column cannot be deleted (`UsageError` `INVALID_ARGUMENT`).
   *
   * @example
   * ```ts
   * await t.deleteColumn("tmp");
   * await t.deleteColumn("old", { keepData: true });
   * ```
   */
  async deleteColumn(name: string, options: { keepData?: boolean } = {}): Promise<void> {
    const writer = this.#requireWriter();
    const i = this.#names.indexOf(name);
    if (i < 0) throw new UsageError("INVALID_ARGUMENT", "no such column", { path: this.path, field: "name", expected: this.#names.join(", "), actual: name });
    if (this.#names.length === 1) throw new UsageError("INVALID_ARGUMENT", "a ctable keeps at least one column", { path: this.path, field: "name", actual: name });
    const names = this.#names.filter((n) => n !== name);
    await writer.store.put(this.#format.namesKey(this.path), this.#format.namesBytes(names));
    const column = this.#columns[i]!;
    this.#names = names;
    this.#columns.splice(i, 1);
    await column.close();
    if (options.keepData !== true) await removeColumn(writer.store, column);
  }

  /**
   * Renames column `from` to `to` (same rules for `to` as {@link CTable.addColumn}). A store has
   * no rename, so the column's files are copied, in an order that keeps every state openable:
   * 1. the column is flushed and its files copied to `<table>/<to>/` (chunks first,
   *    `meta/sizes` last);
   * 2. `__rootdirs__` is rewritten with the new name in the same position;
   * 3. the old directory is deleted.
   * An interruption before 2 leaves the table unchanged (plus an unlisted copy); after 2, the
   * renamed table (plus leftovers of the old directory).
   *
   * @example
   * ```ts
   * await t.renameColumn("px", "price");
   * ```
   */
  async renameColumn(from: string, to: string): Promise<void> {
    const writer = this.#requireWriter();
    const i = this.#names.indexOf(from);
    if (i < 0) throw new UsageError("INVALID_ARGUMENT", "no such column", { path: this.path, field: "from", expected: this.#names.join(", "), actual: from });
    checkNewColumnName(to, "to", this.path);
    if (from === to) return;
    if (this.#names.includes(to)) throw new UsageError("INVALID_ARGUMENT", `column "${to}" already exists`, { path: this.path, field: "to", actual: to });
    const target = this.#format.columnPath(this.path, to);
    if (await somethingAt(writer.store, target)) {
      throw new ConflictError("ALREADY_EXISTS", `a directory "${to}" already exists in the table`, { path: target, field: "to" });
    }
    const column = this.#columns[i]!;
    const openOptions: OpenOptions = { ...readOptionsOf(this.#options), mode: "a" };
    await column.close();
    try {
      await copyColumn(writer.store, column, target);
      const names = [...this.#names];
      names[i] = to;
      await writer.store.put(this.#format.namesKey(this.path), this.#format.namesBytes(names));
      this.#names = names;
    } catch (error) {
      // Still the old table: take the old column back for writing.
      this.#columns[i] = await openColumn(writer.store, column.path, openOptions);
      throw error;
    }
    await removeColumn(writer.store, column);
    this.#columns[i] = await openColumn(writer.store, target, openOptions);
  }

  /**
   * Writes every column's in-memory rows and `meta/sizes` (the table's own methods already
   * flush after each call; this matters after writing to columns directly).
   *
   * @example
   * ```ts
   * await t.column("price").set(0, 1.25);
   * await t.flush();
   * ```
   */
  async flush(): Promise<void> {
    for (const column of this.#columns) await column.flush();
  }

  /**
   * Flushes, closes every column, releases the table's `.lock` and turns the table read-only.
   * Idempotent; a no-op for read-only tables.
   *
   * @example
   * ```ts
   * const t = await createCtable(store, "trades", [{ name: "id", data: [1, 2, 3] }]);
   * await t.close();
   * ```
   */
  async close(): Promise<void> {
    const writer = this.#writer;
    if (writer === undefined) return;
    this.#writer = undefined;
    try {
      for (const column of this.#columns) await column.close();
    } finally {
      await writer.lock.release();
    }
  }

  async #writeAttrs(value: JsonObject): Promise<void> {
    const writer = this.#requireWriter();
    await writer.store.put(joinKey(this.path, "__attrs__"), encodeMetadata(attrsText(value)));
  }

  #requireWriter(): TableWriter {
    if (this.#writer === undefined || !this.#writer.lock.held) {
      throw new UsageError("READ_ONLY", 'the table is open read-only (open it with mode "a" to write)', { path: this.path, field: "mode", expected: "a", actual: "r" });
    }
    return this.#writer;
  }



  #checkColumns(list: unknown, field: string): string[] {
    if (!Array.isArray(list)) throw new UsageError("INVALID_ARGUMENT", "columns must be an array of column names", { field, expected: "string[]", actual: list });
    const out: string[] = [];
    for (const [i, name] of (list as unknown[]).entries()) {
      if (typeof name !== "string" || !this.#names.includes(name)) {
        throw new UsageError("INVALID_ARGUMENT", `no such column ${JSON.stringify(name)}`, { path: this.path, field: `${field}.${i}`, expected: this.#names.join(", "), actual: name });
      }
      if (!out.includes(name)) out.push(name);
    }
    return out;
  }
}


/** Bytes per row a read of the column is known to need before reading (a vlarray: its offset). */
function knownRowBytes(c: TableColumn): number {
  return c.kind === "vlarray" ? 8 : c.atomSize;
}

/** Rows per chunk of the part that is read row by row (a vlarray: its offsets). */
function rowChunklen(c: TableColumn): number {
  return c.kind === "vlarray" ? c.offsets.chunklen : c.chunklen;
}
