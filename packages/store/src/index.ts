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

export { CArray } from "./carray.js";
export type { SuperchunkSettings } from "./carray.js";
export { openCarray } from "./carray-open.js";
export type { IterBlocksOptions, OpenMode, OpenOptions, RowBlock, Selector, SliceSelector } from "./options.js";
export { createCarray, resolveCparams, writableDtype } from "./carray-create.js";
export type { CarrayCreateOptions } from "./carray-create.js";
export { computeChunklen, halfBits, quantizeBits, quantizeValue } from "./carray-encode.js";
export type { ArrayInput, ElementInput, RawRows, ValuesBlock } from "./carray-encode.js";
export { AttrStore } from "./attr-store.js";
export type { AttrsWriter } from "./attr-store.js";
export { JOURNAL_FILE, readJournal } from "./layout-v1.js";
export { DatasetLock, LOCK_FILE } from "./lock.js";
export { DEFAULT_MAX_CHUNKS_PER_CALL, DEFAULT_MAX_READ_BYTES, MAX_RESIZE_BYTES } from "./limits.js";
export type { LockOptions } from "./lock.js";
export { CTable } from "./ctable.js";
export { carraysOf, createCtable, open, openCtable } from "./ctable-open.js";
export { VLArray } from "./vlarray.js";
export type { VLBlock } from "./vlarray.js";
export { createVLArray, openColumn, openVLArray } from "./vlarray-open.js";
export type { VLArrayCreateOptions } from "./vlarray-open.js";
export { encodeElements } from "./vlarray-elements.js";
export type { EncodedElements, VLElement, VLElementInput, VLInput, VLType, VLValues } from "./vlarray-elements.js";
export type { AddColumnOptions, TableBlock, TableBlockOptions, TableColumn } from "./ctable.js";
export { APPEND_JOURNAL_FILE, inferColumnDtype, newColumnNameProblem } from "./ctable-write.js";
export type { ColumnSpec, CtableCreateOptions } from "./ctable-write.js";
export { EXPRESSION_KEYWORDS, EXPRESSION_LIMITS, compileExpression, formatExpression, parseExpression } from "@fmt/expr";
export type { ArithmeticOperator, CompareOperator, CompiledExpression, ExpressionErrorLocation, ExpressionInput, ExpressionNode, ExpressionSchema, FormatExpressionOptions, NodeSpan } from "@fmt/expr";
export { runWhere } from "@fmt/expr";
export type { BlockPredicate, PredicateBlock, RowPredicate, WhereBlock, WhereOptions, WhereQuery, WhereResult, WhereTable } from "@fmt/expr";
export { byteOrderUnit, decodeValues, halfToNumber, toLittleEndian } from "@fmt/expr";
export type { ColumnValues, Scalar, TypedValues, Values } from "@fmt/expr";
export { convert } from "./convert.js";
export type { ConvertOptions, ConvertResult } from "./convert.js";
export { verify } from "./verify.js";
export { MIN_HELPED_CHUNKS } from "./read-helpers.js";
export type { HelperAnswer, HelperDataset, HelperTask, ReadHelpers } from "./read-helpers.js";
export type { PartialSum } from "./carray-scan.js";
export type { VerifyOptions, VerifyProblem, VerifyReport } from "./verify.js";
