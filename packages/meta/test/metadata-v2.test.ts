import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { FormatError, UsageError } from "@fmt/errors";
import {
  createCarrayStorageV2, createJsonObject, defaultSuperchunksize, parseAppendV2, parseStorage, parseDtype, parseJournalV2, parseShapeV2, parseStorageV2,
  parseSuperchunkMeta, serializeAppendV2, serializeJournalV2, serializeShapeV2, serializeStorageV2, serializeSuperchunkMeta,
  storageFormatVersion, type CarrayStorageV2,
} from "../src/index.js";

const SPEC = readFileSync(fileURLToPath(new URL("../../../spec/v2.md", import.meta.url)), "utf8");

function failure(fn: () => unknown): { code: string; field: string | undefined } {
  try {
    fn();
  } catch (e) {
    if (e instanceof FormatError || e instanceof UsageError) return { code: e.code, field: e.field };
    throw e;
  }
  throw new Error("expected an error, nothing was thrown");
}

const CARRAY = '{"format_version": 2, "kind": "carray", "dtype": "<i4", "cparams": {"clevel": 5, "shuffle": 1, "cname": "lz4", "quantize": 0}, "chunklen": 2, "superchunksize": 4, "checksum": "adler32", "spare": 50, "expectedlen": 3, "dflt": 0}\n';

describe("JSON examples of spec/v2.md parse and serialize back byte for byte", () => {
  // Every line that ends with a version-2 JSON document (`meta/storage` or `meta/shape` content),
  // whether after a file name or in a directory diagram.
  // Abbreviated examples (with "...") are left out.
  const docs = [...SPEC.matchAll(/(\{"(?:format_version|shape)".*\})\s*$/gm)].map((m) => m[1]!).filter((d) => !d.includes("..."));

  it("finds the examples (§8.1 storage and shape, §10.1, §10.2, §11, §12)", () => {
    expect(docs.length).toBeGreaterThanOrEqual(6);
  });
  it.each(docs.map((d) => [d]))("%s", (doc) => {
    const text = doc + "\n";
    if (doc.startsWith('{"shape"')) {
      expect(serializeShapeV2(parseShapeV2(text))).toBe(text);
      return;
    }
    expect(storageFormatVersion(text)).toBe(2);
    expect(serializeStorageV2(parseStorageV2(text))).toBe(text);
  });
  it("the §8.1 storage says what the text says", () => {
    const st = parseStorageV2(CARRAY) as CarrayStorageV2;
    expect(SPEC).toContain(CARRAY.trim());
    expect(st).toMatchObject({ kind: "carray", chunklen: 2, superchunksize: 4, checksum: "adler32", spare: 50, expectedlen: 3, dflt: 0 });
    expect(st.dtype.str).toBe("<i4");
    expect(st.cparams).toEqual({ clevel: 5, shuffle: 1, cname: "lz4", quantize: 0 });
  });
  it("the journal and append examples of §13.4 and §11", () => {
    expect(parseJournalV2('{"format": 2, "chunks": [[1, 3], [2, 0]]}\n')).toEqual([[1, 3], [2, 0]]);
    expect(parseAppendV2('{"format": 2, "length": 1000}\n')).toBe(1000);
  });
});

describe("version dispatch (§3.1)", () => {
  it("no key or 1 → 1; 2 → 2; anything else UNSUPPORTED_VERSION", () => {
    expect(storageFormatVersion('{"dtype": "int32", "cparams": {"clevel": 5, "shuffle": 1}, "chunklen": 8, "expectedlen": 0, "dflt": 0}\n')).toBe(1);
    expect(storageFormatVersion('{"format_version": 1}')).toBe(1);
    expect(storageFormatVersion(CARRAY)).toBe(2);
    for (const v of ["3", '"2"', "2.0", "null"]) expect(failure(() => storageFormatVersion(`{"format_version": ${v}}`))).toEqual({ code: "UNSUPPORTED_VERSION", field: "/format_version" });
    expect(failure(() => storageFormatVersion("[2]"))).toEqual({ code: "BAD_METADATA", field: "" });
    expect(failure(() => storageFormatVersion("{"))).toMatchObject({ code: "BAD_JSON" });
  });
});

describe("the version-1 parser refuses a version-2 meta/storage (§3.1 step 4)", () => {
  it("UNSUPPORTED_VERSION before reading anything else; format_version 1 is still version 1", () => {
    expect(failure(() => parseStorage(CARRAY, "meta/storage"))).toEqual({ code: "UNSUPPORTED_VERSION", field: "/format_version" });
    const v1 = '{"format_version": 1, "dtype": "int32", "cparams": {"clevel": 5, "shuffle": 1}, "chunklen": 8, "expectedlen": 0, "dflt": 0}\n';
    expect(parseStorage(v1).chunklen).toBe(8);
  });
});

