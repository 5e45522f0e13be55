/**
 * The metadata files of format version 2 (spec/v2.md): the version dispatch on `meta/storage`,
 * `meta/storage` of a carray, ctable or vlarray, `meta/shape`, the metadata section inside a
 * superchunk, `.journal` and `.append`. Each is validated against its schema in
 * `spec/schemas/v2/` and written in the Python JSON dialect of spec/v1.md §9.2.
 *
 * @example
 * ```ts
 * import { storageFormatVersion, parseStorageV2 } from "@fmt/meta";
 * if (storageFormatVersion(text, "meta/storage") === 2) {
 *   const st = parseStorageV2(text, "meta/storage");
 *   if (st.kind === "carray") console.log(st.superchunksize);
 * }
 * ```
 * @module
 */
import { FormatError, UsageError } from "@fmt/errors";
import { PyFloat, createJsonObject, jsonObjectKeys, parsePythonJson, stringifyPythonJson, type JsonObject, type JsonValue } from "./json.js";
import { defaultDflt, isStorableDtype, parseDtype, type DType } from "./dtype.js";
import { validateJsonSchema, type JsonSchema } from "./schema.js";
import { columnNameProblem, dfltProblem, type Cparams } from "./metadata.js";
import {
  v2AppendSchema, v2CarrayStorageSchema, v2CtableStorageSchema, v2JournalSchema, v2ShapeSchema, v2SuperchunkMetaSchema, v2VlarrayStorageSchema,
  type RawCarrayStorageV2, type RawCtableStorageV2, type RawJournalV2, type RawShapeV2, type RawSuperchunkMetaV2, type RawVlarrayStorageV2,
} from "./generated/schemas.js";

/**
 * A checksum name as `meta/storage` spells it (same list as `@fmt/header`'s `ChecksumName`).
 *
 * @example
 * ```ts
 * const c: ChecksumNameV2 = "adler32";
 * ```
 */
export type ChecksumNameV2 = RawCarrayStorageV2["checksum"];

/**
 * `meta/storage` of a version-2 carray, normalized.
 *
 * @example
 * ```ts
 * const st = parseStorageV2(text) as CarrayStorageV2;
 * st.superchunksize; // 64
 * ```
 */
export interface CarrayStorageV2 {
  /** Always 2. */
  formatVersion: 2;
  /** Discriminant. */
  kind: "carray";
  /** The base dtype. */
  dtype: DType;
  /** Compression parameters for new chunks. */
  cparams: Cparams;
  /** Rows per chunk. */
  chunklen: number;
  /** Chunks per superchunk file. */
  superchunksize: number;
  /** Checksum of superchunks created from now on. */
  checksum: ChecksumNameV2;
  /** Spare room percentage for new slots. */
  spare: number;
  /** Expected length (informational). */
  expectedlen: number | bigint;
  /** Fill value for growth. */
  dflt: JsonValue;
  /** The document as parsed (unknown keys kept); `createJsonObject([])` for new files. */
  raw: JsonObject;
}

/**
 * `meta/storage` of a version-2 ctable.
 *
 * @example
 * ```ts
 * const st: CtableStorageV2 = { formatVersion: 2, kind: "ctable", columns: ["price", "qty"], raw: createJsonObject([]) };
 * ```
 */
export interface CtableStorageV2 {
  /** Always 2. */
  formatVersion: 2;
  /** Discriminant. */
  kind: "ctable";
  /** Column names in column order; column `name` is `data/<name>/`. */
  columns: string[];
  /** The document as parsed. */
  raw: JsonObject;
}

/**
 * `meta/storage` of a version-2 vlarray.
 *
 * @example
 * ```ts
 * const st: VlarrayStorageV2 = { formatVersion: 2, kind: "vlarray", vtype: "utf8", raw: createJsonObject([]) };
 * ```
 */
export interface VlarrayStorageV2 {
  /** Always 2. */
  formatVersion: 2;
  /** Discriminant. */
  kind: "vlarray";
  /** utf8 strings, byte strings, or ragged arrays of the values' dtype. */
  vtype: "utf8" | "bytes" | "ragged";
  /** The document as parsed. */
  raw: JsonObject;
}

/**
 * Any version-2 `meta/storage`, by `kind`.
 *
 * @example
 * ```ts
 * const st: StorageV2 = parseStorageV2(text);
 * ```
 */
export type StorageV2 = CarrayStorageV2 | CtableStorageV2 | VlarrayStorageV2;

const NL = "\n";
const asSchema = (s: unknown): JsonSchema => s as JsonSchema;

