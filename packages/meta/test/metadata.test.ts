import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { readFileSync, readdirSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { BcolzError, FormatError, UsageError } from "@fmt/errors";
import {
  MAX_COLUMN_NAME_LENGTH,
  PyFloat,
  createJsonObject,
  createStorage,
  decodeMetadata,
  encodeMetadata,
  parseAttrs,
  parseDtype,
  parsePythonJson,
  parseRootdirs,
  parseSizes,
  parseStorage,
  serializeAttrs,
  serializeRootdirs,
  serializeSizes,
  serializeStorage,
  stringifyPythonJson,
  type JsonObject,
} from "../src/index.js";
import { runPython } from "./python.js";

const CORPUS = fileURLToPath(new URL("../../../conformance/corpus/v1/bcolz-real/", import.meta.url));

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? walk(p) : [p];
  });
}

const metaFiles = walk(CORPUS).filter((p) => /(\/meta\/(sizes|storage)|\/__attrs__|\/__rootdirs__)$/.test(p));

function errorOf(fn: () => unknown): BcolzError {
  try {
    fn();
  } catch (e) {
    if (e instanceof BcolzError) return e;
    throw e;
  }
  throw new Error("nothing thrown");
}

describe("real bcolz 1.2.1 metadata files", () => {
  it("finds every kind of metadata file in the corpus", () => {
    const kinds = new Set(metaFiles.map((p) => p.split("/").pop()));
    expect([...kinds].sort()).toEqual(["__attrs__", "__rootdirs__", "sizes", "storage"]);
    expect(metaFiles.length).toBeGreaterThan(200);
  });

  it("parse → serialize reproduces every file byte for byte", () => {
    for (const file of metaFiles) {
      const bytes = new Uint8Array(readFileSync(file));
      const path = relative(CORPUS, file);
      const text = decodeMetadata(bytes, path);
      let out: string;
      if (file.endsWith("/sizes")) out = serializeSizes(parseSizes(text, path));
      else if (file.endsWith("/storage")) out = serializeStorage(parseStorage(text, path));
      else if (file.endsWith("/__attrs__")) out = serializeAttrs(parseAttrs(text, path));
      else out = serializeRootdirs(parseRootdirs(text, path));
      expect(encodeMetadata(out), path).toEqual(bytes);
      expect(stringifyPythonJson(parsePythonJson(text)) + "\n", path).toBe(text);
    }
  });

  it("reads the values the manifest records", () => {
    const manifest = JSON.parse(readFileSync(join(CORPUS, "manifest.json"), "utf8")) as {
      cases: { name: string; kind: string; rootdir: string; dtype?: string; storage_dtype?: string; chunklen?: number; cparams?: object; sizes?: { shape: number[] }; columns?: unknown }[];
    };
    let checked = 0;
    for (const c of manifest.cases) {
      if (c.kind !== "carray") continue;
      const root = join(CORPUS, c.name, c.rootdir);
      const st = parseStorage(readFileSync(join(root, "meta/storage"), "utf8"));
      const sz = parseSizes(readFileSync(join(root, "meta/sizes"), "utf8"));
      expect(st.dtype.str).toBe(c.dtype);
      expect(st.dtype.bcolzName).toBe(c.storage_dtype);
      expect(st.chunklen).toBe(c.chunklen);
      expect(st.cparams).toEqual(c.cparams);
      expect(sz.shape).toEqual(c.sizes?.shape);
      checked++;
    }
    expect(checked).toBeGreaterThan(40);
  });
});

