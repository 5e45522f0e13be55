/**
 * Must-fail kinds of the generated sets, by format version and category: for each, the valid base
 * dataset it damages, the damage record the Python builder applies, the expected error code
 * (spec/errors.md) and the spec rules it pins.
 */
import fc from "fast-check";
import type { Json, JsonObject } from "./types.js";
import { carrayArb, CHECKSUMS, ctableArb, NUMERIC_DTYPES, vlarrayArb, WIDE8, type CarrayOptions } from "./datasets.js";

// ------------------------------------------------------------------------------ damage

/** One kind of damage: the base dataset it needs, the damage record, the code and rules. */
interface DamageKind {
  base: fc.Arbitrary<JsonObject>;
  damage: fc.Arbitrary<{ damage: JsonObject; expect: string; rules: string[] }>;
}

export const frac = fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true });
const d3 = fc.record({ u: frac, v: frac, w: frac });

function kind(base: fc.Arbitrary<JsonObject>, damage: fc.Arbitrary<JsonObject>, expect: string, rules: string[]): DamageKind {
  return { base, damage: damage.map((dm) => ({ damage: dm, expect, rules })) };
}

function simple(base: fc.Arbitrary<JsonObject>, k: string, expect: string, rules: string[]): DamageKind {
  return kind(base, d3.map((p) => ({ kind: k, ...p })), expect, rules);
}

const JSON_HOWS = ["cut", "trailing", "utf8", "bom", "dupkey", "single_quotes"] as const;

function jsonDamage(base: fc.Arbitrary<JsonObject>, files: string[], rules: string[]): DamageKind {
  return kind(
    base,
    fc.record({ file: fc.constantFrom(...files), how: fc.constantFrom(...JSON_HOWS), u: frac, w: frac }).map((p) => ({ kind: "json", ...p })),
    "BAD_JSON",
    rules,
  );
}

const v1Carray = (o: Partial<CarrayOptions> = {}): fc.Arbitrary<JsonObject> => carrayArb({ format: 1, minRows: 1, ...o });
const v2Carray = (o: Partial<CarrayOptions> = {}): fc.Arbitrary<JsonObject> => carrayArb({ format: 2, minRows: 1, ...o });
const v1Any = fc.oneof({ weight: 3, arbitrary: v1Carray() }, { weight: 1, arbitrary: ctableArb(1, { minRows: 1 }) });
const unsafeNames = ["", ".", "..", ".lock", "a/b", "a\\b", "a b", "1abc", "na\u00efve", "a\u0000b", "a\tb", "__attrs__", "__rootdirs__", "x".repeat(256), "-x", "a.b"];

