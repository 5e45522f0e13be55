/**
 * Case descriptions of the generated corpus sets (`gen-valid`, `gen-invalid`, `gen-malformed` of
 * format versions 1 and 2), drawn by fast-check from fixed, recorded seeds.
 *
 * This module decides only *what* each case is: the dataset's parameters and values, and for a
 * must-fail case the one damage, its expected error code (spec/errors.md) and the spec rules it
 * pins. The bytes are written by the independent Python builder `conformance/generators/genlib`
 * (c-blosc through python3-blosc), never by the code under test, and the expected values are the
 * described values. Case `i` of a set is `fc.sample(arbitrary, { seed: set seed + i })`, so one
 * seed per set reproduces every description.
 */
import fc from "fast-check";

/** A JSON value. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** A JSON object. */
export type JsonObject = { [key: string]: Json };

/** One case description, as the Python builder reads it. */
export interface CaseDescription {
  /** Case directory name. */
  name: string;
  /** The seed fast-check drew the case from. */
  seed: number;
  /** A valid dataset, or the valid base a damage is applied to. */
  dataset: JsonObject;
  /** Must-fail cases: what is damaged (kind and its parameters). */
  damage?: JsonObject;
  /** Must-fail cases: the error code of spec/errors.md. */
  expect?: string;
  /** Must-fail cases: the code's class. */
  category?: "invalid" | "malformed";
  /** Rule ids (spec/conformance.md §2.3) the read case pins. */
  rules: string[];
  /** Rule ids the runner's write check of the case pins (valid cases only). */
  write_rules?: string[];
  /** Valid cases only: one change a reader must accept, applied to the dataset of case `source`. */
  lenient?: JsonObject;
}

/** One generated set. */
export interface SetDescription {
  /** Format version, 1 or 2. */
  format: 1 | 2;
  /** Set directory name under `conformance/corpus/v<format>/`. */
  set: string;
  /** The set's seed; case `i` uses `seed + i`. */
  seed: number;
  /** Manifest notes. */
  notes: string[];
  /** The first paragraph of the set's PROVENANCE.md. */
  provenance: string;
  /** The cases, in manifest order. */
  cases: CaseDescription[];
}

const MALFORMED = new Set(["TRUNCATED", "BAD_MAGIC", "UNSUPPORTED_VERSION", "BAD_HEADER", "UNKNOWN_CODEC", "CORRUPT_STREAM", "SIZE_LIMIT", "BAD_JSON", "MISSING_FILE"]);

/** The class of an error code (spec/errors.md, "Classes"); throws for usage and environment codes. */
export function categoryOf(code: string): "invalid" | "malformed" {
  if (MALFORMED.has(code)) return "malformed";
  if (["CHECKSUM_MISMATCH", "BAD_METADATA", "UNSUPPORTED_DTYPE", "INCONSISTENT", "UNSAFE_NAME"].includes(code)) return "invalid";
  throw new Error(`not a data error code: ${code}`);
}

// ------------------------------------------------------------------------------ values

const SPECIAL_FLOATS = ["NaN", "Infinity", "-Infinity", "-0"] as const;

function floatJson(x: number): Json {
  if (Number.isNaN(x)) return "NaN";
  if (x === Infinity) return "Infinity";
  if (x === -Infinity) return "-Infinity";
  if (Object.is(x, -0)) return "-0";
  return x;
}

const hex = (b: Uint8Array): string => Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");

/** Code points without surrogates and NUL, mostly ASCII. */
const codePoint = fc.oneof(
  { weight: 3, arbitrary: fc.integer({ min: 0x20, max: 0x7e }) },
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 0x10ffff }).filter((c) => c < 0xd800 || c > 0xdfff) },
);

/** A string of at most `max` code points (no surrogates, no NUL). */
export const text = (max: number): fc.Arbitrary<string> =>
  fc.array(codePoint, { maxLength: max }).map((cps) => String.fromCodePoint(...cps));

