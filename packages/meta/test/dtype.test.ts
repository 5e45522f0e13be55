import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { FormatError, UsageError } from "@fmt/errors";
import { MAX_DTYPE_ITEMSIZE, atomSize, defaultDflt, dtypeFromNumpyStr, parseDtype, stringifyPythonJson, type DType } from "../src/index.js";
import { runPython } from "./python.js";

/** numpy's verdict on each spelling: [str(dtype), dtype.str, itemsize, kind] or null if numpy rejects it. */
function numpyVerdicts(spellings: readonly string[]): ([string, string, number, string] | null)[] {
  const script = `
import json, sys, warnings
import numpy as np
warnings.simplefilter("ignore")
for line in sys.stdin:
    x = json.loads(line)
    try:
        d = np.dtype(x)
        print(json.dumps([str(d), d.str, d.itemsize, d.kind]))
    except Exception:
        print("null")
`;
  return runPython(script, spellings.map((s) => JSON.stringify(s))).map((l) => JSON.parse(l) as [string, string, number, string] | null);
}

const BCOLZ_SPELLINGS = [
  "float64", "float32", "float16", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "bool",
  "complex64", "complex128", "datetime64[ns]", "datetime64[us]", "datetime64[D]", "datetime64[Y]", "datetime64[10s]",
  "datetime64", "timedelta64[s]", "timedelta64[ns]", "timedelta64", "|S7", "|S1", "<U3", ">U3", "|V8", "|V300",
  ">i4", ">i2", ">i8", ">u4", ">f8", ">f4", ">f2", ">c16", ">M8[ns]", ">m8[us]",
];
const NUMPY_STR_SPELLINGS = [
  "<f8", "<f4", "<f2", "|b1", "|i1", "|u1", "<i2", "<i4", "<i8", "<u2", "<u4", "<u8", "<c8", "<c16", "<M8[ns]", "<M8",
  "<m8[s]", "|S7", "<U3", "|V8", "i4", "f8", "S7", "U3", "V8", "b1", "M8[ns]", "=i4", "|i4", ">b1", ">i1", "<S7", ">S7",
  "<V8", "datetime64[1ns]", "M8[generic]",
];

describe("parseDtype vs numpy 1.24", () => {
  it("gives numpy's str(dtype) as bcolzName and dtype.str as str for every spelling bcolz and numpy use", () => {
    const all = [...BCOLZ_SPELLINGS, ...NUMPY_STR_SPELLINGS];
    const verdicts = numpyVerdicts(all);
    all.forEach((spelling, i) => {
      const v = verdicts[i];
      expect(v, spelling).not.toBeNull();
      const [name, str, itemsize, kind] = v as [string, string, number, string];
      const d = parseDtype(spelling);
      expect({ spelling, bcolzName: d.bcolzName, str: d.str, itemsize: d.itemsize, kind: d.kind }).toEqual({ spelling, bcolzName: name, str, itemsize, kind });
      // both spellings we produce parse back to the same dtype
      expect(parseDtype(d.bcolzName)).toEqual(d);
      expect(parseDtype(d.str)).toEqual(d);
      expect(dtypeFromNumpyStr(d.str)).toEqual(d);
    });
  });

  it("agrees with numpy on random code-form spellings whenever it accepts one", () => {
    const spelling = fc
      .tuple(
        fc.constantFrom("", "<", ">", "|", "="),
        fc.constantFrom("b", "i", "u", "f", "c", "S", "U", "V", "M", "m"),
        fc.oneof({ arbitrary: fc.constantFrom(1, 2, 3, 4, 8, 16), weight: 5 }, { arbitrary: fc.integer({ min: 1, max: 5000 }), weight: 1 }),
        fc.oneof({ arbitrary: fc.constant(""), weight: 4 }, { arbitrary: fc.constantFrom("[ns]", "[D]", "[10s]", "[us]", "[Y]", "[h]", "[as]", "[generic]"), weight: 1 }),
      )
      .map(([o, k, n, u]) => `${o}${k}${n}${u}`);
    const names = fc
      .tuple(fc.constantFrom("int", "uint", "float", "complex", "datetime", "timedelta", "bool"), fc.constantFrom("", "8", "16", "32", "64", "128", "256"), fc.constantFrom("", "[ns]", "[2D]"))
      .map(([a, b, c]) => a + b + c);
    const samples = [...new Set(fc.sample(fc.oneof(spelling, names), { numRuns: 2500, seed: 5 }))];
    const verdicts = numpyVerdicts(samples);
    let accepted = 0;
    samples.forEach((s, i) => {
      let d: DType;
      try {
        d = parseDtype(s);
      } catch (e) {
        expect(e).toBeInstanceOf(FormatError);
        expect((e as FormatError).code).toBe("UNSUPPORTED_DTYPE");
        return;
      }
      accepted++;
      const v = verdicts[i];
      expect(v, s).not.toBeNull();
      const [name, str, itemsize] = v as [string, string, number, string];
      expect([s, d.bcolzName, d.str, d.itemsize]).toEqual([s, name, str, itemsize]);
    });
    expect(accepted).toBeGreaterThan(200);
  });
});

