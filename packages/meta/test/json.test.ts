import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { FormatError, UsageError, isBcolzError } from "@fmt/errors";
import {
  PyFloat,
  createJsonObject,
  jsonObjectKeys,
  parsePythonJson,
  pythonFloatRepr,
  stringifyPythonJson,
  type JsonObject,
  type JsonValue,
} from "../src/index.js";
import { PY_DECODE, runPython, toTagged } from "./python.js";

function expectCode(fn: () => unknown, code: string, cls: typeof FormatError | typeof UsageError = FormatError): FormatError | UsageError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(cls);
    expect((e as FormatError).code).toBe(code);
    return e as FormatError;
  }
  throw new Error(`expected ${code}, nothing thrown`);
}

// ------------------------------------------------------------------------------------------
// Arbitraries

const loneSurrogateFriendlyString = fc.string({ unit: fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)), maxLength: 12 });
const anyString = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.string({ unit: "binary", maxLength: 12 }),
  fc.string({ unit: "grapheme", maxLength: 8 }),
  loneSurrogateFriendlyString,
  fc.constantFrom("__proto__", "constructor", "10", "1", "0", "-1", "", '"\\/\b\f\n\r\t\u007f\u0000'),
);

const interestingDoubles = fc.constantFrom(
  0, -0, 1, -1, 0.1, 0.5, 1e16, 1e15, 9999999999999998, 1234567890123456, 12345678901234568, 123456789012345680,
  1e-4, 1e-5, 0.00011, 1.5e-5, 5e-324, Number.MAX_VALUE, Number.MIN_VALUE, 2 ** 53, 2 ** 53 + 2, 2 ** 63, 2 ** 64,
  1e21, 1e22, 1e100, 1e-100, 0.1 + 0.2, 1 / 3, 100, 1e300 * 10, Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY,
);
const float = fc.oneof(
  fc.double(),
  interestingDoubles,
  fc.tuple(fc.integer({ min: -1_000_000, max: 1_000_000 }), fc.integer({ min: -30, max: 30 })).map(([m, e]) => m * 10 ** e),
  fc.tuple(fc.double({ min: 1, max: 10, noNaN: true }), fc.integer({ min: -310, max: 308 })).map(([m, e]) => m * 10 ** e),
);

const pyInt = fc.oneof(
  fc.integer(),
  fc.maxSafeInteger(),
  fc.bigInt({ min: -(2n ** 200n), max: 2n ** 200n }),
  fc.constantFrom(2n ** 53n, -(2n ** 53n), 2n ** 64n - 1n, 2n ** 63n, 9007199254740991, -9007199254740991),
);

const { value: jsonValue } = fc.letrec<{ value: JsonValue }>((tie) => ({
  value: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.constant(null),
    fc.boolean(),
    pyInt,
    float.map((x) => new PyFloat(x)),
    float, // plain numbers: safe integers are ints, everything else floats
    anyString,
    fc.array(tie("value"), { maxLength: 5 }),
    fc.array(fc.tuple(anyString, tie("value")), { maxLength: 5 }).map((entries) => createJsonObject(entries)),
  ),
}));

// ------------------------------------------------------------------------------------------