/** The element arbitrary of a dtype in the JSON encoding of genlib/values.py. */
export function elementArb(dtype: string): fc.Arbitrary<Json> {
  const kind = dtype.slice(1, 2);
  const size = Number(dtype.slice(2).replace(/\[.*$/, ""));
  switch (kind) {
    case "b":
      return fc.boolean();
    case "i":
      if (size === 8) return fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }).map(String);
      return fc.integer({ min: -(2 ** (8 * size - 1)), max: 2 ** (8 * size - 1) - 1 });
    case "u":
      if (size === 8) return fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }).map(String);
      return fc.integer({ min: 0, max: 2 ** (8 * size) - 1 });
    case "f":
      if (size === 2)
        return fc.oneof(
          { weight: 8, arbitrary: fc.integer({ min: -2047, max: 2047 }).map((k) => k / 8) },
          { weight: 1, arbitrary: fc.constantFrom<Json>(...SPECIAL_FLOATS, 65504, -65504) },
        );
      return (size === 4 ? fc.float() : fc.double()).map(floatJson);
    case "S":
      return fc.uint8Array({ maxLength: size }).map(hex);
    case "U":
      return text(size);
    case "M":
      return fc.oneof(
        { weight: 1, arbitrary: fc.constant(String(-(2n ** 63n))) },
        { weight: 9, arbitrary: fc.bigInt({ min: -(2n ** 62n), max: 2n ** 62n }).map(String) },
      );
    default:
      throw new Error(`no element arbitrary for ${dtype}`);
  }
}

/** Element values that compress well (runs of a few values), so that c-blosc does not memcpy. */
export function runsArb(dtype: string, count: number): fc.Arbitrary<Json[]> {
  return fc.array(elementArb(dtype), { minLength: 1, maxLength: 3 }).chain((pool) =>
    fc.array(fc.nat(pool.length - 1), { minLength: count, maxLength: count }).map((idx) =>
      // runs of 16 equal elements
      Array.from({ length: count }, (_, k) => pool[idx[Math.floor(k / 16) % idx.length] ?? 0] ?? null),
    ),
  );
}

// ------------------------------------------------------------------------------ parameters

/** Numeric dtypes (numpy `dtype.str`), both byte orders. */
export const NUMERIC_DTYPES = ["|b1", "|i1", "<i2", "<i4", "<i8", "|u1", "<u2", "<u4", "<u8", "<f2", "<f4", "<f8", ">i2", ">i4", ">i8", ">u2", ">u4", ">u8", ">f2", ">f4", ">f8"];

/** Dtypes of 8-byte elements: the bases of the unsupported-dtype cases (so that sizes stay consistent). */
const WIDE8 = ["<i8", "<u8", "<f8", "<M8[ns]"];

/** Every dtype the generated valid cases use. */
export const DTYPES = [...NUMERIC_DTYPES, "|S1", "|S3", "|S8", "|S12", "<U1", "<U3", "<U6", ">U2", ">U5", "<M8[ns]", ">M8[ns]"];

/** The six codec names of v1.md §11.1. */
export const CNAMES = ["blosclz", "lz4", "lz4hc", "snappy", "zlib", "zstd"] as const;

/** The checksum names of v2.md §6. */
export const CHECKSUMS = ["none", "adler32", "crc32", "md5", "sha1", "sha224", "sha256", "sha384", "sha512"] as const;

const cparamsArb = fc.record({
  clevel: fc.oneof({ weight: 1, arbitrary: fc.constant(0) }, { weight: 6, arbitrary: fc.integer({ min: 1, max: 9 }) }),
  shuffle: fc.integer({ min: 0, max: 2 }),
  cname: fc.constantFrom(...CNAMES),
});

