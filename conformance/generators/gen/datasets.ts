/**
 * Valid dataset descriptions drawn by fast-check: the parameter spaces (dtypes, codecs, checksums,
 * attributes, chunk geometry) and the carray, vlarray and ctable arbitraries built from them.
 */
import fc from "fast-check";
import type { Json, JsonObject } from "./types.js";
import { elementArb, hex, runsArb, text } from "./values.js";

// ------------------------------------------------------------------------------ parameters

/** Numeric dtypes (numpy `dtype.str`), both byte orders. */
export const NUMERIC_DTYPES = ["|b1", "|i1", "<i2", "<i4", "<i8", "|u1", "<u2", "<u4", "<u8", "<f2", "<f4", "<f8", ">i2", ">i4", ">i8", ">u2", ">u4", ">u8", ">f2", ">f4", ">f8"];

/** Dtypes of 8-byte elements: the bases of the unsupported-dtype cases (so that sizes stay consistent). */
export const WIDE8 = ["<i8", "<u8", "<f8", "<M8[ns]"];

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

export interface CarrayOptions {
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
