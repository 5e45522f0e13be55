import { ConflictError, FormatError, UsageError } from "@fmt/errors";
import { columnNameProblem, encodeMetadata, parseAttrs, parseRootdirs, parseStorageV2, storageFormatVersion } from "@fmt/meta";
import type { Cparams, JsonObject, JsonValue } from "@fmt/meta";
import type { ReadableStore, WritableStore } from "@fmt/fs-adapters";
import { CArray } from "./carray.js";
import { checkOptions, openCarray, readOptionsOf, requireWritableStore } from "./carray-open.js";
import type { OpenOptions } from "./options.js";
import { createCarray } from "./carray-create.js";
import type { CarrayCreateOptions } from "./carray-create.js";
import type { ArrayInput, ElementInput } from "./carray-encode.js";
import { collectRows } from "./carray-input.js";
import { AttrStore } from "./attr-store.js";
import type { AttrsWriter } from "./attr-store.js";
import { callLimits, checkChunkWork, checkReadBytes } from "./limits.js";
import { DatasetLock } from "./lock.js";
import { chunksTouched, selectedCount } from "./selection.js";
import {
  APPEND_JOURNAL_FILE,
  attrsText,
  checkNewColumnName,
  copyColumnFiles,
  createTableFiles,
  inferColumnDtype,
  knownRows,
  removeColumnFiles,
  repeatedValue,
  TABLE_V1,
  TABLE_V2,
  somethingAt,
} from "./ctable-write.js";
import type { ColumnSpec, CtableCreateOptions, TableFormat } from "./ctable-write.js";
import { checkDatasetPath, checkInteger, joinKey, normalizeSlice, readText, requireText, withPath } from "./internal.js";
import { runWhere } from "@fmt/expr";
import type { TypedValues, Values, WhereOptions, WhereQuery, WhereResult, WhereTable } from "@fmt/expr";

/**
 * One block of rows produced by {@link CTable.iterBlocks}: rows `[start, stop)` of every
 * column, as stored bytes keyed by column name.
 *
 * @example
 * ```ts
 * for await (const block of table.iterBlocks()) console.log(block.start, block.columns["price"]!.length);
 * ```
 */
export interface TableBlock {
  /** First row of the block. */
  start: number;
  /** One past the last row of the block. */
  stop: number;
  /** Stored bytes of each column for these rows. */
  columns: { [name: string]: Uint8Array };
}

/**
 * Options of {@link CTable.iterBlocks}.
 *
 * @example
 * ```ts
 * const opts: TableBlockOptions = { columns: ["id", "price"], blockLen: 4096, start: 0, stop: 100_000 };
 * ```
 */
export interface TableBlockOptions {
  /** Columns to read, in this order (default: all, in table order). */
  columns?: readonly string[];
  /** Rows per block; blocks start at multiples of it. Default: the chunklen of the first selected column. */
  blockLen?: number;
  /** First row (default 0). */
  start?: number;
  /** One past the last row (default: the length). */
  stop?: number;
}

/** The write state of a table open in mode "a". */
type TableWriter = { store: WritableStore; lock: DatasetLock };

/**
 * Options of {@link CTable.addColumn}: the carray options of the new column, plus where it goes.
 *
 * @example
 * ```ts
 * const options: AddColumnOptions = { position: 1, dtype: "<i2", cparams: { cname: "zlib", clevel: 9 }, chunklen: 500 };
 * ```
 */