/** A JSON value fit for `__attrs__` (finite numbers, no -0, no integers beyond 2^53). */
const attrValue: fc.Arbitrary<Json> = fc.letrec<{ v: Json }>((tie) => ({
  v: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.integer({ min: -1_000_000, max: 1_000_000 }),
    fc.double({ noNaN: true, noDefaultInfinity: true }).filter((x) => !Object.is(x, -0) && Number.isFinite(x)),
    text(8),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie("v"), { maxLength: 3 }),
    fc.dictionary(text(6).filter((k) => k !== "__proto__"), tie("v"), { maxKeys: 3 }),
  ),
})).v;

/** An `__attrs__` object: often empty, else a few keys. */
export const attrsArb: fc.Arbitrary<JsonObject> = fc.oneof(
  { weight: 2, arbitrary: fc.constant({}) },
  { weight: 3, arbitrary: fc.dictionary(text(10).filter((k) => k !== "__proto__"), attrValue, { minKeys: 1, maxKeys: 4 }) },
);

const TRAILING: number[][] = [[], [], [], [], [], [2], [3], [2, 2], [1]];

/** Chunk geometry: chunklen, full chunks, leftover rows (0 … chunklen − 1), capped in elements. */
export function geometryArb(maxElements: number, rowElements: number): fc.Arbitrary<{ chunklen: number; n: number }> {
  return fc
    .record({
      chunklen: fc.oneof(fc.integer({ min: 1, max: 8 }), fc.integer({ min: 9, max: 48 })),
      full: fc.integer({ min: 0, max: 6 }),
      leftover: fc.constantFrom("none", "one", "some", "chunklen-1"),
    })
    .map(({ chunklen, full, leftover }) => {
      const rest = chunklen === 1 ? 0 : leftover === "none" ? 0 : leftover === "one" ? 1 : leftover === "chunklen-1" ? chunklen - 1 : Math.max(1, Math.floor(chunklen / 2));
      let f = full;
      while (f > 0 && (f * chunklen + rest) * rowElements > maxElements) f -= 1;
      const n = (f * chunklen + rest) * rowElements > maxElements ? 0 : f * chunklen + rest;
      return { chunklen, n };
    });
}

interface CarrayOptions {
  format: 1 | 2;
  dtypes?: readonly string[];
  trailing?: boolean;
  minRows?: number;
  compressible?: boolean;
  clevel0?: boolean;
  checksums?: readonly string[];
  minChunks?: number;
  maxElements?: number;
}

