/**
 * bcolz ctables and carrays as Apache Arrow, and Arrow as ctables:
 *
 * - {@link toRecordBatches} streams a dataset (all of it, a row slice, or the rows matching a
 *   `where` expression) as `RecordBatch`es, one per stored block, wrapping fixed-width column
 *   bytes without copying where the layout allows; {@link tableToArrow} collects them into a
 *   `Table`; {@link arrowSchemaOf} gives the schema up front; {@link batchMaker} converts single
 *   blocks.
 * - {@link ipcChunks}, {@link datasetToIpc} and {@link datasetToIpcBytes} write Arrow IPC (stream
 *   or file format).
 * - {@link importArrow} writes an Arrow `Table`, record batches or IPC bytes as a new ctable on
 *   any store, batch by batch.
 *
 * Browser-safe: no Node built-ins.
 *
 * @example
 * ```ts
 * import { MemoryStore } from "@fmt/fs-adapters";
 * import { createCtable } from "@fmt/store";
 * import { tableToArrow } from "@fmt/arrow";
 *
 * const t = await createCtable(new MemoryStore(), "", [{ name: "x", data: new Float64Array([1.5, 2.5]) }]);
 * const arrow = await tableToArrow(t);
 * console.log(arrow.getChild("x")!.toArray()); // Float64Array [1.5, 2.5]
 * ```
 * @packageDocumentation
 */
export { arrowSchemaOf, batchMaker, tableToArrow, toRecordBatches } from "./to-arrow.js";
export type { ToArrowOptions } from "./to-arrow.js";
export { columnPlan, leafPlan, NAT, packBits } from "./types.js";
export type { BytesAs, LeafPlan } from "./types.js";
export { datasetToIpc, datasetToIpcBytes, ipcChunks } from "./ipc.js";
export type { IpcFormat } from "./ipc.js";
export { importArrow } from "./from-arrow.js";
export type { ArrowSource, ImportArrowOptions } from "./from-arrow.js";
