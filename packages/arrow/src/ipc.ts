/**
 * Arrow IPC output (stream and file format) of record batches, as chunks of bytes.
 *
 * @module
 */
import { AsyncByteQueue, RecordBatchFileWriter, RecordBatchStreamWriter } from "apache-arrow";
import type { RecordBatch, Schema } from "apache-arrow";
import { UsageError } from "@fmt/errors";
import type { CArray, CTable } from "@fmt/store";
import { arrowSchemaOf, toRecordBatches } from "./to-arrow.js";
import type { ToArrowOptions } from "./to-arrow.js";

/**
 * The two Arrow IPC layouts: `"stream"` (the streaming format, `.arrows`) and `"file"` (the
 * random-access file format, `.arrow` / Feather v2, with a footer).
 *
 * @example
 * ```ts
 * const format: IpcFormat = "file";
 * ```
 */
export type IpcFormat = "stream" | "file";

/** A byte queue that hands its chunks out synchronously, so that each batch's bytes can be taken as soon as it is written. */
class ChunkQueue extends AsyncByteQueue {
  pending: Uint8Array[] = [];
  override write(value: Uint8Array): void {
    if (value.byteLength > 0) this.pending.push(value);
  }
  take(): Uint8Array[] {
    const out = this.pending;
    this.pending = [];
    return out;
  }
}

/**
 * Serializes `batches` (all of `schema`) to Arrow IPC, yielding the bytes chunk by chunk as each
 * batch is written: nothing but the current batch is held. The chunks share memory with the
 * batches' buffers; write them out before changing those.
 *
 * @example
 * ```ts
 * const chunks: Uint8Array[] = [];
 * for await (const chunk of ipcChunks(arrowSchemaOf(t), toRecordBatches(t), "stream")) chunks.push(chunk);
 * const table = tableFromIPC(concat(chunks));
 * ```
 */
export async function* ipcChunks(schema: Schema, batches: AsyncIterable<RecordBatch> | Iterable<RecordBatch>, format: IpcFormat = "stream"): AsyncGenerator<Uint8Array, void, undefined> {
  if (format !== "stream" && format !== "file") throw new UsageError("INVALID_ARGUMENT", 'the IPC format is "stream" or "file"', { field: "format", actual: format });
  const queue = new ChunkQueue();
  const writer = format === "file" ? new RecordBatchFileWriter({ autoDestroy: false }) : new RecordBatchStreamWriter({ autoDestroy: false });
  writer.reset(queue, schema);
  yield* queue.take();
  for await (const batch of batches as AsyncIterable<RecordBatch>) {
    writer.write(batch);
    yield* queue.take();
  }
  writer.finish();
  yield* queue.take();
}

/**
 * Arrow IPC bytes of a dataset (the selection of {@link toRecordBatches}), streamed chunk by
 * chunk: the helper the CLI's `export --format arrow` uses to write an `.arrow` file.
 *
 * @example
 * ```ts
 * const parts: Uint8Array[] = [];
 * for await (const chunk of datasetToIpc(table, { format: "file" })) parts.push(chunk); // or write each to a file
 * const back = tableFromIPC(parts);
 * ```
 */
export function datasetToIpc(dataset: CTable | CArray, options: ToArrowOptions & { format?: IpcFormat } = {}): AsyncGenerator<Uint8Array, void, undefined> {
  const { format = "stream", ...rest } = options;
  return ipcChunks(arrowSchemaOf(dataset, rest), toRecordBatches(dataset, rest), format);
}

/**
 * The whole Arrow IPC output of a dataset in one `Uint8Array` (for small data; stream with
 * {@link datasetToIpc} otherwise).
 *
 * @example
 * ```ts
 * const bytes = await datasetToIpcBytes(table, { format: "file" });
 * const back = tableFromIPC(bytes);
 * ```
 */
export async function datasetToIpcBytes(dataset: CTable | CArray, options: ToArrowOptions & { format?: IpcFormat } = {}): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  let total = 0;
  for await (const chunk of datasetToIpc(dataset, options)) {
    chunks.push(chunk);
    total += chunk.byteLength;
  }
  const out = new Uint8Array(total);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.byteLength;
  }
  return out;
}