/** A carray description (v1.md §3, v2.md §10) with its values. */
export function carrayArb(o: CarrayOptions): fc.Arbitrary<JsonObject> {
  const maxElements = o.maxElements ?? 240;
  return fc
    .record({
      dtype: fc.constantFrom(...(o.dtypes ?? DTYPES)),
      trailing: o.trailing === false ? fc.constant<number[]>([]) : fc.constantFrom(...TRAILING),
      geometry: fc.integer({ min: 0, max: 1 }),
      cparams: cparamsArb,
      attrs: attrsArb,
      expectedlen: fc.oneof(fc.constant(-1), fc.integer({ min: 0, max: 100_000 })),
      superchunksize: fc.oneof(fc.integer({ min: 1, max: 4 }), fc.integer({ min: 5, max: 16 })),
      checksum: fc.constantFrom(...(o.checksums ?? CHECKSUMS)),
      spare: fc.constantFrom(0, 10, 10, 25, 50, 100),
    })
    .chain((p) => {
      const rowElements = p.trailing.reduce((a, b) => a * b, 1);
      const itemsize = Number(p.dtype.slice(2).replace(/\[.*$/, "")) * (p.dtype[1] === "U" ? 4 : 1);
      // compressible chunks hold at least 512 bytes (c-blosc memcpys anything below 128)
      const geometry = o.compressible
        ? fc
            .record({ extra: fc.integer({ min: 0, max: 16 }), full: fc.integer({ min: 1, max: 2 }), rest: fc.integer({ min: 0, max: 8 }) })
            .map(({ extra, full, rest }) => {
              const chunklen = Math.ceil(512 / (itemsize * rowElements)) + extra;
              return { chunklen, n: full * chunklen + Math.min(rest, chunklen - 1) };
            })
        : geometryArb(maxElements, rowElements).filter(({ chunklen, n }) => n >= (o.minRows ?? 0) && Math.ceil(n / chunklen) >= (o.minChunks ?? 0));
      return geometry.chain(({ chunklen, n }) => {
        const count = n * rowElements;
        const values = o.compressible ? runsArb(p.dtype, count) : fc.array(elementArb(p.dtype), { minLength: count, maxLength: count });
        return values.map((vals) => {
          const cparams = { ...p.cparams };
          if (o.compressible) {
            // c-blosc stores small snappy blocks uncompressed (it asks for snappy's worst-case room)
            cparams.clevel = Math.max(1, cparams.clevel);
            if (cparams.cname === "snappy") cparams.cname = "lz4";
          }
          if (o.clevel0) cparams.clevel = 0;
          const d: JsonObject = {
            kind: "carray",
            dtype: p.dtype,
            shape: [n, ...p.trailing],
            chunklen,
            cparams,
            attrs: p.attrs,
            expectedlen: p.expectedlen < 0 ? n : p.expectedlen,
            values: vals,
          };
          if (o.format === 2) Object.assign(d, { superchunksize: p.superchunksize, checksum: p.checksum, spare: p.spare });
          return d;
        });
      });
    });
}

/** A vlarray description (v2.md §12); `offsets/` and `values/` share every parameter. */
export function vlarrayArb(): fc.Arbitrary<JsonObject> {
  return fc
    .record({
      vtype: fc.constantFrom("utf8", "utf8", "bytes", "ragged"),
      rdtype: fc.constantFrom("|i1", "<i2", "<i4", "<i8", "<u2", "<f4", "<f8", ">i4", ">f8", "|S3", "<U2", "|b1"),
      n: fc.integer({ min: 0, max: 40 }),
      chunklen: fc.oneof(fc.integer({ min: 1, max: 6 }), fc.integer({ min: 7, max: 64 })),
      superchunksize: fc.integer({ min: 1, max: 5 }),
      cparams: cparamsArb,
      checksum: fc.constantFrom(...CHECKSUMS),
      spare: fc.constantFrom(0, 10, 50),
      attrs: attrsArb,
    })
    .chain((p) => {
      const element: fc.Arbitrary<Json> =
        p.vtype === "utf8"
          ? text(12)
          : p.vtype === "bytes"
            ? fc.uint8Array({ maxLength: 12 }).map(hex)
            : fc.array(elementArb(p.rdtype), { maxLength: 6 });
      return fc.array(element, { minLength: p.n, maxLength: p.n }).map((elements) => {
        const d: JsonObject = {
          kind: "vlarray",
          vtype: p.vtype,
          elements,
          chunklen: p.chunklen,
          off_chunklen: p.chunklen,
          superchunksize: p.superchunksize,
          cparams: p.cparams,
          checksum: p.checksum,
          spare: p.spare,
          attrs: p.attrs,
        };
        if (p.vtype === "ragged") d.dtype = p.rdtype;
        return d;
      });
    });
}

/** Column names: identifiers of v1.md §12.2, distinct. */
const columnName = fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_]{0,7}$/).filter((s) => s !== "__attrs__" && s !== "__rootdirs__");

