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
      "type": "string"
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
 * `.append` in the root of a format-version-2 ctable (spec/v2.md §11, spec/v1.md §8.5): the table's length before an append in progress.
 *
 * Generated from `spec/schemas/v2/append.schema.json`.
 *
 * @example
 * ```ts
 * const doc = parsePythonJson(text) as RawAppendV2;
 * ```
 */
export type RawAppendV2 = {
  /** Always 2. */
  format: 2;
  /** Rows before the append. */
  length: number;
};

/**
 * The JSON Schema (draft 2020-12) `urn:fmt:bcolz:v2:append`, verbatim from `spec/schemas/v2/append.schema.json`.
 *
 * @example
 * ```ts
 * validateJsonSchema(v2AppendSchema, parsePythonJson(text), { path });
 * ```
 */
export const v2AppendSchema = {
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "$id": "urn:fmt:bcolz:v2:append",
  "title": "RawAppendV2",
  "description": "`.append` in the root of a format-version-2 ctable (spec/v2.md §11, spec/v1.md §8.5): the table's length before an append in progress.",
  "type": "object",
  "properties": {
    "format": {
      "description": "Always 2.",
      "const": 2
    },
    "length": {
      "description": "Rows before the append.",
      "type": "integer",
      "minimum": 0,
      "maximum": 9007199254740991
    }
  },
  "required": [
    "format",
    "length"
  ],
  "additionalProperties": false
} as const;

/**
 * `meta/storage` of a format-version-2 carray (spec/v2.md §10.1): `format_version` first, then kind, dtype, cparams, chunklen, superchunksize, checksum, spare, expectedlen, dflt. Written once at creation. Unknown keys are ignored. The dtype spelling and the fit of dflt to the dtype are checked in code (UNSUPPORTED_DTYPE, BAD_METADATA).
 *
 * Generated from `spec/schemas/v2/carray-storage.schema.json`.
 *
 * @example
 * ```ts
 * const doc = parsePythonJson(text) as RawCarrayStorageV2;
 * ```
 */
export type RawCarrayStorageV2 = {
  /** Always 2; what makes the root a version-2 root. */
  format_version: 2;
  /** What the root holds. */
  kind: "carray";
  /** Base dtype in any spelling of spec/v1.md §13; writers use numpy's dtype.str ("<f8", "|b1", "<M8[ns]"). */
  dtype: string;
  /** Blosc parameters for new chunks: all four keys, shuffle as an integer. */
  cparams: {
    clevel: number;
    shuffle: 0 | 1 | 2;
    cname: "blosclz" | "lz4" | "lz4hc" | "snappy" | "zlib" | "zstd";
    quantize: number;
  };
  /** Rows per chunk. */
  chunklen: number;
  /** Chunks per superchunk file (S); fixed at creation. */
  superchunksize: number;
  /** Checksum of superchunks created from now on; each file's header decides for that file. */
  checksum: "none" | "adler32" | "crc32" | "md5" | "sha1" | "sha224" | "sha256" | "sha384" | "sha512";
  /** Spare room per new slot, in percent of the chunk's cbytes (spec/v2.md §7.3). */
  spare: number;
  /** The length the creator expected (informational). */
  expectedlen: (number | bigint);
  /** Fill value for growth, as spec/v1.md §11.2. */
  dflt: JsonValue;
  [key: string]: JsonValue;
};

/**
 * The JSON Schema (draft 2020-12) `urn:fmt:bcolz:v2:carray-storage`, verbatim from `spec/schemas/v2/carray-storage.schema.json`.
 *
 * @example
 * ```ts
 * validateJsonSchema(v2CarrayStorageSchema, parsePythonJson(text), { path });
 * ```
 */
