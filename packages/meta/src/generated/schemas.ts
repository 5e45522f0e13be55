// GENERATED FILE — do not edit. Source: spec/schemas/*.schema.json.
// Regenerate with: node tools/gen-meta-types/generate.mjs

import type { JsonValue } from "../json.js";

/**
 * `__attrs__` of a bcolz 1.x carray or ctable root: the user attributes as one JSON object (any JSON values) plus a newline; `{}` when empty.
 *
 * Generated from `spec/schemas/attrs.schema.json`.
 *
 * @example
 * ```ts
 * const doc = parsePythonJson(text) as RawAttrs;
 * ```
 */
export type RawAttrs = {
  [key: string]: JsonValue;
};

/**
 * The JSON Schema (draft 2020-12) `urn:fmt:bcolz:v1:attrs`, verbatim from `spec/schemas/attrs.schema.json`.
 *
 * @example
 * ```ts
 * validateJsonSchema(attrsSchema, parsePythonJson(text), { path });
 * ```
 */
export const attrsSchema = {
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "$id": "urn:fmt:bcolz:v1:attrs",
  "title": "RawAttrs",
  "description": "`__attrs__` of a bcolz 1.x carray or ctable root: the user attributes as one JSON object (any JSON values) plus a newline; `{}` when empty.",
  "type": "object",
  "additionalProperties": true
} as const;

/**
 * The `cparams` object of a bcolz 1.x `meta/storage` file: the Blosc parameters used for new chunks. bcolz >= 1.1.0 writes all four keys; bcolz <= 1.0 wrote only `clevel` and `shuffle` (before 1.0 as a boolean). bcolz passes the object as keyword arguments to its `cparams` class, so unknown keys make real bcolz fail and are rejected here too.
 *
 * Generated from `spec/schemas/cparams.schema.json`.
 *
 * @example
 * ```ts
 * const doc = parsePythonJson(text) as RawCparams;
 * ```
 */
export type RawCparams = {
  /** Blosc compression level. */
  clevel: number;
  /** 0 = none, 1 = byte shuffle, 2 = bit shuffle; old files: true (= 1) or false (= 0). */
  shuffle: 0 | 1 | 2 | true | false;
  /** Codec for new chunks; absent in files of bcolz <= 1.0, where it means blosclz. */
  cname?: "blosclz" | "lz4" | "lz4hc" | "snappy" | "zlib" | "zstd";
  /** Significant decimal digits kept by lossy float quantization; 0 = off. Absent in old files (= 0). */
  quantize?: number;
};

/**
 * The JSON Schema (draft 2020-12) `urn:fmt:bcolz:v1:cparams`, verbatim from `spec/schemas/cparams.schema.json`.
 *
 * @example
 * ```ts
 * validateJsonSchema(cparamsSchema, parsePythonJson(text), { path });
 * ```
 */
export const cparamsSchema = {
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "$id": "urn:fmt:bcolz:v1:cparams",
  "title": "RawCparams",
  "description": "The `cparams` object of a bcolz 1.x `meta/storage` file: the Blosc parameters used for new chunks. bcolz >= 1.1.0 writes all four keys; bcolz <= 1.0 wrote only `clevel` and `shuffle` (before 1.0 as a boolean). bcolz passes the object as keyword arguments to its `cparams` class, so unknown keys make real bcolz fail and are rejected here too.",
  "type": "object",
  "properties": {
    "clevel": {
      "description": "Blosc compression level.",
      "type": "integer",
      "minimum": 0,
      "maximum": 9
    },
    "shuffle": {
      "description": "0 = none, 1 = byte shuffle, 2 = bit shuffle; old files: true (= 1) or false (= 0).",
      "enum": [
        0,
        1,
        2,
        true,
        false
      ]
    },
    "cname": {
      "description": "Codec for new chunks; absent in files of bcolz <= 1.0, where it means blosclz.",
      "enum": [
        "blosclz",
        "lz4",
        "lz4hc",
        "snappy",
        "zlib",
        "zstd"
      ]
    },
    "quantize": {
      "description": "Significant decimal digits kept by lossy float quantization; 0 = off. Absent in old files (= 0).",
      "type": "integer",
      "minimum": 0,
      "maximum": 2147483647
    }
  },
  "required": [
    "clevel",
    "shuffle"
  ],
  "additionalProperties": false
} as const;