/** A ctable description (v1.md §12, v2.md §11): 1–4 columns of one length. */
export function ctableArb(format: 1 | 2, o: { minRows?: number; dtypes?: readonly string[] } = {}): fc.Arbitrary<JsonObject> {
  return fc
    .record({
      names: fc.uniqueArray(columnName, { minLength: 1, maxLength: 4 }),
      n: fc.integer({ min: o.minRows ?? 0, max: 50 }),
      attrs: attrsArb,
    })
    .chain(({ names, n, attrs }) =>
      fc
        .tuple(
          ...names.map((name) => {
            const carray = fc
              .record({ dtype: fc.constantFrom(...(o.dtypes ?? DTYPES)), chunklen: fc.integer({ min: 1, max: 24 }), trailing: fc.constantFrom<number[]>([], [], [], [2]) })
              .chain(({ dtype, chunklen, trailing }) => {
                const count = n * trailing.reduce((a, b) => a * b, 1);
                return fc
                  .record({
                    values: fc.array(elementArb(dtype), { minLength: count, maxLength: count }),
                    cparams: cparamsArb,
                    attrs: attrsArb,
                    superchunksize: fc.integer({ min: 1, max: 6 }),
                    checksum: fc.constantFrom(...CHECKSUMS),
                    spare: fc.constantFrom(0, 10, 50),
                  })
                  .map((r): JsonObject => {
                    const d: JsonObject = { name, kind: "carray", dtype, shape: [n, ...trailing], chunklen, cparams: r.cparams, attrs: r.attrs, expectedlen: n, values: r.values };
                    if (format === 2) Object.assign(d, { superchunksize: r.superchunksize, checksum: r.checksum, spare: r.spare });
                    return d;
                  });
              });
            if (format === 1) return carray;
            const vl = vlarrayArb().chain((v) => {
              const element: fc.Arbitrary<Json> =
                v.vtype === "utf8" ? text(8) : v.vtype === "bytes" ? fc.uint8Array({ maxLength: 8 }).map(hex) : fc.array(elementArb(String(v.dtype)), { maxLength: 4 });
              return fc.array(element, { minLength: n, maxLength: n }).map((elements): JsonObject => ({ ...v, name, elements }));
            });
            return fc.oneof({ weight: 3, arbitrary: carray }, { weight: 1, arbitrary: vl });
          }),
        )
        .map((columns): JsonObject => ({ kind: "ctable", attrs, columns })),
    );
}

// ------------------------------------------------------------------------------ valid cases

/** Rules a valid format-1 case pins by being read, from its parameters. */
function v1ReadRules(d: JsonObject): string[] {
  const rules = new Set<string>(["v1-3.1-2", "v1-4.1-1", "v1-13-1"]);
  const arrays = d.kind === "ctable" ? (d.columns as JsonObject[]) : [d];
  for (const a of arrays) addCodecRules(a, rules);
  if (d.kind === "ctable") rules.add("v1-12.3-1");
  if (arrays.some((a) => (a.shape as number[])[0] === 0)) rules.add("v1-3.1-1");
  return [...rules].sort();
}

function addCodecRules(a: JsonObject, rules: Set<string>): void {
  const cp = a.cparams as JsonObject;
  const dtype = String(a.dtype ?? "");
  if (dtype.startsWith(">")) rules.add("v1-13-2");
  if (cp.clevel === 0) rules.add("v1-5.5-1");
  else {
    rules.add("v1-5.5-2");
    rules.add("v1-7-1");
    if (cp.cname === "blosclz") rules.add("v1-6-1");
    if (cp.cname === "snappy") rules.add("v1-7.2-2");
    if (cp.cname === "zstd") rules.add("v1-7.4-1");
  }
  rules.add("v1-11.1-1");
}

const V1_WRITE_RULES = ["v1-14-1", "v1-11.1-2", "v1-11.1-3", "v1-9.2-1", "v1-12.1-1", "v1-14-3"];
const V2_WRITE_RULES = ["v2-3.3-1", "v2-5-1", "v2-10.1-1", "v1-9.2-1"];

function v2ReadRules(d: JsonObject): string[] {
  const rules = new Set<string>(["v2-3.1-1", "v2-3.2-1", "v2-6-1", "v2-10.2-1", "v2-10.4-1", "v1-13-1"]);
  const visit = (a: JsonObject): void => {
    if (typeof a.spare === "number" && a.spare > 0) rules.add("v2-7.3-1");
    if (a.kind === "ctable") {
      rules.add("v2-11-1");
      rules.add("v2-11-2");
      for (const c of a.columns as JsonObject[]) visit(c);
      return;
    }
    if (a.kind === "vlarray") {
      rules.add("v2-12-1");
      rules.add("v2-12-2");
      rules.add("v2-12-3");
      rules.add("v2-15.1-1");
      if (a.vtype === "utf8") rules.add("v2-12-4");
    }
    addCodecRules(a, rules);
  };
  visit(d);
  return [...rules].sort();
}

