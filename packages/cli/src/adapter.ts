#!/usr/bin/env node
/**
 * The reference conformance adapter (spec/conformance.md): `adapter info`,
 * `adapter read DATASET_DIR OUT_DIR`, `adapter write CASE_JSON DATASET_DIR`,
 * `adapter where DATASET_DIR EXPRESSION OUT_DIR` and `adapter serve` (§1.5).
 *
 * Exit codes: 0 success; 3 the dataset is not valid (one JSON line `{"code", "message"}` on
 * stdout); anything else is a crash.
 *
 * @example
 * ```sh
 * conformance/adapters/reference/adapter read corpus/v1/bcolz-real/edge_f8_len1/data.bcolz /tmp/out
 * ```
 * @packageDocumentation
 */
import { lstat, mkdir, open as openFile, readFile, realpath, writeFile } from "node:fs/promises";
import { dirname, isAbsolute, join, resolve, sep } from "node:path";
import { UsageError } from "@fmt/errors";
import { FileSystemStore } from "@fmt/fs-adapters/node";
import { createJsonObject, encodeMetadata, jsonObjectKeys, parseDtype, parsePythonJson, PyFloat, serializeAttrs, serializeRootdirs, serializeStorageV2 } from "@fmt/meta";
import type { CodecName, JsonObject, JsonValue } from "@fmt/meta";
import { byteOrderUnit, carraysOf, createCarray, createVLArray, DEFAULT_MAX_CHUNKS_PER_CALL, DEFAULT_MAX_READ_BYTES, open, type CArray, type OpenOptions, type TableColumn, type VLArray, type VLElementInput } from "@fmt/store";
import { dtypeText, swapBytesInPlace, toStrictJson, type ArrayDescription } from "./output.js";

/** Name and version the adapter reports. */
export const ADAPTER_INFO = {
  name: "bcolz-ts reference",
  version: "0.1.0",
  formats: [1, 2],
  operations: ["read", "write", "where", "serve"],
} as const;

function describe(array: TableColumn, name?: string): ArrayDescription {
  const d: ArrayDescription = {
    dtype: dtypeText(array),
    attrs: array.attrs.toJSON(),
    shape: [...array.shape],
    chunklen: array.chunklen,
    cparams: { clevel: array.cparams.clevel, shuffle: array.cparams.shuffle, cname: array.cparams.cname },
  };
  return name === undefined ? d : { name, ...d };
}

/** The value every column shares, or null when they differ (or there are no columns). */
function commonValue<T>(values: T[]): T | null {
  if (values.length === 0) return null;
  const first = JSON.stringify(values[0]);
  return values.every((v) => JSON.stringify(v) === first) ? values[0]! : null;
}

/**
 * The value file of a vlarray (spec/conformance.md §1.2): per element a little-endian u64 byte
 * length, then its bytes (values little-endian). Every element is read and checked first.
 */
async function vlarrayValueFile(array: VLArray): Promise<Uint8Array> {
  await array.read();
  const ends = (await array.offsets.read()) as BigInt64Array;
  const end = Number(ends[ends.length - 1]!);
  const values = await littleEndianBytes(array.values, end);
  const size = array.dtype.itemsize;
  const out = new Uint8Array(8 * array.length + values.length);
  const view = new DataView(out.buffer);
  let at = 0;
  for (let k = 0; k < array.length; k++) {
    const from = Number(ends[k]!) * size;
    const to = Number(ends[k + 1]!) * size;
    view.setBigUint64(at, BigInt(to - from), true);
    out.set(values.subarray(from, to), at + 8);
    at += 8 + to - from;
  }
  return out;
}

/** The value file of a carray or vlarray (spec/conformance.md §1.2). */
function valueFile(array: TableColumn): Promise<Uint8Array> {
  return array.kind === "vlarray" ? vlarrayValueFile(array) : littleEndianBytes(array);
}