/** Must-fail kinds of format 1, by category. */
export function v1Kinds(): { malformed: DamageKind[]; invalid: DamageKind[] } {
  const blosc = (k: string, code: string, rules: string[], o: Partial<CarrayOptions> = {}): DamageKind => simple(v1Carray(o), `blosc_${k}`, code, [...rules, "v1-5.1-3"]);
  return {
    malformed: [
      simple(v1Carray(), "blpk_magic", "BAD_MAGIC", ["v1-4.3-1"]),
      simple(v1Carray(), "blpk_version", "UNSUPPORTED_VERSION", ["v1-4.3-1"]),
      simple(v1Carray(), "blpk_nchunks", "BAD_HEADER", ["v1-4.3-1"]),
      simple(v1Carray(), "truncate", "TRUNCATED", ["v1-4.3-1"]),
      blosc("version", "UNSUPPORTED_VERSION", ["v1-5.1-1", "v1-4.3-1"]),
      blosc("versionlz", "UNSUPPORTED_VERSION", ["v1-5.1-2"], { compressible: true, dtypes: NUMERIC_DTYPES, trailing: false }),
      blosc("reserved_flag", "BAD_HEADER", ["v1-5.2-1"]),
      blosc("typesize0", "BAD_HEADER", ["v1-16-1"]),
      blosc("codec", "UNKNOWN_CODEC", ["v1-16-1"], { compressible: true, dtypes: NUMERIC_DTYPES, trailing: false }),
      blosc("cbytes_small", "BAD_HEADER", ["v1-16-1"]),
      blosc("nbytes_negative", "BAD_HEADER", ["v1-16-1", "v1-16-2"]),
      blosc("blocksize_bad", "BAD_HEADER", ["v1-16-1"]),
      blosc("nbytes_over_limit", "SIZE_LIMIT", ["v1-5.8-1", "err-size_limit-1"]),
      blosc("memcpy_cbytes", "BAD_HEADER", ["v1-5.3-1"], { clevel0: true }),
      jsonDamage(v1Carray(), ["meta/sizes", "meta/storage", "__attrs__"], ["v1-9.1-2"]),
      jsonDamage(ctableArb(1, { minRows: 1 }), ["__rootdirs__", "__attrs__", "*/meta/sizes", "*/meta/storage", "*/__attrs__"], ["v1-9.1-2"]),
      kind(v1Any, fc.record({ file: fc.constantFrom("*/meta/sizes", "*/meta/storage"), w: frac }).map((p) => ({ kind: "missing", ...p })), "MISSING_FILE", ["v1-16-1"]),
      kind(v1Any, fc.record({ file: fc.constantFrom("*/__attrs__", "__attrs__"), w: frac }).map((p) => ({ kind: "missing", ...p })), "MISSING_FILE", ["v1-12.1-1"]),
      kind(v1Any, fc.record({ file: fc.constant("chunk"), u: frac, w: frac }).map((p) => ({ kind: "missing", ...p })), "MISSING_FILE", ["v1-8.1-1", "v1-8.2-2"]),
    ],
    invalid: [
      kind(v1Any, fc.record({ delta: fc.oneof(fc.integer({ min: 1, max: 1000 }), fc.integer({ min: -1000, max: -1 })), w: frac }).map(({ delta, w }) => ({ kind: "nbytes_delta", delta, w })), "INCONSISTENT", ["v1-10-2"]),
      kind(v1Any, fc.record({ w: frac }).map(({ w }) => ({ kind: "trailing_zero", w })), "BAD_METADATA", ["v1-10-1"]),
      kind(
        v1Any,
        fc.record({ key: fc.constantFrom("dtype", "cparams", "chunklen", "expectedlen", "dflt"), w: frac }).map(({ key, w }) => ({ kind: "edit_json", file: "*/meta/storage", delete: [key], w })),
        "BAD_METADATA",
        ["v1-16-1"],
      ),
      kind(
        v1Any,
        fc
          .record({
            edit: fc.constantFrom<[string, Json]>(["chunklen", 0], ["chunklen", -3], ["chunklen", "8"], ["chunklen", 2.5], ["expectedlen", -1], ["cparams", "lz4"], ["cparams/clevel", 10], ["cparams/clevel", -1], ["cparams/shuffle", 3], ["cparams/shuffle", "1"], ["cparams/cname", "brotli"], ["cparams/cname", "LZ4"], ["cparams/quantize", -1]),
            w: frac,
          })
          .map(({ edit, w }) => ({ kind: "edit_json", file: "*/meta/storage", set: { [edit[0]]: edit[1] }, w })),
        "BAD_METADATA",
        ["v1-11.1-1"],
      ),
      kind(
        fc.oneof(v1Carray({ dtypes: WIDE8 }), ctableArb(1, { minRows: 1, dtypes: WIDE8 })),
        fc
          .record({ dtype: fc.constantFrom("complex128", "complex64", "timedelta64[s]", "<m8[ns]", "|V8", "object", "|O", "datetime64", "datetime64[10s]", "int33", "float128", "", "[('a', '<i4')]"), w: frac })
          .map(({ dtype, w }) => ({ kind: "edit_json", file: "*/meta/storage", set: { dtype, dflt: 0 }, w })),
        "UNSUPPORTED_DTYPE",
        ["v1-16-1"],
      ),
      kind(
        v1Any,
        fc.record({ file: fc.constantFrom("*/__attrs__", "*/meta/sizes", "*/meta/storage"), value: fc.constantFrom<Json>([], [1, 2], 3, "x", null, true), w: frac }).map((p) => ({ kind: "replace_json", ...p })),
        "BAD_METADATA",
        ["v1-16-1"],
      ),
      simple(v1Carray({ minChunks: 1 }).filter((d) => (d.shape as number[])[0]! >= (d.chunklen as number)), "chunk_nbytes", "INCONSISTENT", ["v1-8.1-1", "v1-8.5-2"]),
      kind(ctableArb(1, { minRows: 1 }).filter((d) => (d.columns as Json[]).length >= 2), fc.record({ w: frac }).map(({ w }) => ({ kind: "column_length", w })), "INCONSISTENT", ["v1-12.3-1"]),
      kind(ctableArb(1, { minRows: 1 }), fc.record({ name: fc.constantFrom(...unsafeNames), u: frac }).map((p) => ({ kind: "rename_column", ...p })), "UNSAFE_NAME", ["v1-12.2-3", "v1-12.2-4"]),
      kind(
        ctableArb(1, { minRows: 1 }),
        fc.constantFrom<Json>({ names: [] }, { names: "a" }, { names: [1] }, {}, { dirs: {} }).map((value) => ({ kind: "replace_json", file: "__rootdirs__", value })),
        "BAD_METADATA",
        ["v1-12.2-2"],
      ),
    ],
  };
}