describe("meta/storage v2", () => {
  const edit = (key: string, value: string): string => CARRAY.replace(new RegExp(`"${key}": [^,}]+`), `"${key}": ${value}`);
  it.each([
    ["superchunksize", "0", "BAD_METADATA", "/superchunksize"],
    ["superchunksize", "65537", "BAD_METADATA", "/superchunksize"],
    ["spare", "101", "BAD_METADATA", "/spare"],
    ["checksum", '"xxhash"', "BAD_METADATA", "/checksum"],
    ["chunklen", "0", "BAD_METADATA", "/chunklen"],
    ["shuffle", "true", "BAD_METADATA", "/cparams/shuffle"],
    ["dtype", '"complex128"', "UNSUPPORTED_DTYPE", "/dtype"],
    ["dflt", '"x"', "BAD_METADATA", "/dflt"],
    ["kind", '"table"', "BAD_METADATA", "/kind"],
  ])("%s = %s → %s %s", (key, value, code, field) => {
    expect(failure(() => parseStorageV2(edit(key, value), "meta/storage"))).toEqual({ code, field });
  });
  it("all cparams keys are required and missing keys are refused", () => {
    expect(failure(() => parseStorageV2(CARRAY.replace(', "quantize": 0', "")))).toMatchObject({ code: "BAD_METADATA" });
    expect(failure(() => parseStorageV2(CARRAY.replace(', "spare": 50', "")))).toMatchObject({ code: "BAD_METADATA" });
  });
  it("a v1 document is not a v2 one", () => {
    expect(failure(() => parseStorageV2('{"kind": "carray"}'))).toEqual({ code: "UNSUPPORTED_VERSION", field: "/format_version" });
  });
  it("ctable columns: identifiers, distinct, non-empty", () => {
    const t = (cols: string): string => `{"format_version": 2, "kind": "ctable", "columns": ${cols}}`;
    expect(parseStorageV2(t('["a", "b_2"]'))).toMatchObject({ kind: "ctable", columns: ["a", "b_2"] });
    expect(failure(() => parseStorageV2(t('["a", "../x"]')))).toEqual({ code: "UNSAFE_NAME", field: "/columns/1" });
    expect(failure(() => parseStorageV2(t('["2a"]')))).toEqual({ code: "UNSAFE_NAME", field: "/columns/0" });
    expect(failure(() => parseStorageV2(t('["a", "a"]')))).toEqual({ code: "BAD_METADATA", field: "/columns/1" });
    expect(failure(() => parseStorageV2(t("[]")))).toMatchObject({ code: "BAD_METADATA", field: "/columns" });
    expect(failure(() => serializeStorageV2({ formatVersion: 2, kind: "ctable", columns: ["a/b"], raw: createJsonObject([]) }))).toMatchObject({ code: "UNSAFE_NAME" });
  });
  it("vlarray vtype", () => {
    expect(parseStorageV2('{"format_version": 2, "kind": "vlarray", "vtype": "ragged"}')).toMatchObject({ vtype: "ragged" });
    expect(failure(() => parseStorageV2('{"format_version": 2, "kind": "vlarray", "vtype": "text"}'))).toEqual({ code: "BAD_METADATA", field: "/vtype" });
  });
  it("createCarrayStorageV2 uses §10.1's defaults and writes dtype.str spelling", () => {
    const st = createCarrayStorageV2({ dtype: parseDtype("float64"), cparams: { clevel: 5, shuffle: 1, cname: "lz4", quantize: 0 }, chunklen: 65536, expectedlen: 10000000 });
    expect(st).toMatchObject({ superchunksize: 128, checksum: "adler32", spare: 10 });
    expect(serializeStorageV2(st)).toBe('{"format_version": 2, "kind": "carray", "dtype": "<f8", "cparams": {"clevel": 5, "shuffle": 1, "cname": "lz4", "quantize": 0}, "chunklen": 65536, "superchunksize": 128, "checksum": "adler32", "spare": 10, "expectedlen": 10000000, "dflt": 0.0}\n');
    expect(defaultSuperchunksize(2 ** 26)).toBe(1);
    expect(defaultSuperchunksize(2 ** 27)).toBe(1);
    expect(defaultSuperchunksize(8)).toBe(65536);
  });
  it("unknown keys are kept after the known ones", () => {
    const text = CARRAY.replace("}\n", ', "note": "x"}\n');
    expect(serializeStorageV2(parseStorageV2(text))).toBe(text);
  });
  it("round trip over generated carray storages", () => {
    fc.assert(
      fc.property(
        fc.record({
          dtype: fc.constantFrom("<i4", "<f8", "|b1", "<u2", "|S7", "<U3", "<M8[ns]", ">i8"),
          clevel: fc.integer({ min: 0, max: 9 }),
          shuffle: fc.constantFrom(0 as const, 1 as const, 2 as const),
          cname: fc.constantFrom("blosclz" as const, "lz4" as const, "zstd" as const),
          chunklen: fc.integer({ min: 1, max: 2 ** 30 }),
          superchunksize: fc.integer({ min: 1, max: 65536 }),
          checksum: fc.constantFrom("none" as const, "adler32" as const, "crc32" as const, "sha512" as const),
          spare: fc.integer({ min: 0, max: 100 }),
          expectedlen: fc.nat(),
        }),
        (r) => {
          const st = createCarrayStorageV2({ dtype: parseDtype(r.dtype), cparams: { clevel: r.clevel, shuffle: r.shuffle, cname: r.cname, quantize: 0 }, chunklen: r.chunklen, expectedlen: r.expectedlen, superchunksize: r.superchunksize, checksum: r.checksum, spare: r.spare });
          const text = serializeStorageV2(st);
          const back = parseStorageV2(text) as CarrayStorageV2;
          expect(back).toMatchObject({ chunklen: r.chunklen, superchunksize: r.superchunksize, checksum: r.checksum, spare: r.spare, cparams: st.cparams });
          expect(back.dtype.str).toBe(parseDtype(r.dtype).str);
          expect(serializeStorageV2(back)).toBe(text);
        },
      ),
    );
  });
});