async function littleEndianBytes(array: CArray, stop: number = array.length): Promise<Uint8Array> {
  const bytes = await array.readBytes(0, stop);
  if (array.dtype.byteOrder !== ">") return bytes;
  const unit = array.dtype.kind === "U" ? 4 : array.dtype.itemsize;
  return swapBytesInPlace(bytes, unit);
}

/**
 * Refuses a read whose output (all columns together) or chunk count exceeds the limits of
 * `options`: the adapter's read is one call, however many columns it writes out.
 */
function checkWholeRead(arrays: readonly CArray[], options: OpenOptions): void {
  const maxBytes = options.maxReadBytes ?? DEFAULT_MAX_READ_BYTES;
  const maxChunks = options.maxChunksPerCall ?? DEFAULT_MAX_CHUNKS_PER_CALL;
  const bytes = arrays.reduce((total, a) => total + a.nbytes, 0);
  if (bytes > maxBytes) {
    throw new UsageError("SIZE_LIMIT", `the dataset expands to ${bytes} bytes, more than maxReadBytes (${maxBytes})`, { field: "maxReadBytes", expected: `<= ${maxBytes}`, actual: bytes });
  }
  const chunks = arrays.reduce((total, a) => total + a.chunkCount, 0);
  if (chunks > maxChunks) {
    throw new UsageError("SIZE_LIMIT", `the dataset has ${chunks} chunk files to read, more than maxChunksPerCall (${maxChunks})`, { field: "maxChunksPerCall", expected: `<= ${maxChunks}`, actual: chunks });
  }
}

/**
 * Read the dataset at `datasetDir` and write the protocol's output files into `outDir`. The
 * whole read is one call for the limits of `options` (`maxReadBytes`: all output files
 * together, default 2^31 − 1 bytes; `maxChunksPerCall`: all chunk files together, default
 * 2^22), checked before any chunk is read (`UsageError` `SIZE_LIMIT`).
 *
 * @example
 * ```ts
 * await readDatasetToDir("/data/prices.bcolz", "/tmp/out");
 * await readDatasetToDir("/data/prices.bcolz", "/tmp/out", { maxReadBytes: 64 * 1024 * 1024 });
 * ```
 */
export async function readDatasetToDir(datasetDir: string, outDir: string, options: OpenOptions = {}): Promise<void> {
  const store = new FileSystemStore(datasetDir);
  const dataset = await open(store, "", options);
  checkWholeRead(carraysOf(dataset), options);
  await mkdir(outDir, { recursive: true });
  if (dataset.kind !== "ctable") {
    const result = { kind: dataset.kind, format: dataset.formatVersion, ...describe(dataset), columns: [] };
    await writeFile(join(outDir, "values.bin"), await valueFile(dataset));
    await writeFile(join(outDir, "result.json"), toStrictJson(result));
    return;
  }
  const columns = dataset.columns.map((column, i) => describe(column, dataset.names[i]));
  const result = {
    kind: "ctable",
    format: dataset.formatVersion,
    dtype: columns.map((c) => [c.name, c.dtype]),
    shape: [dataset.length],
    chunklen: commonValue(columns.map((c) => c.chunklen)),
    cparams: commonValue(columns.map((c) => c.cparams)),
    attrs: dataset.attrs,
    columns,
  };
  for (const [i, column] of dataset.columns.entries()) {
    await writeFile(join(outDir, `col-${i}.bin`), await valueFile(column));
  }
  await writeFile(join(outDir, "result.json"), toStrictJson(result));
}

/** One array of a write case (the carray itself, or one ctable column). */
interface WriteArraySpec {
  name?: string;
  dtype: string;
  shape: number[];
  chunklen?: number | null;
  cparams?: { clevel?: number; shuffle?: 0 | 1 | 2; cname?: CodecName; quantize?: number } | null;
  dflt?: JsonValue;
  expectedlen?: number | null;
  attrs?: JsonObject;
  values: string;
  /** Format 2 (spec/conformance.md §1.3). */
  superchunksize?: number;
  checksum?: string;
  spare?: number;
  vtype?: string;
}

