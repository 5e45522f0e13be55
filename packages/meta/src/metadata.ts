import { FormatError, UsageError } from "@fmt/errors";
import { PyFloat, createJsonObject, jsonObjectKeys, parsePythonJson, stringifyPythonJson, type JsonObject, type JsonValue } from "./json.js";
import { defaultDflt, parseDtype, type DType } from "./dtype.js";
import { validateJsonSchema, type JsonSchema } from "./schema.js";
import {
  attrsSchema,
  cparamsSchema,
  rootdirsSchema,
  sizesSchema,
  storageSchema,
  type RawCparams,
  type RawRootdirs,
  type RawSizes,
  type RawStorage,
} from "./generated/schemas.js";

/**
 * A Blosc codec name as bcolz stores it in `cparams.cname` (same union as `@fmt/header`'s
 * `CodecName`).
 *
 * @example
 * ```ts
 * const c: CodecName = "lz4";
 * ```
 */
export type CodecName = "blosclz" | "lz4" | "lz4hc" | "snappy" | "zlib" | "zstd";

/**
 * Normalized compression parameters of `meta/storage` (old-file leniencies already applied).
 *
 * @example
 * ```ts
 * const c: Cparams = { clevel: 5, shuffle: 1, cname: "lz4", quantize: 0 };
 * ```
 */
export interface Cparams {
  /** Blosc compression level 0–9. */
  clevel: number;
  /** 0 none, 1 byte shuffle, 2 bit shuffle (old files' `true`/`false` become 1/0). */
  shuffle: 0 | 1 | 2;
  /** Codec for new chunks (old files without it: `"blosclz"`); existing chunks' headers are authoritative. */
  cname: CodecName;
  /** Lossy float quantization digits, 0 = off (old files without it: 0). */
  quantize: number;
}

/**
 * `meta/sizes`: `shape[0]` is the authoritative length; `nbytes`/`cbytes` are informational.
 *
 * @example
 * ```ts
 * const s: Sizes = { shape: [100000], nbytes: 400000, cbytes: 264522 };
 * ```
 */
export interface Sizes {
  /** `[length, ...trailing dimensions]`; `shape[0]` is the authoritative length. */
  shape: number[];
  /** Uncompressed bytes (informational). */
  nbytes: number | bigint;
  /** bcolz's compressed-size estimate (informational, drifts). */
  cbytes: number | bigint;
}

/**
 * `meta/storage`, normalized. `raw` is the document as parsed (key order and spelling kept):
 * {@link serializeStorage} reuses its spelling for every field whose meaning did not change, so
 * parse → serialize reproduces the file byte for byte, and keeps keys bcolz does not know.
 *
 * @example
 * ```ts
 * const st: Storage = parseStorage(text, "meta/storage");
 * st.dtype.str;  // "<i4"
 * st.chunklen;   // 65536
 * ```
 */
export interface Storage {
  /** The base dtype. */
  dtype: DType;
  /** Compression parameters for new chunks. */
  cparams: Cparams;
  /** Rows per chunk file (authoritative). */
  chunklen: number;
  /** Expected length chunklen was derived from (informational). */
  expectedlen: number | bigint;
  /** Fill value: `number`/`bigint` for ints and datetimes, {@link PyFloat} for floats, boolean, string. */
  dflt: JsonValue;
  /** The document as parsed (ordered, null-prototype); `{}`/`createJsonObject([])` for new files. */
  raw: { [k: string]: JsonValue };
}

/**
 * `__rootdirs__` of a ctable: the column names in column order.
 *
 * @example
 * ```ts
 * const r: Rootdirs = { names: ["id", "price"] };
 * ```
 */
export interface Rootdirs {
  /** Column names in column order; column `i` lives in `<root>/<names[i]>`. */
  names: string[];
}

const SCHEMA_AS_IS = (s: unknown): JsonSchema => s as JsonSchema;