export const v2CarrayStorageSchema = {
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "$id": "urn:fmt:bcolz:v2:carray-storage",
  "title": "RawCarrayStorageV2",
  "description": "`meta/storage` of a format-version-2 carray (spec/v2.md §10.1): `format_version` first, then kind, dtype, cparams, chunklen, superchunksize, checksum, spare, expectedlen, dflt. Written once at creation. Unknown keys are ignored. The dtype spelling and the fit of dflt to the dtype are checked in code (UNSUPPORTED_DTYPE, BAD_METADATA).",
  "type": "object",
  "properties": {
    "format_version": {
      "description": "Always 2; what makes the root a version-2 root.",
      "const": 2
    },
    "kind": {
      "description": "What the root holds.",
      "const": "carray"
    },
    "dtype": {
      "description": "Base dtype in any spelling of spec/v1.md §13; writers use numpy's dtype.str (\"<f8\", \"|b1\", \"<M8[ns]\").",
      "type": "string",
      "minLength": 1
    },
    "cparams": {
      "description": "Blosc parameters for new chunks: all four keys, shuffle as an integer.",
      "type": "object",
      "properties": {
        "clevel": {
          "type": "integer",
          "minimum": 0,
          "maximum": 9
        },
        "shuffle": {
          "enum": [
            0,
            1,
            2
          ]
        },
        "cname": {
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
          "type": "integer",
          "minimum": 0,
          "maximum": 2147483647
        }
      },
      "required": [
        "clevel",
        "shuffle",
        "cname",
        "quantize"
      ],
      "additionalProperties": false
    },
    "chunklen": {
      "description": "Rows per chunk.",
      "type": "integer",
      "minimum": 1,
      "maximum": 9007199254740991
    },
    "superchunksize": {
      "description": "Chunks per superchunk file (S); fixed at creation.",
      "type": "integer",
      "minimum": 1,
      "maximum": 65536
    },
    "checksum": {
      "description": "Checksum of superchunks created from now on; each file's header decides for that file.",
      "enum": [
        "none",
        "adler32",
        "crc32",
        "md5",
        "sha1",
        "sha224",
        "sha256",
        "sha384",
        "sha512"
      ]
    },
    "spare": {
      "description": "Spare room per new slot, in percent of the chunk's cbytes (spec/v2.md §7.3).",
      "type": "integer",
      "minimum": 0,
      "maximum": 100
    },
    "expectedlen": {
      "description": "The length the creator expected (informational).",
      "type": "integer",
      "minimum": 0
    },
    "dflt": {
      "description": "Fill value for growth, as spec/v1.md §11.2."
    }
  },
  "required": [
    "format_version",
    "kind",
    "dtype",
    "cparams",
    "chunklen",
    "superchunksize",
    "checksum",
    "spare",
    "expectedlen",
    "dflt"
  ],
  "additionalProperties": true
} as const;

/**
 * `meta/storage` of a format-version-2 ctable (spec/v2.md §11): the column names in column order; column `name` is the directory `data/<name>/`. Name safety and the identifier rule of spec/v1.md §12.2 are checked in code (UNSAFE_NAME); duplicates are BAD_METADATA.
 *
 * Generated from `spec/schemas/v2/ctable-storage.schema.json`.
 *
 * @example
 * ```ts
 * const doc = parsePythonJson(text) as RawCtableStorageV2;
 * ```
 */
export type RawCtableStorageV2 = {
  /** Always 2. */
  format_version: 2;
  /** What the root holds. */
  kind: "ctable";
  /** Column names in column order; at least one. */
  columns: string[];
  [key: string]: JsonValue;
};

/**
 * The JSON Schema (draft 2020-12) `urn:fmt:bcolz:v2:ctable-storage`, verbatim from `spec/schemas/v2/ctable-storage.schema.json`.
 *
 * @example
 * ```ts
 * validateJsonSchema(v2CtableStorageSchema, parsePythonJson(text), { path });
 * ```
 */
export const v2CtableStorageSchema = {
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "$id": "urn:fmt:bcolz:v2:ctable-storage",
  "title": "RawCtableStorageV2",
  "description": "`meta/storage` of a format-version-2 ctable (spec/v2.md §11): the column names in column order; column `name` is the directory `data/<name>/`. Name safety and the identifier rule of spec/v1.md §12.2 are checked in code (UNSAFE_NAME); duplicates are BAD_METADATA.",
  "type": "object",
  "properties": {
    "format_version": {
      "description": "Always 2.",
      "const": 2
    },
    "kind": {
      "description": "What the root holds.",
      "const": "ctable"
    },
    "columns": {
      "description": "Column names in column order; at least one.",
      "type": "array",
      "items": {
        "type": "string"
      },
      "minItems": 1
    }
  },
  "required": [
    "format_version",
    "kind",
    "columns"
  ],
  "additionalProperties": true
} as const;