describe("metadata lines written by Python json.dumps the way bcolz writes them", () => {
  it("storage: parse → serialize and createStorage → serialize both equal Python's bytes", () => {
    // Python builds meta/storage lines like bcolz's write_meta, with random parameters and
    // numpy-derived fill values (NaN/Infinity, uint64 above 2^53, unicode, bytes as ASCII).
    const lines = runPython(`
import json, random, math, datetime
import numpy as np
random.seed(11)
names = ["float64", "float32", "float16", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
         "bool", "datetime64[ns]", "datetime64[D]", "|S7", "|S1", "<U3", ">i4", ">f8", "|V8"]
SKIP = object()
def rand_dflt(dt):
    k = dt.kind
    if k == "f": v = random.choice([0.0, 0.1, -2.5, 1e16, 1e-5, 3.0, float("nan"), float("inf"), float("-inf"), random.random() * 10 ** random.randint(-30, 30)])
    elif k == "i": v = random.randint(int(np.iinfo(dt).min), int(np.iinfo(dt).max))
    elif k == "u": v = random.choice([0, int(np.iinfo(dt).max), random.randint(0, int(np.iinfo(dt).max))])
    elif k == "b": v = random.choice([True, False])
    elif k == "S": v = "".join(random.choice("abc xyz") for _ in range(dt.itemsize)).encode("ascii")
    elif k == "U": v = "".join(random.choice("ab\\u00e9\\u2603\\U0001F600") for _ in range(3))
    elif k == "M": v = random.choice(["NaT", random.randint(-10**12, 10**12), random.randint(-1000, 1000)])
    else: return SKIP
    v = np.array(v, dtype=dt)[()].tolist()
    # what bcolz does before json.dumps: bytes -> ASCII str, date/datetime objects -> 0
    if isinstance(v, bytes): return v.decode("ascii")
    if isinstance(v, (datetime.date, datetime.timedelta)): return 0
    return v
for i in range(400):
    name = random.choice(names)
    dt = np.dtype(name)
    assert str(dt) == name
    dflt = rand_dflt(dt)
    if dflt is SKIP: continue
    meta = {"dtype": str(dt),
            "cparams": {"clevel": random.randint(0, 9), "shuffle": random.randint(0, 2),
                        "cname": random.choice(["blosclz", "lz4", "lz4hc", "snappy", "zlib", "zstd"]),
                        "quantize": random.choice([0, 0, 1, 3])},
            "chunklen": random.randint(1, 10**6), "expectedlen": random.choice([0, random.randint(0, 10**12)]),
            "dflt": dflt}
    print(json.dumps(meta, ensure_ascii=True))
`);
    expect(lines.length).toBeGreaterThan(300);
    for (const needle of ['"dflt": null', '"dflt": NaN', '"dflt": -Infinity', '"dflt": 18446744073709551615', '\\u2603', '"dtype": ">f8"', "e+16"]) {
      expect(lines.some((l) => l.includes(needle)), needle).toBe(true);
    }
    for (const line of lines) {
      const text = `${line}\n`;
      const st = parseStorage(text, "meta/storage");
      expect(serializeStorage(st)).toBe(text);
      const fresh = createStorage({ dtype: parseDtype(st.dtype.bcolzName), cparams: { ...st.cparams }, chunklen: st.chunklen, expectedlen: st.expectedlen, dflt: st.dflt });
      expect(serializeStorage(fresh)).toBe(text);
    }
  });

  it("sizes and rootdirs: serializers equal Python's bytes", () => {
    const lines = runPython(`
import json, random
random.seed(3)
for i in range(200):
    shape = [random.randint(0, 10**random.randint(1, 15))] + [random.randint(1, 9) for _ in range(random.randint(0, 3))]
    print(json.dumps({"shape": shape, "nbytes": random.randint(0, 2**70), "cbytes": random.randint(-10, 2**40)}))
for i in range(200):
    names = [random.choice("abcXYZ_") + "".join(random.choice("abcXYZ_019") for _ in range(random.randint(0, 7))) for _ in range(random.randint(1, 6))]
    names = list(dict.fromkeys(names))
    print(json.dumps({"names": names}))
`);
    for (const line of lines) {
      const text = `${line}\n`;
      if (line.startsWith('{"shape"')) {
        const s = parseSizes(text);
        expect(serializeSizes(s)).toBe(text);
        expect(serializeSizes({ shape: [...s.shape], nbytes: BigInt(s.nbytes), cbytes: s.cbytes })).toBe(text);
      } else {
        const r = parseRootdirs(text);
        expect(serializeRootdirs({ names: [...r.names] })).toBe(text);
      }
    }
  });
});