function parseDocument(text: string, schema: unknown, path: string | undefined): JsonValue {
  const doc = parsePythonJson(text, path);
  validateJsonSchema(SCHEMA_AS_IS(schema), doc, { path });
  return doc;
}

function badArgument(reason: string, field: string, actual?: unknown): never {
  throw new UsageError("INVALID_ARGUMENT", reason, { field, actual });
}

/** Validates a value built by a caller (not read from a file): violations are the caller's fault. */
function checkArgument(schema: unknown, value: JsonValue, what: string): void {
  try {
    validateJsonSchema(SCHEMA_AS_IS(schema), value);
  } catch (e) {
    if (e instanceof FormatError) {
      throw new UsageError("INVALID_ARGUMENT", `${what}: ${e.reason}`, { field: e.field, expected: e.expected, actual: e.actual });
    }
    throw e;
  }
}

const NL = "\n";

// ---------------------------------------------------------------------------------------------
// meta/sizes

/**
 * Parses `meta/sizes` (`{"shape": [...], "nbytes": n, "cbytes": n}`). Syntax errors are
 * `BAD_JSON`; schema violations (see `spec/schemas/sizes.schema.json`) are `BAD_METADATA` with the
 * JSON pointer as `field`. Extra keys are ignored, as bcolz does.
 *
 * @example
 * ```ts
 * parseSizes('{"shape": [100000], "nbytes": 400000, "cbytes": 264522}\n', "meta/sizes").shape[0]; // 100000
 * ```
 */
export function parseSizes(text: string, path?: string): Sizes {
  const doc = parseDocument(text, sizesSchema, path) as RawSizes;
  // The schema cannot say "every item after the first is at least 1" (spec v1 §10).
  doc.shape.forEach((d, i) => {
    if (i > 0 && d < 1) throw new FormatError("BAD_METADATA", "trailing dimensions of shape must be at least 1", { path, field: `/shape/${i}`, expected: ">= 1", actual: d });
  });
  return { shape: [...doc.shape], nbytes: doc.nbytes, cbytes: doc.cbytes };
}

/**
 * Serializes `meta/sizes` exactly as bcolz does (keys shape, nbytes, cbytes; Python separators;
 * trailing newline). Throws `UsageError` `INVALID_ARGUMENT` for values the schema forbids.
 *
 * @example
 * ```ts
 * serializeSizes({ shape: [100000], nbytes: 400000, cbytes: 264522 });
 * // '{"shape": [100000], "nbytes": 400000, "cbytes": 264522}\n'
 * ```
 */
export function serializeSizes(sizes: Sizes): string {
  if (typeof sizes !== "object" || sizes === null) badArgument("sizes must be an object", "");
  const doc = createJsonObject([
    ["shape", Array.isArray(sizes.shape) ? [...sizes.shape] : sizes.shape],
    ["nbytes", sizes.nbytes],
    ["cbytes", sizes.cbytes],
  ]);
  checkArgument(sizesSchema, doc, "sizes");
  return stringifyPythonJson(doc) + NL;
}

// ---------------------------------------------------------------------------------------------
// meta/storage

function normalizeCparams(raw: RawCparams): Cparams {
  const shuffle = raw.shuffle === true ? 1 : raw.shuffle === false ? 0 : raw.shuffle;
  return { clevel: raw.clevel, shuffle, cname: raw.cname ?? "blosclz", quantize: raw.quantize ?? 0 };
}

function sameCparams(a: Cparams, b: Cparams): boolean {
  return a.clevel === b.clevel && a.shuffle === b.shuffle && a.cname === b.cname && a.quantize === b.quantize;
}

function isInt(v: JsonValue): boolean {
  return (typeof v === "number" && Number.isInteger(v)) || typeof v === "bigint";
}

/**
 * Why `dflt` does not have the JSON type numpy's `.tolist()` gives for this dtype (what it should
 * be, in words), or `undefined` when it fits. Shared by the version-1 and version-2 storage files.
 *
 * @example
 * ```ts
 * dfltProblem(parseDtype("<i4"), "x"); // "an integer"
 * ```
 */