describe("stringifyPythonJson vs real Python json.dumps", () => {
  it("agrees byte for byte on random values, and parse(json.dumps(x)) gives x back", () => {
    const values = fc.sample(jsonValue, { numRuns: 3000, seed: 4242 });
    values.push(...fc.sample(float, { numRuns: 3000, seed: 7 }).map((x) => new PyFloat(x)));
    const script = `${PY_DECODE}
for line in sys.stdin:
    print(json.dumps(dec(json.loads(line))))
`;
    const pyOut = runPython(script, values.map((v) => JSON.stringify(toTagged(v))));
    expect(pyOut.length).toBe(values.length);
    values.forEach((v, i) => {
      const expected = pyOut[i] as string;
      expect(stringifyPythonJson(v)).toBe(expected);
      const back = parsePythonJson(expected);
      expect(toTagged(back)).toEqual(toTagged(v));
      expect(stringifyPythonJson(back)).toBe(expected);
    });
  });

  it("matches hand-checked Python reprs", () => {
    // Values from Python 3.11: repr(x) for each x.
    const cases: [number, string][] = [
      [1e16, "1e+16"],
      [1e15, "1000000000000000.0"],
      [123456789012345680, "1.2345678901234568e+17"],
      [0.0001, "0.0001"],
      [0.00001, "1e-05"],
      [1.5e-7, "1.5e-07"],
      [0.1, "0.1"],
      [-0, "-0.0"],
      [5e-324, "5e-324"],
      [1.7976931348623157e308, "1.7976931348623157e+308"],
      [Number.NaN, "NaN"],
      [Number.NEGATIVE_INFINITY, "-Infinity"],
      [0.10000000149011612, "0.10000000149011612"],
    ];
    for (const [x, text] of cases) expect(pythonFloatRepr(x)).toBe(text);
  });

  it("writes the bcolz attrs example exactly", () => {
    const attrs = createJsonObject([
      ["units", "m/s"],
      ["scale", new PyFloat(0.5)],
      ["n", 3],
      ["ok", true],
      ["none", null],
      ["unicode", "na\u00efve \u2603"],
      ["astral", "\u{1F600}"],
    ]);
    expect(stringifyPythonJson(attrs)).toBe(
      '{"units": "m/s", "scale": 0.5, "n": 3, "ok": true, "none": null, "unicode": "na\\u00efve \\u2603", "astral": "\\ud83d\\ude00"}',
    );
  });

  it("rejects values JSON cannot hold with UsageError INVALID_ARGUMENT", () => {
    const cyclic: JsonValue[] = [];
    cyclic.push(cyclic);
    const holey: JsonValue[] = [1];
    holey[2] = 2; // [1, <hole>, 2]
    for (const bad of [undefined, () => 1, Symbol("x"), new Date(0), new Map(), cyclic, holey, { a: undefined }]) {
      expectCode(() => stringifyPythonJson(bad as unknown as JsonValue), "INVALID_ARGUMENT", UsageError);
    }
  });
});