describe("old-file leniencies", () => {
  it("accepts pre-1.1 storage (shuffle as boolean, no cname/quantize) and writes it back unchanged", () => {
    const text = '{"dtype": "float64", "cparams": {"shuffle": true, "clevel": 5}, "chunklen": 16384, "expectedlen": 1000000, "dflt": 0.0}\n';
    const st = parseStorage(text, "meta/storage");
    expect(st.cparams).toEqual({ clevel: 5, shuffle: 1, cname: "blosclz", quantize: 0 });
    expect(serializeStorage(st)).toBe(text);
    const st2 = parseStorage('{"dtype": "int32", "cparams": {"clevel": 1, "shuffle": false}, "chunklen": 10, "expectedlen": 10, "dflt": 0}\n');
    expect(st2.cparams).toEqual({ clevel: 1, shuffle: 0, cname: "blosclz", quantize: 0 });
  });

  it("writes the full modern cparams once they change, and keeps unknown keys", () => {
    const st = parseStorage('{"dtype": "float64", "cparams": {"shuffle": true, "clevel": 5}, "chunklen": 16384, "expectedlen": 10, "dflt": NaN, "extra": [1]}\n');
    st.cparams = { ...st.cparams, cname: "lz4" };
    st.chunklen = 4096;
    expect(serializeStorage(st)).toBe(
      '{"dtype": "float64", "cparams": {"clevel": 5, "shuffle": 1, "cname": "lz4", "quantize": 0}, "chunklen": 4096, "expectedlen": 10, "dflt": NaN, "extra": [1]}\n',
    );
  });

  it("keeps a foreign dtype spelling while it means the same dtype", () => {
    const text = '{"dtype": "<i4", "cparams": {"clevel": 5, "shuffle": 1, "cname": "lz4", "quantize": 0}, "chunklen": 10, "expectedlen": 10, "dflt": 0}\n';
    const st = parseStorage(text);
    expect(serializeStorage(st)).toBe(text);
    st.dtype = parseDtype("int64");
    expect(serializeStorage(st)).toContain('"dtype": "int64"');
  });

  it("ignores the legacy dirs of __rootdirs__", () => {
    expect(parseRootdirs('{"names": ["a", "b"], "dirs": {"a": "/abs/a", "b": "/abs/b"}}\n').names).toEqual(["a", "b"]);
  });

  it("uint64 fill values above 2^53 stay exact", () => {
    const text = '{"dtype": "uint64", "cparams": {"clevel": 5, "shuffle": 1, "cname": "lz4", "quantize": 0}, "chunklen": 10, "expectedlen": 10, "dflt": 18446744073709551615}\n';
    const st = parseStorage(text);
    expect(st.dflt).toBe(18446744073709551615n);
    expect(serializeStorage(st)).toBe(text);
  });
});

