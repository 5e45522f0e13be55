/**
 * The types of the ctable's API that are declarations only: what a column is ({@link TableColumn}),
 * what `CTable.iterBlocks` takes and yields ({@link TableBlockOptions}, {@link TableBlock}) and
 * the options of `CTable.addColumn` ({@link AddColumnOptions}). Kept apart from the class so that
 * ctable.ts holds the table's behaviour only; ctable.ts re-exports them, so importers are unchanged.
 *
 * @example
 * ```ts
 * import type { TableBlockOptions } from "./ctable-types.js";
 * const opts: TableBlockOptions = { columns: ["price"], blockLen: 4096 };
 * ```
 * @module
 */
import type { CArray } from "./carray.js";
import type { CarrayCreateOptions } from "./carray-create.js";
import type { VLArray } from "./vlarray.js";
import type { VLType, VLValues } from "./vlarray-elements.js";

/**
 * A column of a table: a {@link CArray}, or in format 2 a {@link VLArray} (spec/v2.md §11).
 *
 * @example
 * ```ts
 * const c: TableColumn = t.column("sym");
 * if (c.kind === "vlarray") console.log(c.vtype);
 * ```
 */
export type TableColumn = CArray | VLArray;

/**
 * One block of rows produced by {@link CTable.iterBlocks}: rows `[start, stop)` of every
 * column, as stored bytes keyed by column name (and, for vlarray columns, decoded elements).
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
  /** Stored bytes of each fixed-size (carray) column for these rows. */
  columns: { [name: string]: Uint8Array };
  /** The elements of each vlarray column for these rows (`string[]` for utf8, `Uint8Array[]` for bytes, `Values[]` for ragged); absent when none is selected. */
  elements?: { [name: string]: VLValues };
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
  /**
   * Hand out each block's bytes in memory that later blocks reuse (default false): a block is
   * then valid only until the next one is asked for (as `reuse` of `CArray.iterBlocks`, whose
   * notes on memory apply).
   */
  reuse?: boolean;
  /** As `blocksUnusedAfterLoop` of `CArray.iterBlocks`. @internal */
  blocksUnusedAfterLoop?: boolean;
}

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
  /** Format 2: a variable-length column (a vlarray, spec/v2.md §12) of `"utf8"` strings, `"bytes"` or `"ragged"` arrays of `dtype`. */
  vtype?: VLType;
  /** With `vtype`: rows per chunk of the column's `offsets/` (default `chunklen`). */
  offsetsChunklen?: number;
  /** Replace a directory of that name left in the table root (not a listed column). Default false. */
  overwrite?: boolean;
}