/**
 * `__rootdirs__` of a bcolz 1.x ctable: the column names in column order; each column is the carray directory `<root>/<name>`. Name safety (no empty name, `.`, `..`, `/`, `\`, NUL) is checked in code and reported as UNSAFE_NAME. bcolz <= 0.7.1 also wrote `dirs` (column paths), which readers ignore.
 *
 * Generated from `spec/schemas/rootdirs.schema.json`.
 *
 * @example
 * ```ts
 * const doc = parsePythonJson(text) as RawRootdirs;
 * ```
 */
export type RawRootdirs = {
  /** Column names, in column order; at least one. */
  names: string[];
  /** Legacy (bcolz <= 0.7.1) map from name to column path; ignored. */
  dirs?: JsonValue;
  [key: string]: JsonValue | undefined;
};

/**
 * The JSON Schema (draft 2020-12) `urn:fmt:bcolz:v1:rootdirs`, verbatim from `spec/schemas/rootdirs.schema.json`.
 *
 * @example
 * ```ts
 * validateJsonSchema(rootdirsSchema, parsePythonJson(text), { path });
 * ```
 */
export const rootdirsSchema = {
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "$id": "urn:fmt:bcolz:v1:rootdirs",
  "title": "RawRootdirs",
  "description": "`__rootdirs__` of a bcolz 1.x ctable: the column names in column order; each column is the carray directory `<root>/<name>`. Name safety (no empty name, `.`, `..`, `/`, `\\`, NUL) is checked in code and reported as UNSAFE_NAME. bcolz <= 0.7.1 also wrote `dirs` (column paths), which readers ignore.",
  "type": "object",
  "properties": {
    "names": {
      "description": "Column names, in column order; at least one.",
      "type": "array",
      "items": {
        "type": "string"
      },
      "minItems": 1
    },
    "dirs": {
      "description": "Legacy (bcolz <= 0.7.1) map from name to column path; ignored."
    }
  },
  "required": [
    "names"
  ],
  "additionalProperties": true
} as const;

/**
 * bcolz 1.x `meta/sizes`: one line of Python `json.dumps` output plus a newline, keys in the order shape, nbytes, cbytes. `shape[0]` is the authoritative length; `nbytes` and `cbytes` are informational (`cbytes` drifts after edits). Other keys are ignored by bcolz and tolerated here.
 *
 * Generated from `spec/schemas/sizes.schema.json`.
 *
 * @example
 * ```ts
 * const doc = parsePythonJson(text) as RawSizes;
 * ```
 */
export type RawSizes = {
  /** [length] or [length, d1, d2, ...] for multidimensional carrays (numpy allows at most 32 dimensions). */
  shape: number[];
  /** Uncompressed size: length x atomsize. */
  nbytes: (number | bigint);
  /** bcolz's running estimate of the compressed size; never rely on it. */
  cbytes: (number | bigint);
  [key: string]: JsonValue;
};

/**
 * The JSON Schema (draft 2020-12) `urn:fmt:bcolz:v1:sizes`, verbatim from `spec/schemas/sizes.schema.json`.
 *
 * @example
 * ```ts
 * validateJsonSchema(sizesSchema, parsePythonJson(text), { path });
 * ```
 */