describe("errors", () => {
  const good = '{"dtype": "int32", "cparams": {"clevel": 5, "shuffle": 1, "cname": "lz4", "quantize": 0}, "chunklen": 65536, "expectedlen": 100000, "dflt": 0}';
  const storageWith = (patch: Record<string, string>): string => {
    let t = good;
    for (const [k, v] of Object.entries(patch)) t = t.replace(new RegExp(`"${k}": [^,}]+`), `"${k}": ${v}`);
    return `${t}\n`;
  };

  it.each([
    [{ clevel: "10" }, "/cparams/clevel"],
    [{ clevel: "5.0" }, "/cparams/clevel"],
    [{ shuffle: "3" }, "/cparams/shuffle"],
    [{ cname: '"lz5"' }, "/cparams/cname"],
    [{ quantize: "-1" }, "/cparams/quantize"],
    [{ chunklen: "0" }, "/chunklen"],
    [{ chunklen: "1024.0" }, "/chunklen"],
    [{ chunklen: "18446744073709551616" }, "/chunklen"],
    [{ expectedlen: "-1" }, "/expectedlen"],
    [{ expectedlen: '"10"' }, "/expectedlen"],
    [{ dflt: '"x"' }, "/dflt"],
    [{ dflt: "0.5" }, "/dflt"],
  ])("storage %j → BAD_METADATA at %s", (patch, field) => {
    const e = errorOf(() => parseStorage(storageWith(patch), "c/meta/storage"));
    expect(e).toBeInstanceOf(FormatError);
    expect([e.code, e.field, e.path]).toEqual(["BAD_METADATA", field, "c/meta/storage"]);
  });

  it("reports missing and unknown keys", () => {
    let e = errorOf(() => parseStorage('{"dtype": "int32", "cparams": {"clevel": 5, "shuffle": 1}, "chunklen": 1, "dflt": 0}'));
    expect([e.code, e.field]).toEqual(["BAD_METADATA", "/expectedlen"]);
    e = errorOf(() => parseStorage('{"dtype": "int32", "cparams": {"clevel": 5, "shuffle": 1, "typesize": 4}, "chunklen": 1, "expectedlen": 0, "dflt": 0}'));
    expect([e.code, e.field]).toEqual(["BAD_METADATA", "/cparams/typesize"]);
    e = errorOf(() => parseSizes('{"shape": [], "nbytes": 0, "cbytes": 0}'));
    expect([e.code, e.field]).toEqual(["BAD_METADATA", "/shape"]);
    e = errorOf(() => parseSizes('{"shape": [10, -3], "nbytes": 0, "cbytes": 0}'));
    expect([e.code, e.field]).toEqual(["BAD_METADATA", "/shape/1"]);
    e = errorOf(() => parseSizes("[1]", "meta/sizes"));
    expect([e.code, e.field, e.path]).toEqual(["BAD_METADATA", "", "meta/sizes"]);
    e = errorOf(() => parseAttrs("[]"));
    expect(e.code).toBe("BAD_METADATA");
    e = errorOf(() => parseRootdirs('{"names": ["a", 3]}'));
    expect([e.code, e.field]).toEqual(["BAD_METADATA", "/names/1"]);
    e = errorOf(() => parseRootdirs('{"names": []}', "__rootdirs__"));
    expect([e.code, e.field, e.path]).toEqual(["BAD_METADATA", "/names", "__rootdirs__"]);
  });

  it("reports unsupported dtypes before anything else", () => {
    for (const dtype of ['"object"', "\"[('a', '<i4')]\"", '"float128"']) {
      const e = errorOf(() => parseStorage(good.replace('"int32"', dtype), "m/storage"));
      expect([e.code, e.field, e.path]).toEqual(["UNSUPPORTED_DTYPE", "/dtype", "m/storage"]);
    }
  });

  // Issue 9 item 6: control characters, a leading digit, spaces, dot files and over-long names were read.
  it.each(["", ".", "..", "a/b", "../x", "a\\b", "a\u0000", "__attrs__", "__rootdirs__", "a\u0001b", "a\nb", "1abc", "a b", ".lock", "na\u00efve", "x".repeat(256)])("rootdirs name %j → UNSAFE_NAME", (name) => {
    const e = errorOf(() => parseRootdirs(`${stringifyPythonJson({ names: ["ok", name] })}\n`, "t/__rootdirs__"));
    expect(e).toBeInstanceOf(FormatError);
    expect([e.code, e.field, e.path]).toEqual(["UNSAFE_NAME", "/names/1", "t/__rootdirs__"]);
    const u = errorOf(() => serializeRootdirs({ names: [name] }));
    expect(u).toBeInstanceOf(UsageError);
    expect(u.code).toBe("UNSAFE_NAME");
  });

  it("accepts identifiers up to MAX_COLUMN_NAME_LENGTH characters", () => {
    for (const name of ["a", "_", "A_9", "class", "x".repeat(MAX_COLUMN_NAME_LENGTH)]) {
      expect(parseRootdirs(`${stringifyPythonJson({ names: [name] })}\n`).names).toEqual([name]);
    }
    expect(MAX_COLUMN_NAME_LENGTH).toBe(255);
  });

  // Issue 9 item 7: spec §10 says trailing dimensions are at least 1.
  it("rejects a trailing dimension of 0 in meta/sizes with BAD_METADATA naming the dimension", () => {
    const e = errorOf(() => parseSizes('{"shape": [3000, 0], "nbytes": 0, "cbytes": 0}\n', "x/meta/sizes"));
    expect([e.code, e.field, e.path]).toEqual(["BAD_METADATA", "/shape/1", "x/meta/sizes"]);
    expect(parseSizes('{"shape": [0, 1], "nbytes": 0, "cbytes": 0}\n').shape).toEqual([0, 1]);
  });

  it("rejects duplicate column names", () => {
    expect(errorOf(() => parseRootdirs('{"names": ["a", "a"]}')).code).toBe("BAD_METADATA");
    expect(errorOf(() => serializeRootdirs({ names: ["a", "a"] })).code).toBe("INVALID_ARGUMENT");
  });

  it("serializers refuse invalid values with UsageError", () => {
    expect(errorOf(() => serializeSizes({ shape: [], nbytes: 0, cbytes: 0 }))).toBeInstanceOf(UsageError);
    expect(errorOf(() => serializeSizes({ shape: [1.5], nbytes: 0, cbytes: 0 }))).toBeInstanceOf(UsageError);
    const st = parseStorage(`${good}\n`);
    expect(errorOf(() => serializeStorage({ ...st, chunklen: 0 }))).toBeInstanceOf(UsageError);
    expect(errorOf(() => serializeStorage({ ...st, cparams: { ...st.cparams, clevel: 12 } }))).toBeInstanceOf(UsageError);
    expect(errorOf(() => serializeStorage({ ...st, dflt: "x" }))).toBeInstanceOf(UsageError);
    expect(errorOf(() => serializeAttrs([] as unknown as JsonObject))).toBeInstanceOf(UsageError);
  });

  it("rejects invalid UTF-8 bytes", () => {
    expect(errorOf(() => decodeMetadata(new Uint8Array([0x7b, 0xff, 0x7d]), "meta/sizes")).code).toBe("BAD_JSON");
  });
});