export function dfltProblem(dtype: DType, dflt: JsonValue): string | undefined {
  switch (dtype.kind) {
    case "b":
      return typeof dflt === "boolean" ? undefined : "a boolean";
    case "i":
    case "u":
      return isInt(dflt) ? undefined : "an integer";
    case "M":
    case "m":
      // numpy's NaT.tolist() is None, which json.dumps writes as null.
      return isInt(dflt) || dflt === null ? undefined : "an integer or null (NaT)";
    case "f":
      return dflt instanceof PyFloat || typeof dflt === "number" || typeof dflt === "bigint" ? undefined : "a number";
    case "S":
    case "U":
      return typeof dflt === "string" ? undefined : "a string";
    default:
      return undefined; // complex and void have no JSON form in bcolz; accept whatever is there
  }
}

/**
 * Parses `meta/storage`. The dtype is parsed with {@link parseDtype} (`UNSUPPORTED_DTYPE`, field
 * `/dtype`); the rest follows `spec/schemas/storage.schema.json` and `cparams.schema.json`
 * (`BAD_METADATA`). Old-file leniencies: `shuffle` true/false → 1/0, missing `cname` →
 * `"blosclz"`, missing `quantize` → 0. `dflt` must have the JSON type of the dtype (boolean for
 * bool, integer for ints, integer or null (NaT) for datetimes, number for floats, string for S/U).
 * A `format_version` other than 1 (a version-2 root, spec/v2.md §3.1) is `UNSUPPORTED_VERSION`.
 *
 * @example
 * ```ts
 * const st = parseStorage('{"dtype": "float64", "cparams": {"shuffle": true, "clevel": 5}, "chunklen": 1024, "expectedlen": 0, "dflt": 0.0}\n');
 * st.cparams; // { clevel: 5, shuffle: 1, cname: "blosclz", quantize: 0 }
 * ```
 */
export function parseStorage(text: string, path?: string): Storage {
  const doc = parsePythonJson(text, path);
  // A root whose meta/storage announces another format version (spec/v2.md §3.1) is refused
  // before anything of it is read as version 1.
  if (typeof doc === "object" && doc !== null && !Array.isArray(doc) && !(doc instanceof PyFloat) && doc.format_version !== undefined && doc.format_version !== 1) {
    throw new FormatError("UNSUPPORTED_VERSION", "meta/storage announces a format version other than 1", {
      path, field: "/format_version", expected: "absent or 1", actual: stringifyPythonJson(doc.format_version).slice(0, 40),
    });
  }
  // The dtype is checked first so that an unsupported dtype is reported as such even when the
  // rest of the document is fine.
  if (typeof doc === "object" && doc !== null && !Array.isArray(doc) && !(doc instanceof PyFloat) && typeof doc.dtype === "string") {
    parseDtype(doc.dtype, path, "/dtype");
  }
  validateJsonSchema(SCHEMA_AS_IS(storageSchema), doc, { path });
  const raw = doc as RawStorage;
  const dtype = parseDtype(raw.dtype, path, "/dtype");
  const problem = dfltProblem(dtype, raw.dflt);
  if (problem !== undefined) {
    throw new FormatError("BAD_METADATA", `dflt does not fit dtype ${raw.dtype}`, {
      path,
      field: "/dflt",
      expected: problem,
      actual: stringifyPythonJson(raw.dflt).slice(0, 80),
    });
  }
  return {
    dtype,
    cparams: normalizeCparams(raw.cparams),
    chunklen: raw.chunklen,
    expectedlen: raw.expectedlen,
    dflt: raw.dflt,
    raw: doc as JsonObject,
  };
}

