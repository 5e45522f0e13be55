/**
 * Open and read bcolz 1.x carray and ctable directories from any store of
 * `@fmt/fs-adapters` (memory, local files, HTTP, …).
 *
 * - {@link open} picks carray or ctable like `bcolz.open`; {@link openCarray} and
 *   {@link openCtable} open one kind.
 * - {@link CArray} reads rows as stored bytes (`readBytes`, `getBytes`, `iterBlocks`,
 *   `chunkBytes`) or as decoded JavaScript values (`read`, `get`; see {@link Values}).
 * - {@link CTable} reads columns (`readColumn`), row ranges (`readRows`) and blocks of all columns
 *   (`iterBlocks`).
 *
 * Byte-level results keep the dtype's byte order; {@link toLittleEndian} converts.
 *
 * @example
 * ```ts
 * import { FileSystemStore } from "@fmt/fs-adapters/node";
 * import { open } from "@fmt/store";
 *
 * const dataset = await open(new FileSystemStore("/data/prices.bcolz"));
 * if (dataset.kind === "carray") console.log(await dataset.read(0, 5));
 * else console.log(await dataset.readRows(0, 5));
 * ```
 * @packageDocumentation
 */

export { CArray, openCarray } from "./carray.js";
export type { OpenOptions, RowBlock } from "./carray.js";
export { CTable, open, openCtable } from "./ctable.js";
export type { TableBlock } from "./ctable.js";
export { byteOrderUnit, decodeValues, toLittleEndian } from "./values.js";
export type { Scalar, TypedValues, Values } from "./values.js";