function isObject(v: JsonValue): v is JsonObject {
  return typeof v === "object" && v !== null && !Array.isArray(v) && !(v instanceof PyFloat);
}

function objectDocument(text: string, path: string | undefined): JsonObject {
  const doc = parsePythonJson(text, path);
  if (!isObject(doc)) throw new FormatError("BAD_METADATA", "top-level value is not an object", { path, field: "", expected: "an object", actual: Array.isArray(doc) ? "array" : typeof doc });
  return doc;
}

/** Validates a value a caller built: violations are the caller's fault (INVALID_ARGUMENT). */
function checkArgument(schema: unknown, value: JsonValue, what: string): void {
  try {
    validateJsonSchema(asSchema(schema), value);
  } catch (e) {
    if (e instanceof FormatError) throw new UsageError("INVALID_ARGUMENT", `${what}: ${e.reason}`, { field: e.field, expected: e.expected, actual: e.actual });
    throw e;
  }
}

/**
 * The format version a root's `meta/storage` announces (spec/v2.md §3.1): 1 without a
 * `format_version` key or with the integer 1, 2 with the integer 2.
 *
 * @throws FormatError BAD_JSON; BAD_METADATA when the value is not an object; UNSUPPORTED_VERSION
 * (field `/format_version`) for any other value.
 * @example
 * ```ts
 * storageFormatVersion('{"dtype": "int32", "cparams": {"clevel": 5, "shuffle": 1}, "chunklen": 8, "expectedlen": 0, "dflt": 0}\n'); // 1
 * storageFormatVersion('{"format_version": 2, "kind": "ctable", "columns": ["a"]}\n'); // 2
 * ```
 */
export function storageFormatVersion(text: string, path?: string): 1 | 2 {
  const doc = objectDocument(text, path);
  const version = doc.format_version;
  if (version === undefined || version === 1) return 1;
  if (version === 2) return 2;
  throw new FormatError("UNSUPPORTED_VERSION", "meta/storage announces a format version this reader does not implement", {
    path, field: "/format_version", expected: "absent, 1 or 2", actual: stringifyPythonJson(version).slice(0, 40),
  });
}

function checkColumns(columns: readonly string[], onUnsafe: (i: number, why: string) => never, onDuplicate: (i: number) => never): void {
  const seen = new Set<string>();
  columns.forEach((name, i) => {
    const why = columnNameProblem(name);
    if (why !== undefined) onUnsafe(i, why);
    if (seen.has(name)) onDuplicate(i);
    seen.add(name);
  });
}

/**
 * Parses a version-2 `meta/storage` (spec/v2.md §10.1, §11, §12) by its `kind`.
 *
 * @throws FormatError BAD_JSON; BAD_METADATA (schema, unknown kind at `/kind`, `dflt` that does
 * not fit the dtype at `/dflt`, repeated column at `/columns/i`); UNSUPPORTED_DTYPE (`/dtype`);
 * UNSAFE_NAME (`/columns/i`); UNSUPPORTED_VERSION when `format_version` is not 2.
 * @example
 * ```ts
 * parseStorageV2('{"format_version": 2, "kind": "vlarray", "vtype": "utf8"}\n').kind; // "vlarray"
 * ```
 */