describe("meta/shape, superchunk metadata, journal, append", () => {
  it("meta/shape", () => {
    expect(parseShapeV2('{"shape": [0]}')).toEqual([0]);
    expect(failure(() => parseShapeV2('{"shape": [5, 0]}', "meta/shape"))).toEqual({ code: "BAD_METADATA", field: "/shape/1" });
    expect(failure(() => parseShapeV2('{"shape": []}'))).toMatchObject({ code: "BAD_METADATA", field: "/shape" });
    expect(failure(() => parseShapeV2('{"shape": [1.5]}'))).toMatchObject({ code: "BAD_METADATA", field: "/shape/0" });
    expect(() => serializeShapeV2([4, 0])).toThrow(UsageError);
    fc.assert(fc.property(fc.array(fc.nat(), { minLength: 1, maxLength: 4 }).map((a) => a.map((d, i) => (i > 0 ? d + 1 : d))), (shape) => {
      expect(parseShapeV2(serializeShapeV2(shape))).toEqual(shape);
    }));
  });
  it("superchunk metadata: trailing spaces allowed, errors carry the superchunk.meta prefix", () => {
    expect(parseSuperchunkMeta('{"capacity": 4, "first_chunk": 0}       ')).toEqual({ capacity: 4, firstChunk: 0 });
    expect(parseSuperchunkMeta('{"dtype": "<f8"}')).toEqual({ capacity: undefined, firstChunk: undefined });
    expect(failure(() => parseSuperchunkMeta('{"capacity": -1}', "data/__1__.bin"))).toEqual({ code: "BAD_METADATA", field: "superchunk.meta/capacity" });
    expect(failure(() => parseSuperchunkMeta('{"capacity": 65537}'))).toEqual({ code: "BAD_METADATA", field: "superchunk.meta/capacity" });
    expect(failure(() => parseSuperchunkMeta("[]"))).toEqual({ code: "BAD_METADATA", field: "superchunk.meta" });
    expect(failure(() => parseSuperchunkMeta('{"capacity": 4} x'))).toMatchObject({ code: "BAD_JSON" });
    expect(serializeSuperchunkMeta({ capacity: 4, firstChunk: 0 })).toBe('{"capacity": 4, "first_chunk": 0}');
    fc.assert(fc.property(fc.integer({ min: 0, max: 65536 }), fc.nat(), (capacity, firstChunk) => {
      expect(parseSuperchunkMeta(serializeSuperchunkMeta({ capacity, firstChunk }))).toEqual({ capacity, firstChunk });
    }));
  });
  it("journal: pairs of superchunk >= 1 and local index >= 0, nothing else", () => {
    expect(serializeJournalV2([[1, 3]])).toBe('{"format": 2, "chunks": [[1, 3]]}\n');
    for (const bad of ['{"format": 1, "chunks": []}', '{"format": 2, "chunks": [[0, 1]]}', '{"format": 2, "chunks": [[1, -1]]}', '{"format": 2, "chunks": [[1, 2, 3]]}', '{"format": 2, "chunks": [], "x": 1}']) {
      expect(failure(() => parseJournalV2(bad, ".journal"))).toMatchObject({ code: "BAD_METADATA" });
    }
    expect(() => serializeJournalV2([[0, 0]])).toThrow(UsageError);
  });
  it("append", () => {
    expect(serializeAppendV2(7)).toBe('{"format": 2, "length": 7}\n');
    expect(failure(() => parseAppendV2('{"format": 2, "length": -1}'))).toEqual({ code: "BAD_METADATA", field: "/length" });
    expect(() => serializeAppendV2(-1)).toThrow(UsageError);
  });
});