/**
 * `.journal` of a format-version-2 carray (spec/v2.md §13.4): the chunks being installed from `data/__s__.bin.i.next`, as [superchunk number, local index] pairs.
 *
 * Generated from `spec/schemas/v2/journal.schema.json`.
 *
 * @example
 * ```ts
 * const doc = parsePythonJson(text) as RawJournalV2;
 * ```
 */
export type RawJournalV2 = {
  /** Always 2 (format 1 is the journal of spec/v1.md §8.5). */
  format: 2;
  /** [s, i] pairs: superchunk number (>= 1) and local index (>= 0). */
  chunks: [number, number][];
};

/**
 * The JSON Schema (draft 2020-12) `urn:fmt:bcolz:v2:journal`, verbatim from `spec/schemas/v2/journal.schema.json`.
 *
 * @example
 * ```ts
 * validateJsonSchema(v2JournalSchema, parsePythonJson(text), { path });
 * ```
 */
export const v2JournalSchema = {
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "$id": "urn:fmt:bcolz:v2:journal",
  "title": "RawJournalV2",
  "description": "`.journal` of a format-version-2 carray (spec/v2.md §13.4): the chunks being installed from `data/__s__.bin.i.next`, as [superchunk number, local index] pairs.",
  "type": "object",
  "properties": {
    "format": {
      "description": "Always 2 (format 1 is the journal of spec/v1.md §8.5).",
      "const": 2
    },
    "chunks": {
      "description": "[s, i] pairs: superchunk number (>= 1) and local index (>= 0).",
      "type": "array",
      "items": {
        "type": "array",
        "prefixItems": [
          {
            "type": "integer",
            "minimum": 1,
            "maximum": 9007199254740991
          },
          {
            "type": "integer",
            "minimum": 0,
            "maximum": 65535
          }
        ],
        "items": false,
        "minItems": 2
      }
    }
  },
  "required": [
    "format",
    "chunks"
  ],
  "additionalProperties": false
} as const;

/**
 * `meta/shape` of a format-version-2 carray (spec/v2.md §10.2): `shape[0]` is the length and its only source; replacing this file is the commit point of appends and trims. Trailing dimensions are >= 1 (checked in code).
 *
 * Generated from `spec/schemas/v2/shape.schema.json`.
 *
 * @example
 * ```ts
 * const doc = parsePythonJson(text) as RawShapeV2;
 * ```
 */
export type RawShapeV2 = {
  /** [length] or [length, d1, d2, ...]; at most 32 dimensions. */
  shape: number[];
  [key: string]: JsonValue;
};

/**
 * The JSON Schema (draft 2020-12) `urn:fmt:bcolz:v2:shape`, verbatim from `spec/schemas/v2/shape.schema.json`.
 *
 * @example
 * ```ts
 * validateJsonSchema(v2ShapeSchema, parsePythonJson(text), { path });
 * ```
 */
export const v2ShapeSchema = {
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "$id": "urn:fmt:bcolz:v2:shape",
  "title": "RawShapeV2",
  "description": "`meta/shape` of a format-version-2 carray (spec/v2.md §10.2): `shape[0]` is the length and its only source; replacing this file is the commit point of appends and trims. Trailing dimensions are >= 1 (checked in code).",
  "type": "object",
  "properties": {
    "shape": {
      "description": "[length] or [length, d1, d2, ...]; at most 32 dimensions.",
      "type": "array",
      "minItems": 1,
      "maxItems": 32,
      "items": {
        "type": "integer",
        "minimum": 0,
        "maximum": 9007199254740991
      }
    }
  },
  "required": [
    "shape"
  ],
  "additionalProperties": true
} as const;

/**
 * The JSON metadata section inside a superchunk file (spec/v2.md §5), possibly followed by spaces. Other keys are allowed and ignored.
 *
 * Generated from `spec/schemas/v2/superchunk-meta.schema.json`.
 *
 * @example
 * ```ts
 * const doc = parsePythonJson(text) as RawSuperchunkMetaV2;
 * ```
 */