describe("property tests", () => {
  const safeName = fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_]{0,9}$/).filter((s) => s !== "__attrs__" && s !== "__rootdirs__");

  it("sizes round-trip", () => {
    fc.assert(
      fc.property(fc.tuple(fc.maxSafeNat(), fc.array(fc.integer({ min: 1, max: 2 ** 31 }), { maxLength: 4 })).map(([n, rest]) => [n, ...rest]), fc.oneof(fc.maxSafeNat(), fc.bigInt({ min: 0n, max: 2n ** 80n })), fc.oneof(fc.integer(), fc.bigInt()), (shape, nbytes, cbytes) => {
        const text = serializeSizes({ shape, nbytes, cbytes });
        const back = parseSizes(text);
        expect(back.shape).toEqual(shape);
        expect(BigInt(back.nbytes)).toBe(BigInt(nbytes));
        expect(BigInt(back.cbytes)).toBe(BigInt(cbytes));
        expect(serializeSizes(back)).toBe(text);
      }),
    );
  });

  it("storage round-trips for every dtype kind", () => {
    const dtypeName = fc.constantFrom("float64", "float32", "float16", "int8", "uint64", "bool", "datetime64[ns]", "|S5", "<U2", ">i4", ">f8", "complex128", "timedelta64[s]", "|V4");
    fc.assert(
      fc.property(
        dtypeName,
        fc.record({ clevel: fc.integer({ min: 0, max: 9 }), shuffle: fc.constantFrom(0 as const, 1 as const, 2 as const), cname: fc.constantFrom("blosclz" as const, "lz4" as const, "lz4hc" as const, "snappy" as const, "zlib" as const, "zstd" as const), quantize: fc.nat(20) }),
        fc.integer({ min: 1, max: 2 ** 40 }),
        fc.oneof(fc.maxSafeNat(), fc.bigInt({ min: 0n, max: 2n ** 70n })),
        fc.double(),
        fc.bigInt({ min: -(2n ** 64n), max: 2n ** 64n }),
        fc.string({ unit: "binary", maxLength: 6 }),
        fc.boolean(),
        (name, cparams, chunklen, expectedlen, f, i, s, b) => {
          const dtype = parseDtype(name);
          const dflt = { b, i: i, u: i < 0n ? -i : i, f: new PyFloat(f), c: 0, S: s, U: s, M: i, m: i, V: 0 }[dtype.kind];
          const text = serializeStorage(createStorage({ dtype, cparams, chunklen, expectedlen, dflt }));
          const back = parseStorage(text);
          expect(back.dtype).toEqual(dtype);
          expect(back.cparams).toEqual(cparams);
          expect(back.chunklen).toBe(chunklen);
          expect(stringifyPythonJson(back.dflt)).toBe(stringifyPythonJson(dflt));
          expect(serializeStorage(back)).toBe(text);
        },
      ),
    );
  });

  it("rootdirs and attrs round-trip", () => {
    fc.assert(
      fc.property(fc.uniqueArray(safeName, { minLength: 1, maxLength: 8 }), (names) => {
        const text = serializeRootdirs({ names });
        expect(parseRootdirs(text).names).toEqual(names);
      }),
    );
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.string(), fc.oneof(fc.integer(), fc.string(), fc.boolean(), fc.constant(null))), { maxLength: 6 }), (entries) => {
        const attrs = createJsonObject(entries);
        const text = serializeAttrs(attrs);
        expect(serializeAttrs(parseAttrs(text))).toBe(text);
      }),
    );
  });

  it("hostile metadata never throws anything but FormatError", () => {
    const seeds = metaFiles.slice(0, 40).map((f) => readFileSync(f, "utf8"));
    const hostile = fc.oneof(
      fc.string(),
      fc.tuple(fc.constantFrom(...seeds), fc.nat(), fc.nat(3), fc.constantFrom("", "}", "{", "1e999", "NaN", "-1", '"', "[", "]", "true", "null", '"x"', "99999999999999999999", ", \"k\": 1", "0.5")).map(
        ([seed, at, del, ins]) => seed.slice(0, at % (seed.length + 1)) + ins + seed.slice((at % (seed.length + 1)) + del),
      ),
    );
    fc.assert(
      fc.property(hostile, (text) => {
        for (const parse of [parseSizes, parseStorage, parseAttrs, parseRootdirs]) {
          try {
            parse(text, "x");
          } catch (e) {
            if (!(e instanceof FormatError)) throw e;
            expect(e.path).toBe("x");
            expect(e.field).toBeTypeOf("string");
          }
        }
      }),
      { numRuns: 3000 },
    );
  });
});