/**
 * Serializes `meta/storage` like bcolz 1.2.1 (keys dtype, cparams, chunklen, expectedlen, dflt;
 * Python separators; trailing newline). Spelling rules: the `raw` spelling of `dtype` and
 * `cparams` is kept while it still means the same thing as the normalized field (so old files
 * round-trip byte for byte), otherwise `dtype.bcolzName` and the full four-key cparams are
 * written; keys of `raw` bcolz does not know are kept in place. A plain-number or bigint `dflt` of a
 * float dtype is written as a float (`0.0`), as numpy's `.tolist()` would give it. Throws
 * `UsageError` `INVALID_ARGUMENT` for invalid fields.
 *
 * @example
 * ```ts
 * serializeStorage(createStorage({ dtype: parseDtype("int32"), cparams: { clevel: 5, shuffle: 1, cname: "lz4", quantize: 0 }, chunklen: 65536, expectedlen: 100000 }));
 * // '{"dtype": "int32", "cparams": {"clevel": 5, "shuffle": 1, "cname": "lz4", "quantize": 0}, "chunklen": 65536, "expectedlen": 100000, "dflt": 0}\n'
 * ```
 */
export function serializeStorage(storage: Storage): string {
  if (typeof storage !== "object" || storage === null) badArgument("storage must be an object", "");
  const { dtype, cparams } = storage;
  if (typeof dtype !== "object" || dtype === null || typeof dtype.str !== "string") badArgument("storage.dtype must be a DType", "/dtype", dtype);
  const raw: JsonObject = typeof storage.raw === "object" && storage.raw !== null ? storage.raw : {};

  let dtypeText: string = dtype.bcolzName;
  if (typeof raw.dtype === "string") {
    try {
      if (parseDtype(raw.dtype).str === dtype.str) dtypeText = raw.dtype;
    } catch {
      // raw spelling unusable: write the canonical one
    }
  }
  // Make sure what we write parses back to the same dtype.
  const reparsed = (() => {
    try {
      return parseDtype(dtypeText);
    } catch {
      return undefined;
    }
  })();
  if (reparsed === undefined || reparsed.str !== dtype.str) badArgument("storage.dtype is inconsistent", "/dtype", dtype.str);

  const canonicalCparams = createJsonObject([
    ["clevel", cparams?.clevel],
    ["shuffle", cparams?.shuffle],
    ["cname", cparams?.cname],
    ["quantize", cparams?.quantize],
  ] as [string, JsonValue][]);
  checkArgument(cparamsSchema, canonicalCparams, "storage.cparams");
  let cparamsValue: JsonValue = canonicalCparams;
  const rawCparams = raw.cparams;
  if (typeof rawCparams === "object" && rawCparams !== null && !Array.isArray(rawCparams) && !(rawCparams instanceof PyFloat)) {
    try {
      validateJsonSchema(SCHEMA_AS_IS(cparamsSchema), rawCparams);
      if (sameCparams(normalizeCparams(rawCparams as RawCparams), cparams)) cparamsValue = rawCparams;
    } catch {
      // raw cparams unusable: write the canonical form
    }
  }

  let dflt = storage.dflt;
  if (dtype.kind === "f" && (typeof dflt === "number" || typeof dflt === "bigint")) dflt = new PyFloat(Number(dflt));
  if (dflt === undefined) badArgument("storage.dflt is missing", "/dflt");
  const problem = dfltProblem(dtype, dflt);
  if (problem !== undefined) badArgument(`storage.dflt must be ${problem} for dtype ${dtype.bcolzName}`, "/dflt", dflt);

  const known: Record<string, JsonValue> = {
    dtype: dtypeText,
    cparams: cparamsValue,
    chunklen: storage.chunklen,
    expectedlen: storage.expectedlen,
    dflt,
  };
  const order = ["dtype", "cparams", "chunklen", "expectedlen", "dflt"];
  const rawKeys = jsonObjectKeys(raw);
  const keys = rawKeys.some((k) => order.includes(k)) ? [...rawKeys, ...order.filter((k) => !rawKeys.includes(k))] : [...order, ...rawKeys];
  const doc = createJsonObject(keys.map((k) => [k, Object.prototype.hasOwnProperty.call(known, k) ? (known[k] as JsonValue) : (raw[k] as JsonValue)]));
  checkArgument(storageSchema, doc, "storage");
  return stringifyPythonJson(doc) + NL;
}