/** Must-fail kinds of format 2, by category. */
export function v2Kinds(): { malformed: DamageKind[]; invalid: DamageKind[] } {
  const checked = CHECKSUMS.filter((c) => c !== "none");
  const sc = (k: string, code: string, rules: string[], o: Partial<CarrayOptions> = {}): DamageKind => simple(v2Carray(o), k, code, rules);
  const v2Any = fc.oneof({ weight: 3, arbitrary: v2Carray() }, { weight: 1, arbitrary: ctableArb(2, { minRows: 1 }) });
  const vl = vlarrayArb().filter((d) => (d.elements as Json[]).length >= 2 && (d.elements as Json[]).some((e) => (typeof e === "string" ? e.length > 0 : Array.isArray(e) && e.length > 0)));
  return {
    malformed: [
      sc("sc_magic", "BAD_MAGIC", ["v2-4.3-1"]),
      sc("sc_version", "UNSUPPORTED_VERSION", ["v2-4.3-1"]),
      sc("sc_truncate_head", "TRUNCATED", ["v2-4.3-1", "v2-15.1-2"]),
      sc("sc_truncate_tail", "TRUNCATED", ["v2-7.4-1"]),
      kind(v2Carray(), fc.record({ value: fc.integer({ min: 4, max: 255 }), s: frac }).map((p) => ({ kind: "sc_options", ...p })), "BAD_HEADER", ["v2-4.1-1", "v2-4.3-1"]),
      kind(v2Carray(), fc.record({ value: fc.constantFrom(0, 1), s: frac }).map((p) => ({ kind: "sc_options", ...p })), "BAD_HEADER", ["v2-4.2-1"]),
      kind(v2Carray(), fc.record({ value: fc.constant(2), s: frac }).map((p) => ({ kind: "sc_options", ...p })), "BAD_HEADER", ["v2-10.4-1"]),
      sc("sc_checksum_id", "BAD_HEADER", ["v2-4.3-1"]),
      sc("sc_reserved", "BAD_HEADER", ["v2-4.3-1"]),
      sc("sc_chunk_size_bad", "BAD_HEADER", ["v2-4.3-1"]),
      sc("sc_nchunks_bad", "BAD_HEADER", ["v2-4.3-1"]),
      sc("sc_last_chunk_bad", "BAD_HEADER", ["v2-4.3-1"]),
      sc("sc_meta_size_bad", "BAD_HEADER", ["v2-4.3-1"]),
      sc("sc_meta_json", "BAD_JSON", ["v2-9-1"]),
      sc("sc_offset_out", "BAD_HEADER", ["v2-7.1-1", "v2-15.1-2"]),
      sc("blosc_version", "UNSUPPORTED_VERSION", ["v2-7.4-1", "v1-5.1-1"]),
      sc("blosc_versionlz", "UNSUPPORTED_VERSION", ["v2-7.4-1", "v1-5.1-2"], { compressible: true, dtypes: NUMERIC_DTYPES, trailing: false }),
      sc("blosc_reserved_flag", "BAD_HEADER", ["v2-7.4-1", "v1-5.2-1"]),
      sc("blosc_codec", "UNKNOWN_CODEC", ["v2-7.4-1"], { compressible: true, dtypes: NUMERIC_DTYPES, trailing: false }),
      sc("blosc_typesize0", "BAD_HEADER", ["v2-7.4-1"]),
      sc("blosc_memcpy_cbytes", "BAD_HEADER", ["v2-7.4-1", "v1-5.3-1"], { clevel0: true }),
      jsonDamage(v2Carray(), ["meta/storage", "meta/shape", "__attrs__"], ["v1-9.1-2", "v2-15.1-1"]),
      kind(v2Any, fc.record({ file: fc.constantFrom("*/meta/shape", "*/__attrs__", "__attrs__"), w: frac }).map((p) => ({ kind: "missing", ...p })), "MISSING_FILE", ["v1-12.1-1", "err-codes-1"]),
      kind(v2Any, fc.record({ file: fc.constant("chunk"), u: frac, w: frac }).map((p) => ({ kind: "missing", ...p })), "MISSING_FILE", ["v2-10.4-1", "v2-3.2-1"]),
      kind(
        v2Carray(),
        fc.constantFrom<Json>(3, 0, -1, "2", null, 255, 1.5).map((value) => ({ kind: "edit_json", file: "meta/storage", set: { format_version: value } })),
        "UNSUPPORTED_VERSION",
        ["v2-3.1-1"],
      ),
    ],
    invalid: [
      sc("chunk_flip", "CHECKSUM_MISMATCH", ["v2-6-1"], { checksums: checked }),
      sc("checksum_flip", "CHECKSUM_MISMATCH", ["v2-6-1"], { checksums: checked }),
      sc("sc_chunk_size_other", "INCONSISTENT", ["v2-10.4-1"]),
      kind(v2Carray({ minChunks: 2 }).filter((d) => (d.superchunksize as number) >= 2), fc.record({ v: frac }).map((p) => ({ kind: "sc_nchunks_few", s: 0, ...p })), "INCONSISTENT", ["v2-10.4-1"]),
      sc("sc_capacity", "INCONSISTENT", ["v2-10.4-1"]),
      sc("sc_first_chunk", "INCONSISTENT", ["v2-10.4-1"]),
      sc("sc_meta_missing_key", "INCONSISTENT", ["v2-10.4-1"]),
      sc("last_chunk_nbytes", "INCONSISTENT", ["v2-10.4-2"], { dtypes: ["<i2", "<i4", "<f8", "<u8", ">i4", "<U2", "|S3"] }),
      kind(
        v2Carray(),
        fc
          .record({
            edit: fc.constantFrom<[string, Json]>(["chunklen", 0], ["chunklen", "4"], ["superchunksize", 0], ["superchunksize", 65537], ["checksum", "crc64"], ["checksum", 1], ["spare", 101], ["spare", -1], ["cparams/clevel", 10], ["cparams/shuffle", true], ["cparams/cname", "brotli"], ["expectedlen", -1], ["kind", "table"]),
          })
          .map(({ edit }) => ({ kind: "edit_json", file: "meta/storage", set: { [edit[0]]: edit[1] } })),
        "BAD_METADATA",
        ["err-codes-1"],
      ),
      kind(
        v2Carray(),
        fc.constantFrom("cparams", "chunklen", "superchunksize", "checksum", "spare", "expectedlen", "dflt", "kind").map((key) => ({ kind: "edit_json", file: "meta/storage", delete: [key] })),
        "BAD_METADATA",
        ["err-codes-1"],
      ),
      kind(
        v2Carray({ dtypes: WIDE8 }),
        fc.constantFrom("complex128", "<c8", "<m8[s]", "timedelta64[ns]", "|V8", "object", "datetime64", "<M8[10s]", "int33", "").map((dtype) => ({ kind: "edit_json", file: "meta/storage", set: { dtype, dflt: 0 } })),
        "UNSUPPORTED_DTYPE",
        ["err-codes-1"],
      ),
      kind(v2Any, fc.record({ w: frac }).map(({ w }) => ({ kind: "trailing_zero", w })), "BAD_METADATA", ["err-codes-1"]),
      kind(
        v2Any,
        fc.record({ file: fc.constantFrom("*/__attrs__", "*/meta/shape"), value: fc.constantFrom<Json>([], 3, "x", null), w: frac }).map((p) => ({ kind: "replace_json", ...p })),
        "BAD_METADATA",
        ["err-codes-1"],
      ),
      kind(vl, fc.constantFrom("first_nonzero", "decreasing", "beyond_values").map((mode) => ({ kind: "vl_offsets", mode })), "INCONSISTENT", ["v2-12-3"]),
      kind(vlarrayArb().filter((d) => d.vtype === "utf8" && (d.elements as string[]).some((e) => e.length > 0)), fc.record({ u: frac }).map((p) => ({ kind: "vl_bad_utf8", ...p })), "INCONSISTENT", ["v2-12-4"]),
      kind(vlarrayArb().filter((d) => d.vtype !== "ragged"), fc.constantFrom<[string, string]>(["offsets", "<i4"], ["offsets", "<u8"], ["offsets", ">i8"], ["values", "<i2"]).map(([part, dtype]) => ({ kind: "vl_dtype", part, dtype })), "INCONSISTENT", ["v2-12-1"]),
      kind(vlarrayArb(), fc.constant({ kind: "vl_offsets", mode: "empty" }), "INCONSISTENT", ["v2-12-2"]),
      kind(
        vlarrayArb(),
        fc.record({ part: fc.constantFrom("offsets", "values"), value: fc.constantFrom<Json>(1, 3, "2", null, "absent") }).map((p) => ({ kind: "nested_version", ...p })),
        "INCONSISTENT",
        ["v2-15.1-1"],
      ),
      kind(ctableArb(2, { minRows: 1 }).filter((d) => (d.columns as Json[]).length >= 2), fc.record({ w: frac }).map(({ w }) => ({ kind: "column_length", w })), "INCONSISTENT", ["v2-11-2"]),
      kind(
        ctableArb(2, { minRows: 1 }),
        fc.record({ value: fc.constantFrom<Json>(1, "absent", 3), w: frac }).map((p) => ({ kind: "nested_version", part: "column", ...p })),
        "INCONSISTENT",
        ["v2-11-1", "v2-15.1-1"],
      ),
      kind(ctableArb(2, { minRows: 1 }), fc.record({ name: fc.constantFrom(...unsafeNames.filter((n) => n !== "")), u: frac }).map((p) => ({ kind: "rename_column", ...p })), "UNSAFE_NAME", ["err-codes-1"]),
    ],
  };
}