// ------------------------------------------------------------------------------ damage

/** One kind of damage: the base dataset it needs, the damage record, the code and rules. */
interface DamageKind {
  base: fc.Arbitrary<JsonObject>;
  damage: fc.Arbitrary<{ damage: JsonObject; expect: string; rules: string[] }>;
}

const frac = fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true });
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

// ------------------------------------------------------------------------------ sets

/** Seeds of the six generated sets (recorded in each manifest). */
export const SEEDS = {
  "v1/gen-valid": 1_170_001,
  "v1/gen-invalid": 1_170_002,
  "v1/gen-malformed": 1_170_003,
  "v2/gen-valid": 2_170_001,
  "v2/gen-invalid": 2_170_002,
  "v2/gen-malformed": 2_170_003,
} as const;

/** Number of cases per generated set. */
export const COUNTS = { valid: 160, invalid: 60, malformed: 60 } as const;

/** The `i`-th value of `arb` under `seed` (fast-check's generator, no shrinking). */
function draw<T>(arb: fc.Arbitrary<T>, seed: number): T {
  const [value] = fc.sample(arb, { seed, numRuns: 1 });
  if (value === undefined) throw new Error("fast-check drew nothing");
  return value;
}

function pad(i: number): string {
  return String(i).padStart(3, "0");
}

function shortName(d: JsonObject): string {
  if (d.kind === "ctable") return `ctable${(d.columns as Json[]).length}`;
  if (d.kind === "vlarray") return `vl_${String(d.vtype)}`;
  const dt = String(d.dtype).replace("<", "le_").replace(">", "be_").replace("|", "").replace("[ns]", "ns");
  const cp = d.cparams as JsonObject;
  return `${dt}_${String(cp.cname)}_s${String(cp.shuffle)}`;
}

function validSet(format: 1 | 2): SetDescription {
  const seed = SEEDS[`v${format}/gen-valid`];
  const arb =
    format === 1
      ? fc.oneof({ weight: 3, arbitrary: carrayArb({ format: 1 }) }, { weight: 1, arbitrary: ctableArb(1) })
      : fc.oneof({ weight: 6, arbitrary: carrayArb({ format: 2 }) }, { weight: 2, arbitrary: vlarrayArb() }, { weight: 2, arbitrary: ctableArb(2) });
  const cases: CaseDescription[] = [];
  for (let i = 0; i < COUNTS.valid; i += 1) {
    const dataset = draw(arb, seed + i);
    cases.push({
      name: `v${format}_${pad(i)}_${shortName(dataset)}`,
      seed: seed + i,
      dataset,
      rules: format === 1 ? v1ReadRules(dataset) : v2ReadRules(dataset),
      write_rules: format === 1 ? V1_WRITE_RULES : V2_WRITE_RULES,
    });
  }
  // leniencies: a valid case and a copy of it with one change a reader must accept (derived_from)
  const lenient: [string, string[], fc.Arbitrary<JsonObject>][] = [
    ["both_shuffle_bits", format === 1 ? ["v1-5.2-2"] : ["v1-5.2-2", "v2-7.4-1"], carrayArb({ format, compressible: true, dtypes: WIDE8, trailing: false }).map((d) => ({ ...d, cparams: { ...(d.cparams as JsonObject), shuffle: 1 } }))],
  ];
  if (format === 1)
    lenient.push(["leftover_extra_rows", ["v1-8.5-1"], carrayArb({ format: 1, minChunks: 1 }).filter((d) => (d.chunklen as number) >= 2 && (d.shape as number[])[0]! % (d.chunklen as number) !== 0)]);
  for (const [kindName, rules, base] of lenient) {
    for (let j = 0; j < 4; j += 1) {
      const i = cases.length;
      const caseSeed = seed + 1000 + i;
      const { dataset, u } = draw(fc.record({ dataset: base, u: frac }), caseSeed);
      const source = `v${format}_${pad(i)}_${shortName(dataset)}`;
      cases.push({ name: source, seed: caseSeed, dataset, rules: format === 1 ? v1ReadRules(dataset) : v2ReadRules(dataset), write_rules: format === 1 ? V1_WRITE_RULES : V2_WRITE_RULES });
      cases.push({ name: `v${format}_${pad(i + 1)}_lenient_${kindName}`, seed: caseSeed, dataset, lenient: { kind: kindName, u, source }, rules });
    }
  }
  return {
    format,
    set: "gen-valid",
    seed,
    notes: [
      "valid datasets drawn by fast-check: dtypes x codecs x shuffles x chunk geometry x leftovers x attrs x ctables" + (format === 2 ? " x vlarrays x superchunk sizes x checksums x spare room" : ""),
      "expected/*.bin hold the described values (little-endian, C order; vlarrays: u64 LE byte length + bytes per element), computed by numpy from the description in `gen`",
      "rules: the spec rules a reader pins by reading the case; write_rules: the rules the runner's write check of the case pins",
    ],
    provenance: `Valid format-version-${format} datasets across dtypes, codecs, shuffles, clevels, chunk geometry and leftover rows, attributes and ctables${format === 2 ? ", vlarrays, superchunk sizes, checksums and spare room" : ""}; small arrays (at most a few hundred elements).`,
    cases,
  };
}