/**
 * Builds a {@link Storage} for a new carray (no `raw` spelling to preserve). `dflt` defaults to
 * zero of the dtype (see {@link defaultDflt}).
 *
 * @example
 * ```ts
 * const st = createStorage({ dtype: parseDtype("float64"), cparams: { clevel: 5, shuffle: 1, cname: "blosclz", quantize: 0 }, chunklen: 32768, expectedlen: 60000 });
 * serializeStorage(st); // '{"dtype": "float64", ..., "dflt": 0.0}\n'
 * ```
 */
export function createStorage(options: {
  dtype: DType;
  cparams: Cparams;
  chunklen: number;
  expectedlen: number | bigint;
  dflt?: JsonValue;
}): Storage {
  const dflt = options.dflt === undefined ? defaultDflt(options.dtype) : options.dflt;
  return { dtype: options.dtype, cparams: { ...options.cparams }, chunklen: options.chunklen, expectedlen: options.expectedlen, dflt, raw: createJsonObject([]) };
}

// ---------------------------------------------------------------------------------------------
// __attrs__

/**
 * Parses `__attrs__` (any JSON object; `{}` when empty).
 *
 * @example
 * ```ts
 * parseAttrs('{"units": "m/s", "scale": 0.5}\n').units; // "m/s"
 * ```
 */
export function parseAttrs(text: string, path?: string): { [k: string]: JsonValue } {
  return parseDocument(text, attrsSchema, path) as JsonObject;
}

/**
 * Serializes `__attrs__` like bcolz (Python `json.dumps` + newline); key order as recorded (see
 * {@link jsonObjectKeys}).
 *
 * @example
 * ```ts
 * serializeAttrs({ units: "m/s", n: 3 }); // '{"units": "m/s", "n": 3}\n'
 * ```
 */
export function serializeAttrs(attrs: { [k: string]: JsonValue }): string {
  checkArgument(attrsSchema, attrs, "attrs");
  return stringifyPythonJson(attrs) + NL;
}

// ---------------------------------------------------------------------------------------------
// __rootdirs__

const RESERVED_NAMES = new Set(["__attrs__", "__rootdirs__"]);

/**
 * Longest column name, in bytes (= characters: names are ASCII), that readers accept and writers
 * write (spec v1 §12.2). Far below the 255-byte file-name limit of common file systems, so a
 * column directory name never fails with ENAMETOOLONG.
 *
 * @example
 * ```ts
 * "x".repeat(MAX_COLUMN_NAME_LENGTH + 1); // refused by columnNameProblem
 * ```
 */
export const MAX_COLUMN_NAME_LENGTH = 255;

const NAME_RULE = `an identifier [A-Za-z_][A-Za-z0-9_]* of at most ${MAX_COLUMN_NAME_LENGTH} characters`;

/**
 * Why `name` cannot be a ctable column name, or `undefined` if it can (spec v1 §12.2): it must
 * be an ASCII identifier `[A-Za-z_][A-Za-z0-9_]*` of at most {@link MAX_COLUMN_NAME_LENGTH}
 * characters, and not `__attrs__`/`__rootdirs__` (files of the ctable root). Python keywords are
 * not refused here (bcolz reads them); writers refuse them too.
 *
 * @example
 * ```ts
 * columnNameProblem("price");  // undefined
 * columnNameProblem("../etc"); // "is not an identifier ([A-Za-z_][A-Za-z0-9_]*)"
 * ```
 */