export const sizesSchema = {
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "$id": "urn:fmt:bcolz:v1:sizes",
  "title": "RawSizes",
  "description": "bcolz 1.x `meta/sizes`: one line of Python `json.dumps` output plus a newline, keys in the order shape, nbytes, cbytes. `shape[0]` is the authoritative length; `nbytes` and `cbytes` are informational (`cbytes` drifts after edits). Other keys are ignored by bcolz and tolerated here.",
  "type": "object",
  "properties": {
    "shape": {
      "description": "[length] or [length, d1, d2, ...] for multidimensional carrays (numpy allows at most 32 dimensions).",
      "type": "array",
      "minItems": 1,
      "maxItems": 32,
      "items": {
        "type": "integer",
        "minimum": 0,
        "maximum": 9007199254740991
      }
    },
    "nbytes": {
      "description": "Uncompressed size: length x atomsize.",
      "type": "integer",
      "minimum": 0
    },
    "cbytes": {
      "description": "bcolz's running estimate of the compressed size; never rely on it.",
      "type": "integer"
    }
  },
  "required": [
    "shape",
    "nbytes",
    "cbytes"
  ],
  "additionalProperties": true
} as const;

/**
 * bcolz 1.x `meta/storage`: one line of Python `json.dumps` output plus a newline, keys in the order dtype, cparams, chunklen, expectedlen, dflt. bcolz reads exactly these five keys; others are tolerated and kept.
 *
 * Generated from `spec/schemas/storage.schema.json`.
 *
 * @example
 * ```ts
 * const doc = parsePythonJson(text) as RawStorage;
 * ```
 */
export type RawStorage = {
  /** numpy `str(dtype)` of the base dtype: "float64", "int32", "bool", "datetime64[ns]", "|S7", "<U3", ">i4" (checked by the dtype parser, not by this schema). */
  dtype: string;
  cparams: RawCparams;
  /** Rows per chunk file (authoritative). */
  chunklen: number;
  /** The expected length chunklen was derived from (informational). */
  expectedlen: (number | bigint);
  /** Fill value for growth: numpy scalar `.tolist()` of the dtype (int, float incl. NaN/Infinity, bool, string). */
  dflt: JsonValue;
  [key: string]: JsonValue;
};

/**
 * The JSON Schema (draft 2020-12) `urn:fmt:bcolz:v1:storage`, verbatim from `spec/schemas/storage.schema.json`.
 *
 * @example
 * ```ts
 * validateJsonSchema(storageSchema, parsePythonJson(text), { path });
 * ```
 */
export const storageSchema = {
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "$id": "urn:fmt:bcolz:v1:storage",
  "title": "RawStorage",
  "description": "bcolz 1.x `meta/storage`: one line of Python `json.dumps` output plus a newline, keys in the order dtype, cparams, chunklen, expectedlen, dflt. bcolz reads exactly these five keys; others are tolerated and kept.",
  "type": "object",
  "properties": {
    "dtype": {
      "description": "numpy `str(dtype)` of the base dtype: \"float64\", \"int32\", \"bool\", \"datetime64[ns]\", \"|S7\", \"<U3\", \">i4\" (checked by the dtype parser, not by this schema).",
      "type": "string",
      "minLength": 1
    },
    "cparams": {
      "$ref": "urn:fmt:bcolz:v1:cparams"
    },
    "chunklen": {
      "description": "Rows per chunk file (authoritative).",
      "type": "integer",
      "minimum": 1,
      "maximum": 9007199254740991
    },
    "expectedlen": {
      "description": "The expected length chunklen was derived from (informational).",
      "type": "integer",
      "minimum": 0
    },
    "dflt": {
      "description": "Fill value for growth: numpy scalar `.tolist()` of the dtype (int, float incl. NaN/Infinity, bool, string)."
    }
  },
  "required": [
    "dtype",
    "cparams",
    "chunklen",
    "expectedlen",
    "dflt"
  ],
  "additionalProperties": true
} as const;

/**
 * Every schema above by its `$id`, for resolving `$ref`.
 *
 * @example
 * ```ts
 * const cparams = schemaRegistry["urn:fmt:bcolz:v1:cparams"];
 * ```
 */
export const schemaRegistry = {
  "urn:fmt:bcolz:v1:attrs": attrsSchema,
  "urn:fmt:bcolz:v1:cparams": cparamsSchema,
  "urn:fmt:bcolz:v1:rootdirs": rootdirsSchema,
  "urn:fmt:bcolz:v1:sizes": sizesSchema,
  "urn:fmt:bcolz:v1:storage": storageSchema,
} as const;