export function parseStorageV2(text: string, path?: string): StorageV2 {
  const doc = objectDocument(text, path);
  if (doc.format_version !== 2) {
    throw new FormatError("UNSUPPORTED_VERSION", "not a version-2 meta/storage", { path, field: "/format_version", expected: 2, actual: doc.format_version === undefined ? "absent" : stringifyPythonJson(doc.format_version).slice(0, 40) });
  }
  switch (doc.kind) {
    case "carray": {
      if (typeof doc.dtype === "string") parseDtype(doc.dtype, path, "/dtype");
      validateJsonSchema(asSchema(v2CarrayStorageSchema), doc, { path });
      const raw = doc as RawCarrayStorageV2;
      const dtype = parseDtype(raw.dtype, path, "/dtype");
      // v2 stores exactly the dtypes of spec/v1.md §13 (complex, timedelta, void are excluded there).
      if (!isStorableDtype(dtype)) throw new FormatError("UNSUPPORTED_DTYPE", "dtype cannot be stored (spec/v1.md §13)", { path, field: "/dtype", expected: "a dtype of spec/v1.md §13", actual: raw.dtype });
      const problem = dfltProblem(dtype, raw.dflt);
      if (problem !== undefined) {
        throw new FormatError("BAD_METADATA", `dflt does not fit dtype ${raw.dtype}`, { path, field: "/dflt", expected: problem, actual: stringifyPythonJson(raw.dflt).slice(0, 80) });
      }
      return {
        formatVersion: 2, kind: "carray", dtype, cparams: { ...raw.cparams }, chunklen: raw.chunklen, superchunksize: raw.superchunksize,
        checksum: raw.checksum, spare: raw.spare, expectedlen: raw.expectedlen, dflt: raw.dflt, raw: doc,
      };
    }
    case "ctable": {
      validateJsonSchema(asSchema(v2CtableStorageSchema), doc, { path });
      const columns = [...(doc as RawCtableStorageV2).columns];
      checkColumns(
        columns,
        (i, why) => {
          throw new FormatError("UNSAFE_NAME", `column name ${why}`, { path, field: `/columns/${i}`, expected: "an identifier [A-Za-z_][A-Za-z0-9_]*", actual: columns[i] });
        },
        (i) => {
          throw new FormatError("BAD_METADATA", "duplicate column name", { path, field: `/columns/${i}`, expected: "unique names", actual: columns[i] });
        },
      );
      return { formatVersion: 2, kind: "ctable", columns, raw: doc };
    }
    case "vlarray": {
      validateJsonSchema(asSchema(v2VlarrayStorageSchema), doc, { path });
      return { formatVersion: 2, kind: "vlarray", vtype: (doc as RawVlarrayStorageV2).vtype, raw: doc };
    }
    default:
      throw new FormatError("BAD_METADATA", "unknown kind", { path, field: "/kind", expected: '"carray", "ctable" or "vlarray"', actual: doc.kind === undefined ? "absent" : stringifyPythonJson(doc.kind).slice(0, 40) });
  }
}

function ordered(known: Record<string, JsonValue>, order: readonly string[], raw: JsonObject | undefined): JsonObject {
  const rawKeys = raw === undefined ? [] : jsonObjectKeys(raw).filter((k) => !order.includes(k));
  return createJsonObject([...order.map((k) => [k, known[k]] as [string, JsonValue]), ...rawKeys.map((k) => [k, raw![k]] as [string, JsonValue])]);
}

/**
 * Serializes a version-2 `meta/storage`: the keys of its kind in the order of spec/v2.md, then
 * the unknown keys of `raw`; Python separators; a trailing newline. The dtype is written in
 * numpy's `dtype.str` spelling.
 *
 * @throws UsageError INVALID_ARGUMENT for values the schema forbids; UNSAFE_NAME for a bad column name.
 * @example
 * ```ts
 * serializeStorageV2({ formatVersion: 2, kind: "ctable", columns: ["a", "b"], raw: createJsonObject([]) });
 * // '{"format_version": 2, "kind": "ctable", "columns": ["a", "b"]}\n'
 * ```
 */
export function serializeStorageV2(storage: StorageV2): string {
  if (typeof storage !== "object" || storage === null) throw new UsageError("INVALID_ARGUMENT", "storage must be an object", { field: "" });
  const raw = isObject(storage.raw) ? storage.raw : undefined;
  let doc: JsonObject;
  switch (storage.kind) {
    case "carray": {
      const { dtype, cparams } = storage;
      let dflt = storage.dflt;
      if (dtype.kind === "f" && (typeof dflt === "number" || typeof dflt === "bigint")) dflt = new PyFloat(Number(dflt));
      const problem = dfltProblem(dtype, dflt);
      if (problem !== undefined) throw new UsageError("INVALID_ARGUMENT", `dflt must be ${problem} for dtype ${dtype.str}`, { field: "/dflt", actual: dflt });
      const cp = createJsonObject([["clevel", cparams?.clevel], ["shuffle", cparams?.shuffle], ["cname", cparams?.cname], ["quantize", cparams?.quantize]] as [string, JsonValue][]);
      doc = ordered(
        { format_version: 2, kind: "carray", dtype: dtype.str, cparams: cp, chunklen: storage.chunklen, superchunksize: storage.superchunksize, checksum: storage.checksum, spare: storage.spare, expectedlen: storage.expectedlen, dflt },
        ["format_version", "kind", "dtype", "cparams", "chunklen", "superchunksize", "checksum", "spare", "expectedlen", "dflt"],
        raw,
      );
      checkArgument(v2CarrayStorageSchema, doc, "storage");
      break;
    }
    case "ctable": {
      const columns = Array.isArray(storage.columns) ? [...storage.columns] : [];
      doc = ordered({ format_version: 2, kind: "ctable", columns }, ["format_version", "kind", "columns"], raw);
      checkArgument(v2CtableStorageSchema, doc, "storage");
      checkColumns(
        columns,
        (i, why) => {
          throw new UsageError("UNSAFE_NAME", `column name ${why}`, { field: `/columns/${i}`, actual: columns[i] });
        },
        (i) => {
          throw new UsageError("INVALID_ARGUMENT", "duplicate column name", { field: `/columns/${i}`, actual: columns[i] });
        },
      );
      break;
    }
    case "vlarray":
      doc = ordered({ format_version: 2, kind: "vlarray", vtype: storage.vtype }, ["format_version", "kind", "vtype"], raw);
      checkArgument(v2VlarrayStorageSchema, doc, "storage");
      break;
    default:
      throw new UsageError("INVALID_ARGUMENT", "unknown storage kind", { field: "/kind", actual: (storage as { kind?: unknown }).kind });
  }
  return stringifyPythonJson(doc) + NL;
}