export function columnNameProblem(name: string): string | undefined {
  if (typeof name !== "string") return "not a string";
  if (name === "") return "empty";
  if (name.length > MAX_COLUMN_NAME_LENGTH) return `is longer than ${MAX_COLUMN_NAME_LENGTH} characters (${name.length})`;
  for (let i = 0; i < name.length; i++) {
    const c = name.charCodeAt(i);
    const letter = (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95;
    const digit = c >= 48 && c <= 57;
    if (!(letter || (digit && i > 0))) return "is not an identifier ([A-Za-z_][A-Za-z0-9_]*)";
  }
  if (RESERVED_NAMES.has(name)) return "clashes with a ctable metadata file";
  return undefined;
}

function checkNames(names: readonly string[], onUnsafe: (i: number, why: string) => never, onDuplicate: (i: number) => never): void {
  const seen = new Set<string>();
  names.forEach((name, i) => {
    const why = columnNameProblem(name);
    if (why !== undefined) onUnsafe(i, why);
    if (seen.has(name)) onDuplicate(i);
    seen.add(name);
  });
}

/**
 * Parses a ctable's `__rootdirs__`. Returns the names in column order; the legacy `dirs` key is
 * ignored (columns live at `<root>/<name>`). Unsafe names → `FormatError` `UNSAFE_NAME`,
 * duplicates → `BAD_METADATA`, both with field `/names/<i>`.
 *
 * @example
 * ```ts
 * parseRootdirs('{"names": ["a", "c", "b"]}\n').names; // ["a", "c", "b"]
 * ```
 */
export function parseRootdirs(text: string, path?: string): Rootdirs {
  const doc = parseDocument(text, rootdirsSchema, path) as RawRootdirs;
  const names = [...doc.names];
  checkNames(
    names,
    (i, why) => {
      throw new FormatError("UNSAFE_NAME", `column name ${why}`, { path, field: `/names/${i}`, expected: NAME_RULE, actual: names[i] });
    },
    (i) => {
      throw new FormatError("BAD_METADATA", "duplicate column name", { path, field: `/names/${i}`, expected: "unique names", actual: names[i] });
    },
  );
  return { names };
}

/**
 * Serializes `__rootdirs__` like bcolz ≥ 0.7.2 (`{"names": [...]}` + newline). Unsafe names →
 * `UsageError` `UNSAFE_NAME`; duplicates → `UsageError` `INVALID_ARGUMENT`.
 *
 * @example
 * ```ts
 * serializeRootdirs({ names: ["id", "price"] }); // '{"names": ["id", "price"]}\n'
 * ```
 */
export function serializeRootdirs(rootdirs: Rootdirs): string {
  if (typeof rootdirs !== "object" || rootdirs === null || !Array.isArray(rootdirs.names)) {
    badArgument("rootdirs.names must be an array of strings", "/names", rootdirs);
  }
  const names = [...rootdirs.names];
  checkArgument(rootdirsSchema, createJsonObject([["names", names]]), "rootdirs");
  checkNames(
    names,
    (i, why) => {
      throw new UsageError("UNSAFE_NAME", `column name ${why}`, { field: `/names/${i}`, expected: NAME_RULE, actual: names[i] });
    },
    (i) => badArgument("duplicate column name", `/names/${i}`, names[i]),
  );
  return stringifyPythonJson(createJsonObject([["names", names]])) + NL;
}

// ---------------------------------------------------------------------------------------------
// bytes

/**
 * Decodes a metadata file's bytes as strict UTF-8 (bcolz writes ASCII); invalid UTF-8 →
 * `FormatError` `BAD_JSON`.
 *
 * @example
 * ```ts
 * parseSizes(decodeMetadata(await store.get("meta/sizes"), "meta/sizes"), "meta/sizes");
 * ```
 */
export function decodeMetadata(bytes: Uint8Array, path?: string): string {
  try {
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch (e) {
    throw new FormatError("BAD_JSON", "metadata file is not valid UTF-8", { path, field: "encoding", expected: "ASCII/UTF-8 text", cause: e });
  }
}

/**
 * Encodes serialized metadata (always ASCII) to bytes for a store.
 *
 * @example
 * ```ts
 * await store.put("meta/sizes", encodeMetadata(serializeSizes(sizes)));
 * ```
 */
export function encodeMetadata(text: string): Uint8Array {
  return new TextEncoder().encode(text);
}