function brokenSet(format: 1 | 2, category: "invalid" | "malformed"): SetDescription {
  const seed = SEEDS[`v${format}/gen-${category}`];
  const kinds = (format === 1 ? v1Kinds() : v2Kinds())[category];
  const cases: CaseDescription[] = [];
  for (let i = 0; i < COUNTS[category]; i += 1) {
    // every kind once, in order, then kinds drawn at random
    const k = i < kinds.length ? kinds[i]! : draw(fc.constantFrom(...kinds), seed + 100_000 + i);
    const drawn = draw(fc.record({ dataset: k.base, d: k.damage }), seed + i);
    if (categoryOf(drawn.d.expect) !== category) throw new Error(`${drawn.d.expect} is not ${category}`);
    cases.push({
      name: `v${format}_${pad(i)}_${String(drawn.d.damage.kind)}_${drawn.d.expect.toLowerCase()}`,
      seed: seed + i,
      dataset: drawn.dataset,
      damage: drawn.d.damage,
      expect: drawn.d.expect,
      category,
      rules: drawn.d.rules,
    });
  }
  return {
    format,
    set: `gen-${category}`,
    seed,
    notes: [
      `${category} cases: a valid dataset drawn by fast-check plus exactly one damage (gen.damage); the expected code is the one spec/errors.md assigns to the rule broken`,
      "the damage parameters are fractions mapped by the builder onto the positions where the damage breaks exactly that rule; `mutation` says what was done",
    ],
    provenance:
      category === "invalid"
        ? `Format-version-${format} datasets whose bytes decode but break one rule (inconsistent sizes, metadata out of its schema, unsupported dtypes, unsafe names, ${format === 2 ? "checksums, vlarray offsets, " : ""}column lengths), each with the code of spec/errors.md.`
        : `Format-version-${format} datasets with damaged bytes (truncation, bit flips and out-of-range values in headers and offsets, unreadable JSON, missing files), each with the code of spec/errors.md.`,
    cases,
  };
}

/** Every generated set, in a fixed order. */
export function describeSets(): SetDescription[] {
  return [validSet(1), brokenSet(1, "invalid"), brokenSet(1, "malformed"), validSet(2), brokenSet(2, "invalid"), brokenSet(2, "malformed")];
}