/**
 * The default chunks per superchunk for a chunk of `chunksize` bytes: 64 MiB of uncompressed data
 * per file, between 1 and 65536 (spec/v2.md §10.1).
 *
 * @example
 * ```ts
 * defaultSuperchunksize(524288); // 128
 * defaultSuperchunksize(1); // 65536
 * ```
 */
export function defaultSuperchunksize(chunksize: number): number {
  return Math.min(65536, Math.max(1, Math.floor(67108864 / Math.max(1, chunksize))));
}

/**
 * Builds the `meta/storage` of a new version-2 carray with spec/v2.md §10.1's defaults: checksum
 * `adler32`, spare 10, superchunksize from {@link defaultSuperchunksize}, `dflt` zero of the dtype.
 *
 * @example
 * ```ts
 * const st = createCarrayStorageV2({ dtype: parseDtype("<f8"), cparams: { clevel: 5, shuffle: 1, cname: "lz4", quantize: 0 }, chunklen: 65536, expectedlen: 10000000 });
 * st.superchunksize; // 128
 * ```
 */
export function createCarrayStorageV2(options: {
  dtype: DType;
  cparams: Cparams;
  chunklen: number;
  expectedlen: number | bigint;
  atomsize?: number;
  superchunksize?: number;
  checksum?: ChecksumNameV2;
  spare?: number;
  dflt?: JsonValue;
}): CarrayStorageV2 {
  const atomsize = options.atomsize ?? options.dtype.itemsize;
  return {
    formatVersion: 2, kind: "carray", dtype: options.dtype, cparams: { ...options.cparams }, chunklen: options.chunklen,
    superchunksize: options.superchunksize ?? defaultSuperchunksize(options.chunklen * atomsize),
    checksum: options.checksum ?? "adler32", spare: options.spare ?? 10, expectedlen: options.expectedlen,
    dflt: options.dflt === undefined ? defaultDflt(options.dtype) : options.dflt, raw: createJsonObject([]),
  };
}

/**
 * Parses `meta/shape` (spec/v2.md §10.2).
 *
 * @throws FormatError BAD_JSON; BAD_METADATA (schema; a trailing dimension 0 at `/shape/i`).
 * @example
 * ```ts
 * parseShapeV2('{"shape": [5000, 3]}\n'); // [5000, 3]
 * ```
 */
export function parseShapeV2(text: string, path?: string): number[] {
  const doc = objectDocument(text, path);
  validateJsonSchema(asSchema(v2ShapeSchema), doc, { path });
  const shape = [...(doc as RawShapeV2).shape];
  shape.forEach((d, i) => {
    if (i > 0 && d < 1) throw new FormatError("BAD_METADATA", "trailing dimensions must be >= 1", { path, field: `/shape/${i}`, expected: ">= 1", actual: d });
  });
  return shape;
}

/**
 * Serializes `meta/shape`: `{"shape": [...]}` and a newline.
 *
 * @throws UsageError INVALID_ARGUMENT for a shape the schema or the trailing-dimension rule forbids.
 * @example
 * ```ts
 * serializeShapeV2([3]); // '{"shape": [3]}\n'
 * ```
 */
export function serializeShapeV2(shape: readonly number[]): string {
  const doc = createJsonObject([["shape", Array.isArray(shape) ? [...(shape as readonly number[])] : (shape as unknown as JsonValue)]]);
  checkArgument(v2ShapeSchema, doc, "shape");
  if (shape.some((d, i) => i > 0 && d < 1)) throw new UsageError("INVALID_ARGUMENT", "trailing dimensions must be >= 1", { field: "/shape", actual: [...shape] });
  return stringifyPythonJson(doc) + NL;
}

/**
 * The metadata section of a superchunk, normalized.
 *
 * @example
 * ```ts
 * const m: SuperchunkMeta = { capacity: 4, firstChunk: 0 };
 * ```
 */