export type RawSuperchunkMetaV2 = {
  /** Entries of the offsets table; at least nchunks. Absent: nchunks entries. */
  capacity?: number;
  /** Global index of the file's chunk 0: (s - 1) x superchunksize in a dataset. */
  first_chunk?: number;
  [key: string]: JsonValue | undefined;
};

/**
 * The JSON Schema (draft 2020-12) `urn:fmt:bcolz:v2:superchunk-meta`, verbatim from `spec/schemas/v2/superchunk-meta.schema.json`.
 *
 * @example
 * ```ts
 * validateJsonSchema(v2SuperchunkMetaSchema, parsePythonJson(text), { path });
 * ```
 */
export const v2SuperchunkMetaSchema = {
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "$id": "urn:fmt:bcolz:v2:superchunk-meta",
  "title": "RawSuperchunkMetaV2",
  "description": "The JSON metadata section inside a superchunk file (spec/v2.md §5), possibly followed by spaces. Other keys are allowed and ignored.",
  "type": "object",
  "properties": {
    "capacity": {
      "description": "Entries of the offsets table; at least nchunks. Absent: nchunks entries.",
      "type": "integer",
      "minimum": 0,
      "maximum": 65536
    },
    "first_chunk": {
      "description": "Global index of the file's chunk 0: (s - 1) x superchunksize in a dataset.",
      "type": "integer",
      "minimum": 0,
      "maximum": 9007199254740991
    }
  },
  "additionalProperties": true
} as const;

/**
 * `meta/storage` of a format-version-2 vlarray (spec/v2.md §12): elements of different lengths kept as an `offsets/` carray of <i8 (n + 1 boundaries) and a `values/` carray.
 *
 * Generated from `spec/schemas/v2/vlarray-storage.schema.json`.
 *
 * @example
 * ```ts
 * const doc = parsePythonJson(text) as RawVlarrayStorageV2;
 * ```
 */
export type RawVlarrayStorageV2 = {
  /** Always 2. */
  format_version: 2;
  /** What the root holds. */
  kind: "vlarray";
  /** utf8: UTF-8 strings (values |u1); bytes: byte strings (values |u1); ragged: arrays of the values carray's dtype. */
  vtype: "utf8" | "bytes" | "ragged";
  [key: string]: JsonValue;
};

/**
 * The JSON Schema (draft 2020-12) `urn:fmt:bcolz:v2:vlarray-storage`, verbatim from `spec/schemas/v2/vlarray-storage.schema.json`.
 *
 * @example
 * ```ts
 * validateJsonSchema(v2VlarrayStorageSchema, parsePythonJson(text), { path });
 * ```
 */
export const v2VlarrayStorageSchema = {
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "$id": "urn:fmt:bcolz:v2:vlarray-storage",
  "title": "RawVlarrayStorageV2",
  "description": "`meta/storage` of a format-version-2 vlarray (spec/v2.md §12): elements of different lengths kept as an `offsets/` carray of <i8 (n + 1 boundaries) and a `values/` carray.",
  "type": "object",
  "properties": {
    "format_version": {
      "description": "Always 2.",
      "const": 2
    },
    "kind": {
      "description": "What the root holds.",
      "const": "vlarray"
    },
    "vtype": {
      "description": "utf8: UTF-8 strings (values |u1); bytes: byte strings (values |u1); ragged: arrays of the values carray's dtype.",
      "enum": [
        "utf8",
        "bytes",
        "ragged"
      ]
    }
  },
  "required": [
    "format_version",
    "kind",
    "vtype"
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
  "urn:fmt:bcolz:v2:append": v2AppendSchema,
  "urn:fmt:bcolz:v2:carray-storage": v2CarrayStorageSchema,
  "urn:fmt:bcolz:v2:ctable-storage": v2CtableStorageSchema,
  "urn:fmt:bcolz:v2:journal": v2JournalSchema,
  "urn:fmt:bcolz:v2:shape": v2ShapeSchema,
  "urn:fmt:bcolz:v2:superchunk-meta": v2SuperchunkMetaSchema,
  "urn:fmt:bcolz:v2:vlarray-storage": v2VlarrayStorageSchema,
} as const;