/** The format-2 options of a write case (the carray's own, else the case's top level). */
interface FormatChoice {
  formatVersion: 1 | 2;
  superchunksize?: number;
  checksum?: string;
  spare?: number;
}

function caseError(message: string, field: string, actual?: unknown): never {
  throw new UsageError("INVALID_ARGUMENT", `write case: ${message}`, { field, actual });
}

/** The case's `dflt` as a JSON value of the dtype: "NaN"/"Infinity"/"-Infinity" and big ints come as strings. */
function caseDflt(dtype: string, dflt: JsonValue | undefined): JsonValue | undefined {
  if (dflt === undefined) return undefined;
  const kind = parseDtype(dtype).kind;
  if (typeof dflt === "string") {
    if (kind === "f") {
      const x = Number(dflt);
      if (Number.isNaN(x) && dflt !== "NaN") caseError("float dflt string must be NaN, Infinity or -Infinity", "dflt", dflt);
      return new PyFloat(x);
    }
    if (kind === "i" || kind === "u" || kind === "M") {
      if (!/^-?\d+$/.test(dflt)) caseError("integer dflt strings must be decimal integers", "dflt", dflt);
      return BigInt(dflt);
    }
  }
  return dflt;
}

function unsafeValues(message: string, values: string): never {
  throw new UsageError("UNSAFE_NAME", `write case: ${message}`, { path: values, field: "values", expected: "a relative path to a regular file inside the case directory", actual: values });
}

/**
 * The bytes of a case's value file, which must stay inside the case directory: a relative path
 * without `..`, naming a regular file (not a device, FIFO or symbolic link; so `/dev/zero` cannot
 * hang the adapter) of exactly `expected` bytes, checked before it is read.
 */
async function readValuesFile(caseDir: string, values: string, expected: number | undefined): Promise<Uint8Array> {
  if (values === "" || values.includes("\0") || isAbsolute(values) || /^[A-Za-z]:/.test(values)) unsafeValues("values must be a relative path", values);
  if (values.split(/[\\/]/).includes("..")) unsafeValues("values must not climb out of the case directory", values);
  const full = resolve(caseDir, values);
  const info = await lstat(full).catch(() => undefined);
  if (info === undefined) caseError(`values file ${values} does not exist`, "values", values);
  if (!info.isFile()) caseError(`values file ${values} is not a regular file`, "values", values);
  const [realDir, realFile] = await Promise.all([realpath(caseDir), realpath(full)]);
  if (!realFile.startsWith(realDir + sep)) unsafeValues("values resolves outside the case directory", values);
  if (expected !== undefined && info.size !== expected) caseError(`${values} holds ${info.size} bytes, shape needs ${expected}`, "values", info.size);
  const size = expected ?? info.size;
  const bytes = new Uint8Array(size);
  const handle = await openFile(full, "r");
  try {
    let at = 0;
    while (at < size) {
      const { bytesRead } = await handle.read(bytes, at, size - at, at);
      if (bytesRead === 0) caseError(`${values} shrank while being read`, "values", at);
      at += bytesRead;
    }
  } finally {
    await handle.close();
  }
  return bytes;
}

/** The elements of a vlarray value file (spec/conformance.md §1.2), `count` of them, in the values dtype's own byte order. */
function vlarrayElements(file: Uint8Array, count: number, vtype: string, dtype: string | undefined): VLElementInput[] {
  const view = new DataView(file.buffer, file.byteOffset, file.byteLength);
  const parsed = dtype === undefined ? undefined : parseDtype(dtype);
  const elements: VLElementInput[] = [];
  let at = 0;
  for (let k = 0; k < count; k++) {
    if (at + 8 > file.length) caseError(`the value file ends before element ${k}`, "values", at);
    const length = Number(view.getBigUint64(at, true));
    if (at + 8 + length > file.length) caseError(`element ${k} runs past the end of the value file`, "values", length);
    const bytes = file.slice(at + 8, at + 8 + length);
    at += 8 + length;
    if (vtype !== "ragged") elements.push(bytes);
    else {
      if (parsed!.byteOrder === ">") swapBytesInPlace(bytes, byteOrderUnit(parsed!));
      elements.push({ bytes });
    }
  }
  if (at !== file.length) caseError(`the value file holds more than ${count} elements`, "values", file.length);
  return elements;
}

