// Argument parsing of the CLI: integers are strict, and slices resolve like Python's
// `range(n)[start:stop:step]`.
import { InvalidArgumentError } from "commander";
import { describe, expect, it } from "vitest";
import { parseCount, parseInteger, parseList, parsePositive, resolveSlice } from "../src/args.js";
import { shortestFloat32 } from "../src/rows.js";

/** Python's slice of range(n), written from the language reference's definition. */
function pythonSlice(n: number, start: number | undefined, stop: number | undefined, step: number): number[] {
  const norm = (v: number | undefined, dflt: number): number => (v === undefined ? dflt : v < 0 ? Math.max(0, v + n) : Math.min(v, n));
  const out: number[] = [];
  for (let i = norm(start, 0); i < norm(stop, n); i += step) out.push(i);
  return out;
}

describe("resolveSlice", () => {
  it("selects the same rows as Python for every small start/stop/step", () => {
    const bounds = [undefined, -12, -10, -3, -1, 0, 1, 3, 9, 10, 12];
    for (const n of [0, 1, 10]) {
      for (const start of bounds) {
        for (const stop of bounds) {
          for (const step of [1, 2, 3, 11]) {
            const s = resolveSlice(n, start, stop, step);
            const got: number[] = [];
            for (let i = s.start; i < s.stop; i += s.step) got.push(i);
            expect([got, s.count]).toEqual([pythonSlice(n, start, stop, step), got.length]);
          }
        }
      }
    }
  });
});

describe("integer arguments", () => {
  it.each(["abc", "1.5", "", "1e3", "0x10", "--1", "99999999999999999999"])("parseInteger refuses %j", (text) => {
    expect(() => parseInteger(text)).toThrow(InvalidArgumentError);
  });

  it("accepts decimal integers with a sign, and checks ranges", () => {
    expect([parseInteger("-3"), parseInteger("42"), parseCount("0"), parsePositive("1")]).toEqual([-3, 42, 0, 1]);
    expect(() => parseCount("-1")).toThrow(InvalidArgumentError);
    expect(() => parsePositive("0")).toThrow(InvalidArgumentError);
    expect(parseList(" a, b ,,c")).toEqual(["a", "b", "c"]);
    expect(() => parseList(",")).toThrow(InvalidArgumentError);
  });
});

describe("shortestFloat32", () => {
  it("gives the shortest decimal that rounds to the same float32", () => {
    expect(shortestFloat32(Math.fround(1.1))).toBe(1.1);
    expect(shortestFloat32(Math.fround(-106.43667602539063))).toBe(-106.436676);
    expect(shortestFloat32(Math.fround(3.4028234663852886e38))).toBe(3.4028235e38);
    expect(shortestFloat32(Math.fround(1e-45))).toBe(1e-45);
    for (const v of [0.1, 1 / 3, 123456.789, 2 ** -20]) {
      const f = Math.fround(v);
      const s = shortestFloat32(f);
      expect(Math.fround(s)).toBe(f);
    }
  });
});