export interface AddColumnOptions extends Partial<Omit<CarrayCreateOptions, "mode" | "breakLock" | "maxReadBytes" | "maxChunksPerCall" | "prefetch">> {
  /** Index in the column order (0 = first; default: after the last column). */
  position?: number;
  /** Replace a directory of that name left in the table root (not a listed column). Default false. */
  overwrite?: boolean;
}

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
  #columns: CArray[];
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
  constructor(store: ReadableStore, path: string, names: string[], columns: CArray[], attrs: { [key: string]: JsonValue }, writer?: { store: WritableStore; lock: DatasetLock }, options: OpenOptions = {}, format: TableFormat = TABLE_V1) {
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
  get columns(): readonly CArray[] {
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
  column(name: string): CArray {
    const i = this.#names.indexOf(name);
    if (i < 0) throw new UsageError("INVALID_ARGUMENT", "no such column", { path: this.path, field: "name", expected: this.#names.join(", "), actual: name });
    return this.#columns[i]!;
  }

  /**
   * Decoded values of one column, sliced like {@link CArray.read}.
   *
   * @example
   * ```ts
   * const prices = await t.readColumn("price");         // whole column
   * const some = await t.readColumn("price", 100, 200);  // rows 100..199
   * ```
   */
  async readColumn(name: string, start?: number, stop?: number, step?: number): Promise<Values> {
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
  async takeRows(indices: ArrayLike<number>, columns?: readonly string[]): Promise<{ [name: string]: Values }> {
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
  async readRows(start?: number, stop?: number, step?: number, columns?: readonly string[]): Promise<{ [name: string]: Values }> {
    const s = normalizeSlice(this.length, start, stop, step);
    const names = columns === undefined ? this.#names : [...columns];
    const selected = names.map((name) => this.column(name));
    // The limits hold for the call as a whole, not per column.
    const limits = callLimits(this.#options);
    checkReadBytes(limits, selected.reduce((total, c) => total + selectedCount(s.start, s.stop, s.step) * c.atomSize, 0), this.path);
    checkChunkWork(limits, selected.reduce((total, c) => total + chunksTouched(s.start, s.stop, s.step, c.chunklen), 0), this.path);
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
    const len = opts.blockLen ?? selected[0]?.chunklen ?? this.#columns[0]?.chunklen ?? 1;
    checkInteger(len, "blockLen");
    if (len < 1) throw new UsageError("INVALID_ARGUMENT", "blockLen must be at least 1", { field: "blockLen", expected: ">= 1", actual: len });
    checkInteger(from, "start");
    checkInteger(to, "stop");
    if (from < 0 || to > this.length || from > to) {
      throw new UsageError("OUT_OF_RANGE", "row range out of bounds", { path: this.path, field: "start..stop", expected: `0 <= start <= stop <= ${this.length}`, actual: `${from}..${to}` });
    }
    const limits = callLimits(this.#options);
    checkReadBytes(limits, selected.reduce((total, c) => total + Math.min(len, to - from) * c.atomSize, 0), this.path);
    checkChunkWork(limits, selected.reduce((total, c) => total + chunksTouched(from, to, 1, c.chunklen), 0), this.path);
    if (selected.length === 0) {
      for (let pos = from; pos < to; ) {
        const blockStop = Math.min(to, (Math.floor(pos / len) + 1) * len);
        yield { start: pos, stop: blockStop, columns: Object.create(null) as { [name: string]: Uint8Array } };
        pos = blockStop;
      }
      return;
    }
    const iterators = selected.map((c) => c.iterBlocks(len, from, to));
    try {
      for (let pos = from; pos < to; ) {
        const steps = await Promise.all(iterators.map((it) => it.next()));
        const columns: { [name: string]: Uint8Array } = Object.create(null) as { [name: string]: Uint8Array };
        let blockStop = pos;
        steps.forEach((step, i) => {
          // Every column yields the same block boundaries, since they depend only on the arguments.
          if (step.done !== true) {
            columns[names[i]!] = step.value.bytes;
            blockStop = step.value.stop;
          }
        });
        if (blockStop <= pos) return; // unreachable unless a column ends early
        yield { start: pos, stop: blockStop, columns };
        pos = blockStop;
      }
    } finally {
      await Promise.all(iterators.map((it) => it.return(undefined)));
    }
  }

  /**
   * Finds the rows that satisfy `query`, evaluating it block by block (chunk-aligned blocks of
   * rows, see {@link CTable.iterBlocks}) and reading only the columns it needs.
   *
   * `query` is an expression string (grammar and typing rules: {@link parseExpression},
   * {@link compileExpression}), e.g. `'price > 2906.5 & (qty < 10 | sym == "ABC")'`, or a JS
   * predicate ({@link WhereQuery}). The result depends on `options.as`:
   * - `"indices"` (default): the matching row numbers, ascending, as `number[]`;
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
   * const hits = await t.where('price > 2906.5 & (qty < 10 | sym == "ABC")');   // [3, 17, ...]
   * const n = await t.where("flag & ts >= 1500000000000000000", { as: "count" });
   * const some = await t.where("qty % 2 == 0", { as: "rows", columns: ["id", "qty"], limit: 5 });
   * const viaJs = await t.where({ row: (r) => (r["qty"] as number) > 3, columns: ["qty"] });
   * ```
   */
  where(query: WhereQuery, options?: WhereOptions & { as?: "indices" }): Promise<number[]>;
  where(query: WhereQuery, options: WhereOptions & { as: "rows" }): Promise<{ [name: string]: Values }>;
  where(query: WhereQuery, options: WhereOptions & { as: "count" }): Promise<number>;
  where(query: WhereQuery, options?: WhereOptions): Promise<WhereResult>;
  async where(query: WhereQuery, options: WhereOptions = {}): Promise<WhereResult> {
    // The result of where is one call's output: the table's maxReadBytes bounds it too.
    if (typeof options !== "object" || options === null) return runWhere(this as WhereTable, query, options);
    const maxResultBytes = options.maxResultBytes ?? callLimits(this.#options).maxReadBytes;
    return runWhere(this as WhereTable, query, { ...options, maxResultBytes });
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
   * ```
   */
  async append(rows: { readonly [name: string]: ArrayInput } | readonly { readonly [name: string]: unknown }[]): Promise<void> {
    const writer = this.#requireWriter();
    const inputs = this.#columnInputs(rows);
    const encoded: Uint8Array[] = [];
    let count: number | undefined;
    for (const [i, column] of this.#columns.entries()) {
      const bytes = await collectRows(inputs[i]!, column.dtype, column.itemsPerRow, 0);
      const n = bytes.length / column.atomSize;
      if (count !== undefined && n !== count) {
        throw new UsageError("INVALID_ARGUMENT", `column "${this.#names[i]}" got ${n} rows, column "${this.#names[0]}" got ${count}`, { path: this.path, field: `rows.${this.#names[i]}`, expected: count, actual: n });
      }
      count = n;
      encoded.push(bytes);
    }
    if (count === undefined || count === 0) return;
    const committed = this.length;
    const journalKey = joinKey(this.path, APPEND_JOURNAL_FILE);
    await writer.store.put(journalKey, this.#format.appendJournalBytes(committed));
    try {
      for (const [i, column] of this.#columns.entries()) await column.append({ bytes: encoded[i]! });
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
   * ```
   */
  async addColumn(name: string, data: ArrayInput | ElementInput | { fill: ElementInput | readonly ElementInput[] }, options: AddColumnOptions = {}): Promise<CArray> {
    const writer = this.#requireWriter();
    if (typeof options !== "object" || options === null) throw new UsageError("INVALID_ARGUMENT", "options must be an object", { path: this.path, field: "options", actual: options });
    checkNewColumnName(name, "name", this.path);
    if (this.#names.includes(name)) throw new UsageError("INVALID_ARGUMENT", `column "${name}" already exists`, { path: this.path, field: "name", actual: name });
    const position = options.position ?? this.#names.length;
    if (!Number.isSafeInteger(position) || position < 0 || position > this.#names.length) {
      throw new UsageError("OUT_OF_RANGE", "position must be an integer from 0 to the number of columns", { path: this.path, field: "position", expected: `0..${this.#names.length}`, actual: position });
    }
    const isFill = (v: unknown): v is { fill: ElementInput | readonly ElementInput[] } => typeof v === "object" && v !== null && !ArrayBuffer.isView(v) && !Array.isArray(v) && "fill" in v;
    const scalar = data === null || typeof data === "number" || typeof data === "bigint" || typeof data === "boolean" || typeof data === "string";
    const fill = isFill(data) ? data.fill : scalar ? (data as ElementInput) : undefined;
    const hasFill = isFill(data) || scalar;
    const dtype = options.dtype ?? inferColumnDtype(hasFill ? (Array.isArray(fill) ? fill : [fill]) : data);
    if (dtype === undefined) {
      throw new UsageError("INVALID_ARGUMENT", `cannot infer the dtype of column "${name}"; give options.dtype`, { path: this.path, field: "options.dtype", expected: 'a dtype such as "<f8" or "|S6"' });
    }
    const length = this.length;
    const itemsPerRow = (options.shape ?? []).reduce((a, b) => a * b, 1);
    const createOptions: CarrayCreateOptions = {
      ...options,
      ...readOptionsOf(this.#options),
      // A pool given for this column wins over the table's.
      workers: options.workers ?? this.#options.workers,
      dtype,
      cparams: options.cparams ?? (this.#columns[0]?.cparams as Partial<Cparams> | undefined),
      mode: options.overwrite === true ? "w" : "a",
      // The new column takes the table's format, and in format 2 the first column's superchunk settings unless given.
      formatVersion: this.#format.version,
      ...(this.#format.version === 2 ? { ...this.#columns[0]?.superchunks, ...pickDefined(options, ["superchunksize", "checksum", "spare"]) } : {}),
    };
    delete (createOptions as { position?: unknown }).position;
    delete (createOptions as { overwrite?: unknown }).overwrite;
    let input: ArrayInput;
    if (hasFill) {
      input = repeatedValue(fill as ElementInput | readonly ElementInput[], length, 65536);
      createOptions.expectedlen ??= length;
    } else {
      input = data as ArrayInput;
      const known = knownRows(input, itemsPerRow);
      if (known !== undefined && known !== length) {
        throw new UsageError("INVALID_ARGUMENT", `the new column has ${known} rows, the table has ${length}`, { path: this.path, field: "data", expected: length, actual: known });
      }
    }
    const key = this.#format.columnPath(this.path, name);
    if (options.overwrite !== true && (await somethingAt(writer.store, key))) {
      throw new ConflictError("ALREADY_EXISTS", `a directory "${name}" exists in the table but is not one of its columns (use overwrite: true to replace it)`, { path: key, field: "name" });
    }
    const column = await createCarray(writer.store, key, input, createOptions);
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
      await removeColumnFiles(writer.store, key, column.chunkCount + 1).catch(() => undefined);
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
    if (options.keepData !== true) await removeColumnFiles(writer.store, column.path, column.chunkCount + 1);
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
    const files = column.chunkCount + 1;
    const openOptions: OpenOptions = { ...readOptionsOf(this.#options), mode: "a" };
    await column.close();
    try {
      await copyColumnFiles(writer.store, column.path, target, files);
      const names = [...this.#names];
      names[i] = to;
      await writer.store.put(this.#format.namesKey(this.path), this.#format.namesBytes(names));
      this.#names = names;
    } catch (error) {
      // Still the old table: take the old column back for writing.
      this.#columns[i] = await openCarray(writer.store, column.path, openOptions);
      throw error;
    }
    await removeColumnFiles(writer.store, column.path, files);
    this.#columns[i] = await openCarray(writer.store, target, openOptions);
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

  /** The input of every column, in column order, from an object of columns or an array of records. */
  #columnInputs(rows: unknown): ArrayInput[] {
    if (Array.isArray(rows)) {
      const perColumn: ElementInput[][] = this.#names.map(() => []);
      rows.forEach((record: unknown, r) => {
        if (typeof record !== "object" || record === null) throw new UsageError("INVALID_ARGUMENT", "a record must be an object", { path: this.path, field: `rows.${r}`, actual: record });
        const keys = Object.keys(record);
        for (const k of keys) if (!this.#names.includes(k)) throw new UsageError("INVALID_ARGUMENT", `unknown column "${k}"`, { path: this.path, field: `rows.${r}.${k}`, expected: this.#names.join(", ") });
        this.#names.forEach((name, c) => {
          if (!(name in record)) throw new UsageError("INVALID_ARGUMENT", `record lacks column "${name}"`, { path: this.path, field: `rows.${r}.${name}`, expected: "a value for every column" });
          const value = (record as { [k: string]: unknown })[name];
          if (this.#columns[c]!.itemsPerRow !== 1 && typeof value === "object" && value !== null && "length" in value) perColumn[c]!.push(...Array.from(value as ArrayLike<ElementInput>));
          else perColumn[c]!.push(value as ElementInput);
        });
      });
      return perColumn;
    }
    if (typeof rows !== "object" || rows === null) throw new UsageError("INVALID_ARGUMENT", "rows must be an object of columns or an array of records", { path: this.path, field: "rows", actual: rows });
    for (const k of Object.keys(rows)) if (!this.#names.includes(k)) throw new UsageError("INVALID_ARGUMENT", `unknown column "${k}"`, { path: this.path, field: `rows.${k}`, expected: this.#names.join(", ") });
    return this.#names.map((name) => {
      if (!(name in rows)) throw new UsageError("INVALID_ARGUMENT", `column "${name}" is missing`, { path: this.path, field: `rows.${name}`, expected: "data for every column" });
      return (rows as { [k: string]: ArrayInput })[name]!;
    });
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

function checkColumnName(name: unknown, index: number, key: string): string {
  // parseRootdirs checks this too; repeated here because a bad name would reach the store.
  const problem = typeof name === "string" ? columnNameProblem(name) : "not a string";
  if (problem !== undefined) {
    throw new FormatError("UNSAFE_NAME", `column name is not a safe directory name: ${problem}`, { path: key, field: `names.${index}`, actual: name });
  }
  return name as string;
}

/**
 * Opens the ctable whose directory is `path` in `store` (`""` = the store root): reads
 * `__rootdirs__` and `__attrs__` and opens every column as a carray at `<path>/<name>`.
 *
 * `options.mode`: `"r"` (default) reads only and takes no lock. `"a"` opens for writing (needs
 * a WritableStore): takes `<path>/.lock` (`ConflictError` `LOCKED` if another writer holds it;
 * `breakLock` for a stale one), opens every column with mode `"a"`, and rolls back an append
 * that was interrupted (see {@link CTable.append}). `"w"` is `"a"` followed by truncating every
 * column to 0 rows (bcolz refuses to reopen a ctable with `'w'`; here it means "empty it").
 *
 * Errors: `FormatError` `MISSING_FILE` (no `__rootdirs__`, or a column's metadata), `UNSAFE_NAME`
 * (a column name that is not a single safe path segment), `BAD_METADATA` (duplicate names),
 * `INCONSISTENT` (columns of different lengths with no append journal to explain them, naming
 * the column's `meta/sizes`), plus every error of {@link openCarray}. A read-only open during an
 * append (in this or another process, or after one was interrupted) sees the last committed
 * length: columns are read up to the length the append journal records.
 * When several columns are bad, the first in order is reported.
 *
 * @example
 * ```ts
 * const t = await openCtable(store, "trades.bcolz");
 * console.log(t.columns.map((c) => c.dtype.str));
 * const w = await openCtable(store, "trades.bcolz", { mode: "a" });
 * await w.append([{ id: 9n, price: 1.5 }]);
 * await w.close();
 * ```
 */
export async function openCtable(store: ReadableStore, path = "", options: OpenOptions = {}): Promise<CTable> {
  const base = checkDatasetPath(path);
  const source = await tableSource(store, base);
  if (source === undefined) return openCtableWith(store, base, options, { format: TABLE_V1, namesText: await requireText(store, joinKey(base, "__rootdirs__")) });
  return openCtableWith(store, base, options, source);
}

/**
 * Which table format the root `base` holds, with the text of the file that lists its columns:
 * `__rootdirs__` (format 1), or a format-2 `meta/storage` of kind ctable; `undefined` otherwise.
 */
async function tableSource(store: ReadableStore, base: string): Promise<TableSource | undefined> {
  const rootdirs = await readText(store, joinKey(base, "__rootdirs__"));
  if (rootdirs !== undefined) return { format: TABLE_V1, namesText: rootdirs };
  const storageKey = joinKey(base, "meta/storage");
  const storage = await readText(store, storageKey);
  if (storage === undefined) return undefined;
  try {
    if (storageFormatVersion(storage, storageKey) === 2 && parseStorageV2(storage, storageKey).kind === "ctable") return { format: TABLE_V2, namesText: storage };
  } catch {
    // Not a readable format-2 table: opening it as a carray reports what is wrong.
  }
  return undefined;
}

/** The format of a table and the text of the file listing its columns. @internal */
export interface TableSource {
  format: TableFormat;
  namesText: string;
}

/** Column names from `__rootdirs__` (format 1) or `meta/storage` (format 2), checked. */
function readNames(format: TableFormat, rootKey: string, rootdirsText: string): string[] {
  const names = format.version === 1
    ? withPath(rootKey, () => parseRootdirs(rootdirsText, rootKey)).names
    : withPath(rootKey, () => {
        const storage = parseStorageV2(rootdirsText, rootKey);
        if (storage.kind !== "ctable") throw new FormatError("BAD_METADATA", "not a ctable", { path: rootKey, field: "/kind", expected: "ctable", actual: storage.kind });
        return storage.columns;
      });
  if (format.version === 2) {
    // Stricter than format 1: ASCII identifiers only (spec/v2.md §11).
    names.forEach((name, i) => {
      if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name) || name === "__attrs__" || name === "__rootdirs__") {
        throw new FormatError("UNSAFE_NAME", "a format-2 column name is an ASCII identifier", { path: rootKey, field: `/columns/${i}`, expected: "[A-Za-z_][A-Za-z0-9_]*", actual: name });
      }
    });
  }
  const seen = new Set<string>();
  names.forEach((name, i) => {
    checkColumnName(name, i, rootKey);
    if (seen.has(name)) throw new FormatError("BAD_METADATA", "column name listed twice", { path: rootKey, field: `names.${i}`, actual: name });
    seen.add(name);
  });
  return names;
}

/** The old length recorded by an interrupted append, or undefined. */
async function readAppendJournal(store: ReadableStore, base: string): Promise<number | undefined> {
  const key = joinKey(base, APPEND_JOURNAL_FILE);
  const text = await readText(store, key);
  if (text === undefined) return undefined;
  let length: unknown;
  try {
    length = (JSON.parse(text) as { length?: unknown }).length;
  } catch (cause) {
    throw new FormatError("BAD_JSON", "the journal of an interrupted append is not JSON", { path: key, field: "text", cause });
  }
  if (typeof length !== "number" || !Number.isSafeInteger(length) || length < 0) {
    throw new FormatError("BAD_METADATA", "the journal of an interrupted append needs a length", { path: key, field: "length", actual: length });
  }
  return length;
}

function checkLengths(names: string[], columns: CArray[], interrupted: boolean): void {
  const first = columns[0];
  for (const [i, column] of columns.entries()) {
    if (first !== undefined && column.length !== first.length) {
      const hint = interrupted ? ' (an append was interrupted; open the table with mode "a" to roll it back)' : "";
      throw new FormatError("INCONSISTENT", `column "${names[i]}" has ${column.length} rows, column "${names[0]}" has ${first.length}${hint}`, {
        path: joinKey(column.path, column.formatVersion === 1 ? "meta/sizes" : "meta/shape"),
        field: "shape.0",
        expected: first.length,
        actual: column.length,
      });
    }
  }
}

/** How often a reader re-reads the columns' `meta/sizes` when it caught a writer between two of them. */
const READ_ATTEMPTS = 8;

/**
 * Opens every column read-only and returns them at the table's last committed length (spec v1
 * §8.5). The append journal is read after the columns: when it exists, its length is committed
 * and every column holds at least that many rows (rows beyond it belong to the append in
 * progress and are left out). A journal claiming more rows than some column has, or unequal
 * columns without a journal, means a writer moved on between the reads: read again. Only
 * columns that stay unequal with no journal are `INCONSISTENT`.
 */
async function committedColumns(store: ReadableStore, base: string, names: string[], options: OpenOptions, format: TableFormat): Promise<CArray[]> {
  for (let attempt = 1; ; attempt++) {
    const settled = await Promise.allSettled(names.map(async (name) => {
      await checkColumnStorage(store, format, format.columnPath(base, name));
      return openCarray(store, format.columnPath(base, name), options);
    }));
    const columns: CArray[] = [];
    for (const result of settled) {
      if (result.status === "rejected") throw result.reason;
      columns.push(checkColumnVersion(result.value, format));
    }
    const journalLength = await readAppendJournal(store, base);
    if (journalLength !== undefined && columns.every((c) => c.length >= journalLength)) {
      return columns.map((c) => (c.length === journalLength ? c : c.committedPrefix(journalLength)));
    }
    if (journalLength === undefined && columns.every((c) => c.length === columns[0]!.length)) return columns;
    if (attempt === READ_ATTEMPTS) {
      checkLengths(names, columns, journalLength !== undefined);
      // Equal columns below the journal's length: the journal is not this table's.
      throw new FormatError("INCONSISTENT", `the append journal records ${journalLength} rows, the columns have ${columns[0]!.length}`, {
        path: joinKey(base, APPEND_JOURNAL_FILE),
        field: "length",
        expected: `<= ${columns[0]!.length}`,
        actual: journalLength,
      });
    }
  }
}

function pickDefined<T extends object, K extends keyof T>(from: T, keys: readonly K[]): Partial<Pick<T, K>> {
  const out: Partial<Pick<T, K>> = {};
  for (const k of keys) if (from[k] !== undefined) out[k] = from[k];
  return out;
}

/**
 * A format-2 table's column must announce format 2 itself (spec/v2.md §11: `INCONSISTENT`), which
 * is checked before the column is opened (as format 1 it would fail on a missing `meta/sizes`).
 */
async function checkColumnStorage(store: ReadableStore, format: TableFormat, columnPath: string): Promise<void> {
  if (format.version !== 2) return;
  const key = joinKey(columnPath, "meta/storage");
  const text = await readText(store, key);
  if (text === undefined) return; // openCarray reports MISSING_FILE
  const version = withPath(key, () => storageFormatVersion(text, key));
  if (version !== 2) throw new FormatError("INCONSISTENT", `a format-2 table holds a format-${version} column`, { path: key, field: "/format_version", expected: 2, actual: version });
}

/** A format-2 table's columns are format-2 carrays (spec/v2.md §11). */
function checkColumnVersion(column: CArray, format: TableFormat): CArray {
  if (column.formatVersion !== format.version) {
    throw new FormatError("INCONSISTENT", `a format-${format.version} table holds a format-${column.formatVersion} column`, { path: joinKey(column.path, "meta/storage"), field: "/format_version", expected: format.version, actual: column.formatVersion });
  }
  return column;
}

/** {@link openCtable} with the file listing the columns already read. */
export async function openCtableWith(store: ReadableStore, base: string, options: OpenOptions, source: TableSource): Promise<CTable> {
  checkOptions(options);
  const mode = options.mode ?? "r";
  const { format, namesText: rootdirsText } = source;
  const rootKey = format.namesKey(base);
  const attrsKey = joinKey(base, "__attrs__");
  if (mode === "r") {
    const names = readNames(format, rootKey, rootdirsText);
    const attrsText = await readText(store, attrsKey);
    if (attrsText === undefined && format.version === 2) throw new FormatError("MISSING_FILE", "__attrs__ is missing", { path: attrsKey, field: "file" });
    const attrs = attrsText === undefined ? {} : withPath(attrsKey, () => parseAttrs(attrsText, attrsKey));
    const columns = await committedColumns(store, base, names, options, format);
    return new CTable(store, base, names, columns, attrs, undefined, options, format);
  }
  const writable = requireWritableStore(store);
  const lock = await DatasetLock.acquire(writable, base, { breakLock: options.breakLock === true });
  const columns: CArray[] = [];
  try {
    // Read again under the lock: another writer may have changed the table meanwhile.
    const names = readNames(format, rootKey, await requireText(writable, rootKey));
    const attrsText = await readText(writable, attrsKey);
    const attrs = attrsText === undefined ? {} : withPath(attrsKey, () => parseAttrs(attrsText, attrsKey));
    const columnOptions: OpenOptions = { ...options, mode: "a" };
    for (const name of names) {
      await checkColumnStorage(writable, format, format.columnPath(base, name));
      columns.push(checkColumnVersion(await openCarray(writable, format.columnPath(base, name), columnOptions), format));
    }
    const journalLength = await readAppendJournal(writable, base);
    if (journalLength !== undefined) {
      // Roll an interrupted append back: every column returns to the length it had before.
      for (const column of columns) if (column.length > journalLength) await column.resize(journalLength);
      checkLengths(names, columns, false);
      await writable.delete(joinKey(base, APPEND_JOURNAL_FILE));
    }
    checkLengths(names, columns, false);
    if (mode === "w") for (const column of columns) await column.resize(0);
    return new CTable(writable, base, names, columns, attrs, { store: writable, lock }, options, format);
  } catch (error) {
    for (const column of columns) await column.close().catch(() => undefined);
    await lock.release();
    throw error;
  }
}

/**
 * Creates a bcolz 1.x ctable at `path` in `store` from columns (name, data, carray options)
 * and returns it open for writing; call {@link CTable.close} when done (the table holds
 * `<path>/.lock`, each column its own). Files are what bcolz writes: one carray directory per
 * column (see {@link createCarray}), `__attrs__`, and `__rootdirs__` (`{"names": [...]}`),
 * written last so that the table opens only once complete.
 *
 * Column names must be ASCII Python identifiers that are not keywords (`UsageError`
 * `UNSAFE_NAME`); all columns must have the same number of rows (`INVALID_ARGUMENT`). A dtype
 * is inferred from typed arrays and uniform arrays when a column gives none. `mode: "w"`
 * replaces whatever is at `path`; the default `"a"` refuses with `ConflictError`
 * `ALREADY_EXISTS`.
 *
 * @example
 * ```ts
 * import { MemoryStore } from "@fmt/fs-adapters";
 * const store = new MemoryStore();
 * const t = await createCtable(store, "trades", [
 *   { name: "id", data: new BigInt64Array([1n, 2n, 3n]) },
 *   { name: "price", data: [1.5, 2.5, 3.5], options: { dtype: "<f8", cparams: { cname: "zstd" } } },
 *   { name: "sym", data: ["AB", "C", "DEF"], options: { dtype: "|S3" } },
 * ], { chunklen: 1024 });
 * await t.append([{ id: 4n, price: 4.5, sym: "GH" }]);
 * await t.close();
 * ```
 */
export async function createCtable(store: WritableStore, path: string, columns: readonly ColumnSpec[], options: CtableCreateOptions = {}): Promise<CTable> {
  const created = await createTableFiles(store, path, columns, options);
  const openOptions = readOptionsOf(options);
  return new CTable(created.store, created.base, created.names, created.columns, created.attrs, { store: created.store, lock: created.lock }, openOptions, created.format);
}

/**
 * Opens the bcolz dataset at `path` in `store`, like `bcolz.open`: a {@link CTable} when
 * `<path>/__rootdirs__` exists, else a {@link CArray}.
 *
 * @example
 * ```ts
 * import { FileSystemStore } from "@fmt/fs-adapters/node";
 * const dataset = await open(new FileSystemStore("/data/prices.bcolz"));
 * if (dataset.kind === "ctable") console.log(dataset.names);
 * else console.log(dataset.dtype.str, dataset.length);
 * ```
 */
export async function open(store: ReadableStore, path = "", options: OpenOptions = {}): Promise<CArray | CTable> {
  const base = checkDatasetPath(path);
  checkOptions(options);
  const source = await tableSource(store, base);
  if (source !== undefined) return openCtableWith(store, base, options, source);
  return openCarray(store, base, options);
}