/** Writes a vlarray (a case of kind vlarray, or a column with `vtype`, spec/v2.md §12). */
async function writeVlarray(store: FileSystemStore, path: string, spec: WriteArraySpec, caseDir: string, format: FormatChoice): Promise<void> {
  const vtype = spec.vtype;
  if (vtype !== "utf8" && vtype !== "bytes" && vtype !== "ragged") caseError('vtype must be "utf8", "bytes" or "ragged"', "vtype", vtype);
  if (format.formatVersion !== 2) caseError("vlarrays exist only in format 2", "format", format.formatVersion);
  if (typeof spec.dtype !== "string" || !spec.dtype.startsWith("vl:")) caseError('a vlarray dtype is "vl:utf8", "vl:bytes" or "vl:<dtype>"', "dtype", spec.dtype);
  if (!Array.isArray(spec.shape) || spec.shape.length !== 1) caseError("a vlarray shape is [number of elements]", "shape", spec.shape);
  if (typeof spec.values !== "string") caseError("values must name a file", "values", spec.values);
  const valuesDtype = vtype === "ragged" ? spec.dtype.slice(3) : undefined;
  const elements = vlarrayElements(await readValuesFile(caseDir, spec.values, undefined), spec.shape[0]!, vtype, valuesDtype);
  const dflt = caseDflt(valuesDtype ?? "|u1", spec.dflt);
  const array = await createVLArray(store, path, elements, {
    vtype,
    ...(valuesDtype === undefined ? {} : { dtype: valuesDtype }),
    cparams: caseCparams(spec),
    mode: "w",
    ...(spec.chunklen === null || spec.chunklen === undefined ? {} : { chunklen: spec.chunklen }),
    ...(spec.expectedlen === null || spec.expectedlen === undefined ? {} : { expectedlen: spec.expectedlen }),
    ...(dflt === undefined ? {} : { dflt }),
    ...(spec.attrs === undefined ? {} : { attrs: spec.attrs }),
    ...v2Options(spec, format),
  });
  await array.close();
}

function caseCparams(spec: WriteArraySpec): Record<string, unknown> {
  const c = spec.cparams ?? {};
  return {
    ...(c.clevel === undefined ? {} : { clevel: c.clevel }),
    ...(c.shuffle === undefined ? {} : { shuffle: c.shuffle }),
    ...(c.cname === undefined ? {} : { cname: c.cname }),
    ...(c.quantize === undefined ? {} : { quantize: c.quantize }),
  };
}

async function writeArray(store: FileSystemStore, path: string, spec: WriteArraySpec, caseDir: string, format: FormatChoice): Promise<void> {
  if (spec.vtype !== undefined) return writeVlarray(store, path, spec, caseDir, format);
  if (typeof spec.dtype !== "string") caseError("dtype must be a string", "dtype", spec.dtype);
  if (!Array.isArray(spec.shape) || spec.shape.length < 1) caseError("shape must be a non-empty list", "shape", spec.shape);
  if (typeof spec.values !== "string") caseError("values must name a file", "values", spec.values);
  const dtype = parseDtype(spec.dtype);
  const expected = spec.shape.reduce((a, b) => a * b, 1) * dtype.itemsize;
  const bytes = await readValuesFile(caseDir, spec.values, expected);
  // Value files are little-endian; the dataset keeps the dtype's own byte order.
  if (dtype.byteOrder === ">") swapBytesInPlace(bytes, byteOrderUnit(dtype));
  const cparams = caseCparams(spec);
  const dflt = caseDflt(spec.dtype, spec.dflt);
  const array = await createCarray(store, path, { bytes }, {
    dtype,
    shape: spec.shape.slice(1),
    cparams,
    mode: "w",
    ...(spec.chunklen === null || spec.chunklen === undefined ? {} : { chunklen: spec.chunklen }),
    ...(spec.expectedlen === null || spec.expectedlen === undefined ? {} : { expectedlen: spec.expectedlen }),
    ...(dflt === undefined ? {} : { dflt }),
    ...(spec.attrs === undefined ? {} : { attrs: spec.attrs }),
    ...(format.formatVersion === 1 ? {} : v2Options(spec, format)),
  });
  await array.close();
}

