/**
 * bcolz 1.x metadata: Python's JSON dialect (byte-exact `json.dumps`), numpy dtype strings, and
 * the four metadata files `meta/sizes`, `meta/storage`, `__attrs__`, `__rootdirs__`, validated
 * against the JSON Schemas of `spec/schemas/`; and the format-version-2 files (`meta/storage` by
 * kind, `meta/shape`, superchunk metadata, `.journal`, `.append`) against `spec/schemas/v2/`.
 *
 * @example
 * ```ts
 * import { parseStorage, serializeStorage } from "@fmt/meta";
 * const st = parseStorage(text, "meta/storage");
 * serializeStorage(st) === text; // true for every file bcolz wrote
 * ```
 * @packageDocumentation
 */
export {
  PyFloat,
  pyFloat,
  createJsonObject,
  jsonObjectKeys,
  jsonPointer,
  parsePythonJson,
  stringifyPythonJson,
  pythonFloatRepr,
  pythonJsonString,
  DEFAULT_MAX_JSON_DEPTH,
  DEFAULT_MAX_JSON_LENGTH,
  type JsonValue,
  type JsonObject,
  type ParseJsonOptions,
} from "./json.js";
export {
  parseDtype,
  isStorableDtype,
  dtypeFromNumpyStr,
  atomSize,
  defaultDflt,
  MAX_DTYPE_ITEMSIZE,
  type DType,
  type DTypeKind,
} from "./dtype.js";
export { validateJsonSchema, type JsonSchema, type ValidateOptions } from "./schema.js";
export {
  parseSizes,
  serializeSizes,
  parseStorage,
  serializeStorage,
  createStorage,
  parseAttrs,
  serializeAttrs,
  parseRootdirs,
  serializeRootdirs,
  columnNameProblem,
  MAX_COLUMN_NAME_LENGTH,
  decodeMetadata,
  encodeMetadata,
  type CodecName,
  type Cparams,
  type Sizes,
  type Storage,
  type Rootdirs,
} from "./metadata.js";
export {
  storageFormatVersion,
  parseStorageV2,
  serializeStorageV2,
  createCarrayStorageV2,
  defaultSuperchunksize,
  parseShapeV2,
  serializeShapeV2,
  parseSuperchunkMeta,
  serializeSuperchunkMeta,
  parseJournalV2,
  serializeJournalV2,
  parseAppendV2,
  serializeAppendV2,
  type ChecksumNameV2,
  type CarrayStorageV2,
  type CtableStorageV2,
  type VlarrayStorageV2,
  type StorageV2,
  type SuperchunkMeta,
} from "./metadata-v2.js";
export * from "./generated/schemas.js";
