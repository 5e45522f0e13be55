// The corpus set conformance/corpus/v1/numpy-synth (real c-blosc chunks, bcolz-style metadata,
// numpy-derived expected values) for what the real corpus lacks: big-endian, unicode,
// multidimensional, float16, complex, wide S.
import { describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { join } from "node:path";
import { FileSystemStore } from "@fmt/fs-adapters/node";
import { CArray, decodeValues, open, toLittleEndian } from "@fmt/store";
import { parseDtype } from "@fmt/meta";
import { equalBytes, rng } from "./helpers.js";

const DIR = fileURLToPath(new URL("../../../conformance/corpus/v1/numpy-synth/", import.meta.url));
const manifest = JSON.parse(readFileSync(join(DIR, "manifest.json"), "utf8")) as {
  cases: { name: string; dtype: string; shape: number[]; chunklen: number; expect?: { error: string } }[];
};
const fixtures = { cases: manifest.cases.filter((c) => c.expect === undefined) };
const refused = manifest.cases.filter((c) => c.expect !== undefined);

describe.each(refused)("$name (bcolz cannot store $dtype)", (c) => {
  it(`is refused with ${c.expect?.error}`, async () => {
    const err = await open(new FileSystemStore(join(DIR, c.name, "data.bcolz"))).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: c.expect!.error, path: "meta/storage", field: "dtype" });
  });
});

/** Converts decoded values to the JSON form make_fixtures.py writes. */
function toJsonForm(values: unknown, dtype: string): unknown[] {
  const list = Array.from(values as ArrayLike<unknown>);
  const num = (x: unknown) => (Number.isFinite(x) ? x : x === Infinity ? "inf" : x === -Infinity ? "-inf" : "nan");
  if (dtype.includes("c")) {
    const out: unknown[] = [];
    for (let i = 0; i < list.length; i += 2) out.push([num(list[i]), num(list[i + 1])]);
    return out;
  }
  return list.map((v) => (typeof v === "bigint" ? v.toString() : v instanceof Uint8Array ? Array.from(v) : typeof v === "number" ? num(v) : v));
}

describe.each(fixtures.cases)("$name", (c) => {
  const root = join(DIR, c.name);
  const expectedLe = new Uint8Array(readFileSync(join(root, "expected", "values.bin")));
  const values = JSON.parse(readFileSync(join(root, "values.json"), "utf8")) as unknown[];

  it("opens with the right metadata and reads the values numpy wrote", async () => {
    const a = (await open(new FileSystemStore(join(root, "data.bcolz")))) as CArray;
    expect(a).toBeInstanceOf(CArray);
    expect(a.dtype.str).toBe(c.dtype);
    expect([...a.shape]).toEqual(c.shape);
    expect(a.chunklen).toBe(c.chunklen);
    const perRow = c.shape.slice(1).reduce((x, y) => x * y, 1);
    expect(a.itemsPerRow).toBe(perRow);
    expect(a.atomSize).toBe(a.dtype.itemsize * perRow);

    const stored = await a.readBytes();
    expect(equalBytes(toLittleEndian(stored, a.dtype), expectedLe)).toBe(true);
    expect(toJsonForm(await a.read(), c.dtype)).toEqual(values);

    const random = rng(c.name.length * 97);
    const n = a.length;
    const entries = values.length / n; // JSON entries per row
    for (let k = 0; k < 10; k++) {
      const start = Math.floor(random() * n);
      const stop = start + Math.floor(random() * (n - start));
      const step = 1 + Math.floor(random() * 5);
      const want: unknown[] = [];
      for (let r = start; r < stop; r += step) want.push(...values.slice(r * entries, (r + 1) * entries));
      expect(toJsonForm(await a.read(start, stop, step), c.dtype)).toEqual(want);
      const row = Math.floor(random() * n);
      const got = await a.get(row);
      const one = perRow === 1 && !c.dtype.includes("c") ? [got] : got;
      expect(toJsonForm(one, c.dtype)).toEqual(values.slice(row * entries, (row + 1) * entries));
    }
  });
});

describe("decodeValues and toLittleEndian on hand-derived bytes", () => {
  it("decodes float16 bit patterns exactly", () => {
    // 0x3c00 = 1, 0xc000 = -2, 0x7bff = 65504, 0x0001 = 2^-24, 0x0400 = 2^-14, 0x7c00 = inf, 0xfc00 = -inf, 0x8000 = -0
    const bits = [0x3c00, 0xc000, 0x7bff, 0x0001, 0x0400, 0x7c00, 0xfc00, 0x8000];
    const bytes = new Uint8Array(bits.flatMap((b) => [b & 0xff, b >> 8]));
    expect(Array.from(decodeValues(bytes, parseDtype("<f2")) as Float32Array)).toEqual([1, -2, 65504, 2 ** -24, 2 ** -14, Infinity, -Infinity, -0]);
    expect(Number.isNaN((decodeValues(new Uint8Array([0x01, 0x7c]), parseDtype("<f2")) as Float32Array)[0])).toBe(true);
    const be = new Uint8Array(bits.flatMap((b) => [b >> 8, b & 0xff]));
    expect(Array.from(decodeValues(be, parseDtype(">f2")) as Float32Array)).toEqual([1, -2, 65504, 2 ** -24, 2 ** -14, Infinity, -Infinity, -0]);
  });

  it("swaps only what has a byte order", () => {
    const b = new Uint8Array([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(Array.from(toLittleEndian(b, parseDtype(">i4")))).toEqual([4, 3, 2, 1, 8, 7, 6, 5]);
    expect(Array.from(toLittleEndian(b, parseDtype(">c8")))).toEqual([4, 3, 2, 1, 8, 7, 6, 5]);
    expect(Array.from(toLittleEndian(b, parseDtype(">i8")))).toEqual([8, 7, 6, 5, 4, 3, 2, 1]);
    expect(Array.from(toLittleEndian(b, parseDtype(">U2")))).toEqual([4, 3, 2, 1, 8, 7, 6, 5]);
    expect(toLittleEndian(b, parseDtype("|S8"))).toBe(b);
    expect(toLittleEndian(b, parseDtype("<i4"))).toBe(b);
  });

  it("decodes UCS-4 with trailing NULs removed and out-of-range code points replaced", () => {
    const le = new Uint8Array([0x41, 0, 0, 0, 0x03, 0x26, 0, 0, 0, 0, 0, 0, /* next */ 0x00, 0xf6, 0x01, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff]);
    expect(decodeValues(le, parseDtype("<U3"))).toEqual(["A\u2603", "\u{1F600}\0\uFFFD"]);
  });

  it("decodes bytes with trailing NULs removed but inner NULs kept", () => {
    expect(decodeValues(new Uint8Array([65, 0, 66, 0, 0, 0]), parseDtype("|S3"))).toEqual([new Uint8Array([65, 0, 66]), new Uint8Array([])]);
  });

  it("decodes misaligned input without errors", () => {
    const buf = new Uint8Array(9);
    buf.set([0, 0, 0, 0, 0, 0, 0xf0, 0x3f], 1);
    expect(Array.from(decodeValues(buf.subarray(1), parseDtype("<f8")) as Float64Array)).toEqual([1]);
  });

  it("rejects byte lengths that are not a multiple of the itemsize", () => {
    expect(() => decodeValues(new Uint8Array(3), parseDtype("<i2"))).toThrow(/multiple/);
  });
});