describe("parseDtype fields", () => {
  it("computes the Blosc typesize bcolz uses", () => {
    expect(parseDtype("|S7").bloscTypesize).toBe(1);
    expect(parseDtype("<U3").bloscTypesize).toBe(4);
    expect(parseDtype("|V300").bloscTypesize).toBe(1);
    expect(parseDtype("|V8").bloscTypesize).toBe(8);
    expect(parseDtype("complex128").bloscTypesize).toBe(16);
    expect(parseDtype("datetime64[ns]").bloscTypesize).toBe(8);
    expect(parseDtype("bool").bloscTypesize).toBe(1);
  });

  it("records byte order, unit and whether bcolz can write the type", () => {
    expect(parseDtype(">i4")).toMatchObject({ byteOrder: ">", kind: "i", itemsize: 4, bcolzWritable: true });
    expect(parseDtype("int32").byteOrder).toBe("<");
    expect(parseDtype("|S7").byteOrder).toBe("|");
    expect(parseDtype("datetime64[ns]").unit).toBe("ns");
    expect(parseDtype("datetime64[10s]").unit).toBe("10s");
    expect(parseDtype("datetime64").unit).toBeUndefined();
    expect(parseDtype("complex64").bcolzWritable).toBe(false);
    expect(parseDtype("timedelta64[s]").bcolzWritable).toBe(false);
  });

  it.each([
    "object", "O", "|O", "[('a', '<i4'), ('b', 'S3')]", "(3,)float64", "{'names': ['a']}", "float128", "<f16", "complex256",
    "S0", "U0", "V0", "|S", "S07", "int", "float", "i3", "f1", "M4", "b2", "datetime64[xs]", "datetime64[0ns]", "i4[ns]",
    "", " int32", "int32 ", "Int32", "<<i4", "S2147483648", `|S${MAX_DTYPE_ITEMSIZE + 1}`, "U536870908", "garbage\u0000",
  ])("rejects %j with UNSUPPORTED_DTYPE naming path and field", (text) => {
    try {
      parseDtype(text, "col/meta/storage", "/dtype");
      throw new Error("accepted");
    } catch (e) {
      expect(e).toBeInstanceOf(FormatError);
      expect((e as FormatError).code).toBe("UNSUPPORTED_DTYPE");
      expect((e as FormatError).path).toBe("col/meta/storage");
      expect((e as FormatError).field).toBe("/dtype");
    }
  });

  it("never throws anything but UNSUPPORTED_DTYPE on arbitrary strings", () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.string({ unit: "binary" }), fc.stringMatching(/^[<>|=]?[biufcSUVMmO][0-9]{0,12}(\[[0-9]{0,3}[a-z]{0,3}\])?$/)), (s) => {
        try {
          const d = parseDtype(s);
          expect(d.itemsize).toBeGreaterThan(0);
          expect(d.itemsize).toBeLessThanOrEqual(MAX_DTYPE_ITEMSIZE);
          expect(parseDtype(d.bcolzName)).toEqual(d);
        } catch (e) {
          if (!(e instanceof FormatError) || e.code !== "UNSUPPORTED_DTYPE") throw e;
        }
      }),
      { numRuns: 3000 },
    );
  });

  it("dtypeFromNumpyStr accepts only canonical dtype.str", () => {
    expect(dtypeFromNumpyStr("<M8[ns]").bcolzName).toBe("datetime64[ns]");
    for (const s of ["float64", "i4", "<i1", ">b1", "=i4"]) expect(() => dtypeFromNumpyStr(s)).toThrow(FormatError);
  });
});

describe("atomSize and defaultDflt", () => {
  it("multiplies the itemsize by the trailing dimensions", () => {
    expect(atomSize(parseDtype("float64"), [1000, 3, 2])).toBe(48);
    expect(atomSize(parseDtype("float64"), [0, 3])).toBe(24);
    expect(atomSize(parseDtype("<U3"), [5])).toBe(12);
    expect(atomSize(parseDtype("int8"), [5, 0])).toBe(0);
  });

  it("refuses rows larger than a Blosc chunk and bad shapes", () => {
    expect(() => atomSize(parseDtype("float64"), [1, 1 << 20, 1 << 20])).toThrow(expect.objectContaining({ code: "SIZE_LIMIT" }));
    expect(() => atomSize(parseDtype("float64"), [])).toThrow(UsageError);
    expect(() => atomSize(parseDtype("float64"), [1, -2])).toThrow(UsageError);
  });

  it("agrees with numpy's zero(dtype).tolist() rendered by json.dumps", () => {
    const names = ["float64", "float32", "int32", "uint64", "bool", "|S7", "<U3", "datetime64[ns]"];
    const py = runPython(
      `
import json, sys
import numpy as np
for line in sys.stdin:
    v = np.zeros((), dtype=json.loads(line)).tolist()
    # bcolz turns numpy bytes scalars into ASCII str before json.dumps (the corpus's |S7 files hold "")
    print(json.dumps(v.decode("ascii") if isinstance(v, bytes) else v))
`,
      names.map((n) => JSON.stringify(n)),
    );
    // datetime64[ns] zero's tolist() is an int (0); bcolz writes 0 for it.
    expect(names.map((n) => stringifyPythonJson(defaultDflt(parseDtype(n))))).toEqual(py);
  });
});