/** The format-2 keys of a case or column (its own first, then the case's). */
function v2Options(spec: WriteArraySpec, outer: FormatChoice): Record<string, unknown> {
  const out: Record<string, unknown> = { formatVersion: outer.formatVersion };
  const superchunksize = spec.superchunksize ?? outer.superchunksize;
  const checksum = spec.checksum ?? outer.checksum;
  const spare = spec.spare ?? outer.spare;
  if (superchunksize !== undefined) out.superchunksize = superchunksize;
  if (checksum !== undefined) out.checksum = checksum;
  if (spare !== undefined) out.spare = spare;
  return out;
}

/**
 * Create the dataset described by the write case `caseJson` at `datasetDir` (spec/conformance.md
 * §1.3): a carray, or a ctable written column by column, then `__attrs__`, then `__rootdirs__`
 * (whose presence makes the directory a ctable).
 *
 * @example
 * ```ts
 * await writeDatasetFromCase("/tmp/case/case.json", "/tmp/out.bcolz");
 * ```
 */
export async function writeDatasetFromCase(caseJson: string, datasetDir: string): Promise<void> {
  const doc = parsePythonJson(await readFile(caseJson, "utf8"), caseJson) as JsonObject;
  if (typeof doc !== "object" || doc === null || Array.isArray(doc)) caseError("the case must be a JSON object", "case", typeof doc);
  if (doc.format !== 1 && doc.format !== 2) caseError("format must be 1 or 2", "format", doc.format);
  const format = v2Options(doc as unknown as WriteArraySpec, { formatVersion: doc.format }) as unknown as FormatChoice;
  const caseDir = dirname(resolve(caseJson));
  const store = new FileSystemStore(datasetDir);
  await mkdir(datasetDir, { recursive: true });
  if (doc.kind === "carray") {
    await writeArray(store, "", doc as unknown as WriteArraySpec, caseDir, format);
    return;
  }
  if (doc.kind === "vlarray") {
    await writeVlarray(store, "", doc as unknown as WriteArraySpec, caseDir, format);
    return;
  }
  if (doc.kind !== "ctable") caseError('kind must be "carray", "vlarray" or "ctable"', "kind", doc.kind);
  const columns = doc.columns as unknown as WriteArraySpec[];
  if (!Array.isArray(columns) || columns.length === 0) caseError("a ctable needs columns", "columns", columns);
  const names = columns.map((col, i) => (typeof col.name === "string" ? col.name : caseError("every column needs a name", `columns[${i}].name`, col.name)));
  // Columns first, then __attrs__, then the file that lists the columns (which makes it a table).
  for (const [i, col] of columns.entries()) await writeArray(store, format.formatVersion === 1 ? names[i]! : `data/${names[i]!}`, col, caseDir, format);
  const attrs = (doc.attrs ?? createJsonObject([])) as JsonObject;
  await store.put("__attrs__", encodeMetadata(serializeAttrs(createJsonObject(jsonObjectKeys(attrs).map((k) => [k, attrs[k]!] as [string, JsonValue])))));
  if (format.formatVersion === 1) await store.put("__rootdirs__", encodeMetadata(serializeRootdirs({ names })));
  else await store.put("meta/storage", encodeMetadata(serializeStorageV2({ formatVersion: 2, kind: "ctable", columns: names, raw: createJsonObject([]) })));
}

export { runAdapterCommand, queryToDir, serveAdapter } from "./adapter-commands.js";
export type { AdapterIO } from "./adapter-commands.js";