describe("parsePythonJson", () => {
  it("reads the Python tokens, big ints exactly, floats as PyFloat", () => {
    const v = parsePythonJson('{"a": NaN, "b": Infinity, "c": -Infinity, "d": 18446744073709551615, "e": 1.0, "f": 9007199254740991, "g": -0, "h": 1e5}') as JsonObject;
    expect(v.a).toBeInstanceOf(PyFloat);
    expect(Number.isNaN(Number(v.a))).toBe(true);
    expect(Number(v.b)).toBe(Number.POSITIVE_INFINITY);
    expect(Number(v.c)).toBe(Number.NEGATIVE_INFINITY);
    expect(v.d).toBe(18446744073709551615n);
    expect(v.e).toEqual(new PyFloat(1));
    expect(v.f).toBe(9007199254740991);
    expect(Object.is(v.g, 0)).toBe(true);
    expect(v.h).toEqual(new PyFloat(100000));
    expect(parsePythonJson("-9007199254740992")).toBe(-9007199254740992n);
  });

  it("keeps __proto__ as data and never pollutes prototypes", () => {
    const v = parsePythonJson('{"__proto__": {"polluted": 1}, "constructor": 2}') as JsonObject;
    expect(Object.getPrototypeOf(v)).toBe(null);
    expect(Object.keys(v)).toEqual(["__proto__", "constructor"]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(stringifyPythonJson(v)).toBe('{"__proto__": {"polluted": 1}, "constructor": 2}');
  });

  it("keeps Python key order even for integer-like keys", () => {
    const text = '{"b": 1, "10": 2, "a": 3, "2": 4}';
    const v = parsePythonJson(text) as JsonObject;
    expect(jsonObjectKeys(v)).toEqual(["b", "10", "a", "2"]);
    expect(stringifyPythonJson(v)).toBe(text);
  });

  it("rejects duplicate keys, with position and pointer", () => {
    const e = expectCode(() => parsePythonJson('{"a": {"x": 1,\n  "x": 2}}', "meta/storage"), "BAD_JSON");
    expect(e.path).toBe("meta/storage");
    expect(e.field).toBe("line 2 column 3");
    expect(e.message).toContain('"/a/x"');
  });

  it.each([
    ["", "line 1 column 1"],
    ["{", "line 1 column 2"],
    ["[1,]", "line 1 column 4"],
    ["[1 2]", "line 1 column 4"],
    ["01", "line 1 column 2"],
    ["1.", "line 1 column 2"],
    ["-", "line 1 column 1"],
    ["+1", "line 1 column 1"],
    ["nan", "line 1 column 1"],
    ["-NaN", "line 1 column 1"],
    ["{'a': 1}", "line 1 column 2"],
    ['"\\x"', "line 1 column 2"],
    ['"\\u12g4"', "line 1 column 2"],
    ['"a\tb"', "line 1 column 3"],
    ['"abc', "line 1 column 1"],
    ["\ufeff{}", "line 1 column 1"],
    ["{} {}", "line 1 column 4"],
    ["[1]\n\n  x", "line 3 column 3"],
    ["tru", "line 1 column 1"],
  ])("rejects %j at %s", (text, field) => {
    const e = expectCode(() => parsePythonJson(text, "f.json"), "BAD_JSON");
    expect(e.field).toBe(field);
  });

  it("accepts exactly what Python's json.loads accepts (differential, near-JSON strings)", () => {
    const token = fc.constantFrom(
      "{", "}", "[", "]", ",", ":", " ", "\n", "\t", '"', '"a"', '"\\u00e9"', '"\\ud800"', "\\", "0", "1", "-", ".", "e", "E", "+",
      "12", "1.5", "NaN", "Infinity", "-Infinity", "true", "false", "null", "nul", "\u00e9", "\u0001", "\r", "x", "00", "1e5", '"\\n"',
    );
    const texts = fc.sample(fc.array(token, { maxLength: 10 }).map((t) => t.join("")), { numRuns: 4000, seed: 99 });
    const script = `
import json, sys
for line in sys.stdin:
    s = json.loads(line)
    try:
        print(json.dumps(json.loads(s)))
    except ValueError:
        print("!ERR")
`;
    const out = runPython(script, texts.map((t) => JSON.stringify(t)));
    let accepted = 0;
    texts.forEach((t, i) => {
      const py = out[i] as string;
      let ours: string;
      try {
        ours = stringifyPythonJson(parsePythonJson(t));
        accepted++;
      } catch (e) {
        expect(isBcolzError(e, "BAD_JSON")).toBe(true);
        ours = "!ERR";
      }
      expect([t, ours]).toEqual([t, py]);
    });
    expect(accepted).toBeGreaterThan(100);
  });

  it("never throws anything but FormatError on hostile input", () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.string({ unit: "binary" }), loneSurrogateFriendlyString, jsonValue.map((v) => mutate(stringifyPythonJson(v)))), (text) => {
        try {
          parsePythonJson(text);
        } catch (e) {
          if (!(e instanceof FormatError)) throw e;
          expect(["BAD_JSON", "SIZE_LIMIT"]).toContain(e.code);
        }
      }),
      { numRuns: 3000 },
    );
  });

  it("round-trips its own output (parse ∘ stringify is the identity on canonical values)", () => {
    fc.assert(
      fc.property(jsonValue, (v) => {
        const text = stringifyPythonJson(v);
        const back = parsePythonJson(text);
        expect(toTagged(back)).toEqual(toTagged(v));
        expect(stringifyPythonJson(back)).toBe(text);
      }),
      { numRuns: 2000 },
    );
  });

  it("rejects nesting deeper than the limit and accepts it at the limit", () => {
    const nest = (n: number): string => "[".repeat(n) + "]".repeat(n);
    expect(() => parsePythonJson(nest(512))).not.toThrow();
    expectCode(() => parsePythonJson(nest(513)), "BAD_JSON");
    expectCode(() => parsePythonJson('{"a":'.repeat(600) + "1" + "}".repeat(600)), "BAD_JSON");
    expectCode(() => parsePythonJson("[".repeat(1_000_000)), "BAD_JSON");
    expectCode(() => parsePythonJson(nest(11), undefined, { maxDepth: 10 }), "BAD_JSON");
    fc.assert(
      fc.property(fc.integer({ min: 513, max: 5000 }), fc.constantFrom("[", '{"k": '), (depth, open) => {
        const close = open === "[" ? "]" : "}";
        expectCode(() => parsePythonJson(open.repeat(depth) + "0" + close.repeat(depth)), "BAD_JSON");
      }),
      { numRuns: 50 },
    );
  });

  it("enforces the size limit and Python's 4300-digit integer limit", () => {
    expectCode(() => parsePythonJson("[1, 2, 3]", "x", { maxLength: 5 }), "SIZE_LIMIT");
    expect(parsePythonJson("9".repeat(4300))).toBe(10n ** 4300n - 1n);
    expectCode(() => parsePythonJson("9".repeat(4301)), "BAD_JSON");
    // floats have no such limit in Python either
    expect(parsePythonJson("1" + "0".repeat(5000) + ".0")).toEqual(new PyFloat(Number.POSITIVE_INFINITY));
  });
});

/** Small random edits to valid JSON text: enough to hit every error path. */
function mutate(text: string): string {
  const h = [...text].reduce((a, c) => (a * 31 + c.charCodeAt(0)) >>> 0, 7);
  const at = text.length === 0 ? 0 : h % text.length;
  const junk = ["", "{", "]", ",", '"', "\\", "N", "-", "9".repeat(30), "\u0000", "\ud800"][h % 11] as string;
  return text.slice(0, at) + junk + text.slice(at + ((h >> 8) % 3));
}