export interface SuperchunkMeta {
  /** Offsets table entries, when given. */
  capacity?: number | undefined;
  /** Global index of local chunk 0, when given. */
  firstChunk?: number | undefined;
}

/**
 * Parses the metadata section of a superchunk (the text `readSuperchunkMetadataText` of
 * `@fmt/header` returns; trailing spaces allowed).
 *
 * @throws FormatError BAD_JSON, BAD_METADATA with path and field `superchunk.meta` + JSON pointer.
 * @example
 * ```ts
 * parseSuperchunkMeta('{"capacity": 4, "first_chunk": 0}       '); // { capacity: 4, firstChunk: 0 }
 * ```
 */
export function parseSuperchunkMeta(text: string, path?: string): SuperchunkMeta {
  try {
    const doc = objectDocument(text, path);
    validateJsonSchema(asSchema(v2SuperchunkMetaSchema), doc, { path });
    const raw = doc as RawSuperchunkMetaV2;
    return { capacity: raw.capacity, firstChunk: raw.first_chunk };
  } catch (e) {
    if (e instanceof FormatError && (e.code === "BAD_JSON" || e.code === "BAD_METADATA")) {
      throw new FormatError(e.code, e.reason, { path, field: `superchunk.meta${e.field ?? ""}`, expected: e.expected, actual: e.actual, cause: e });
    }
    throw e;
  }
}

/**
 * Serializes a superchunk's metadata section (no padding; `padMetadata` of `@fmt/header` adds
 * the alignment spaces): keys `capacity`, `first_chunk`, Python separators, no newline.
 *
 * @throws UsageError INVALID_ARGUMENT for values the schema forbids.
 * @example
 * ```ts
 * serializeSuperchunkMeta({ capacity: 4, firstChunk: 0 }); // '{"capacity": 4, "first_chunk": 0}'
 * ```
 */
export function serializeSuperchunkMeta(meta: SuperchunkMeta): string {
  const entries: [string, JsonValue][] = [];
  if (meta.capacity !== undefined) entries.push(["capacity", meta.capacity]);
  if (meta.firstChunk !== undefined) entries.push(["first_chunk", meta.firstChunk]);
  const doc = createJsonObject(entries);
  checkArgument(v2SuperchunkMetaSchema, doc, "superchunk metadata");
  return stringifyPythonJson(doc);
}

/**
 * Parses a version-2 `.journal`: the `[superchunk, local index]` pairs being installed.
 *
 * @throws FormatError BAD_JSON, BAD_METADATA.
 * @example
 * ```ts
 * parseJournalV2('{"format": 2, "chunks": [[1, 3], [2, 0]]}\n'); // [[1, 3], [2, 0]]
 * ```
 */
export function parseJournalV2(text: string, path?: string): [number, number][] {
  const doc = objectDocument(text, path);
  validateJsonSchema(asSchema(v2JournalSchema), doc, { path });
  return (doc as RawJournalV2).chunks.map(([s, i]) => [s, i]);
}

/**
 * Serializes a version-2 `.journal`.
 *
 * @throws UsageError INVALID_ARGUMENT for pairs out of range.
 * @example
 * ```ts
 * serializeJournalV2([[1, 3]]); // '{"format": 2, "chunks": [[1, 3]]}\n'
 * ```
 */
export function serializeJournalV2(chunks: readonly (readonly [number, number])[]): string {
  const doc = createJsonObject([["format", 2], ["chunks", chunks.map(([s, i]) => [s, i])]]);
  checkArgument(v2JournalSchema, doc, "journal");
  return stringifyPythonJson(doc) + NL;
}

/**
 * Parses a version-2 ctable's `.append`: the table length before the interrupted append.
 *
 * @throws FormatError BAD_JSON, BAD_METADATA.
 * @example
 * ```ts
 * parseAppendV2('{"format": 2, "length": 1000}\n'); // 1000
 * ```
 */
export function parseAppendV2(text: string, path?: string): number {
  const doc = objectDocument(text, path);
  validateJsonSchema(asSchema(v2AppendSchema), doc, { path });
  return Number(doc.length);
}

/**
 * Serializes a version-2 ctable's `.append`.
 *
 * @throws UsageError INVALID_ARGUMENT for a negative or non-integer length.
 * @example
 * ```ts
 * serializeAppendV2(1000); // '{"format": 2, "length": 1000}\n'
 * ```
 */
export function serializeAppendV2(length: number): string {
  const doc = createJsonObject([["format", 2], ["length", length]]);
  checkArgument(v2AppendSchema, doc, "append");
  return stringifyPythonJson(doc) + NL;
}
