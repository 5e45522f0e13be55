// `export --to x.csv` then `import x.csv` is a round trip (issue 18 item 3): over generated
// ctables of every dtype the library writes (bool, every integer size and byte order, f2/f4/f8
// with NaN, ±Infinity and -0, datetimes of several units with NaT, byte strings with any byte,
// unicode strings with control characters and backslashes, trailing dimensions, and format-2
// variable-length columns), the imported table has the same column names, dtypes, shapes and values.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { FileSystemStore } from "@fmt/fs-adapters/node";
import { parseDtype } from "@fmt/meta";
import type { DType } from "@fmt/meta";
import { createCtable, halfBits, openCtable } from "@fmt/store";
import type { ColumnSpec, CTable } from "@fmt/store";
import { dtypeText } from "../src/output.js";
import { cli } from "./run-cli.js";

const tmp = mkdtempSync(join(tmpdir(), "cli-csv-roundtrip-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));


const NAT = -(2n ** 63n);
const FIXED_DTYPES = [
  "|b1", "|i1", "<i2", ">i2", "<i4", ">i4", "<i8", ">i8", "|u1", "<u2", ">u2", "<u4", "<u8", ">u8",
  "<f2", ">f2", "<f4", ">f4", "<f8", ">f8", "<M8[ns]", ">M8[us]", "<M8[s]", "<M8[D]", "<M8[Y]",
  "|S1", "|S4", "|S9", "<U1", "<U3", ">U5",
];
const notSurrogate = fc.integer({ min: 1, max: 0x10ffff }).filter((c) => c < 0xd800 || c > 0xdfff).map((c) => String.fromCodePoint(c));
// Characters the text form escapes or quotes, mixed with any others.
const tricky = fc.constantFrom("\\", ",", '"', "\n", "\r", "\t", "\x00", "\x7f", " ", "x", "é", "Ω", "😀", "\u2028");
const text = (maxLength: number): fc.Arbitrary<string> => fc.string({ unit: fc.oneof(tricky, notSurrogate), maxLength });
const float = fc.oneof(fc.double(), fc.constantFrom(NaN, Infinity, -Infinity, -0, 0, 1.1, 5e-324, 65504, 1e300));

/** One element of `dtype` written at `off` in `view`. */
function elementArb(dtype: DType): fc.Arbitrary<(view: DataView, off: number) => void> {
  const le = dtype.byteOrder !== ">";
  switch (dtype.kind) {
    case "b":
      return fc.boolean().map((b) => (v, o) => v.setUint8(o, b ? 1 : 0));
    case "i":
    case "u": {
      const bits = BigInt(dtype.itemsize * 8);
      const min = dtype.kind === "i" ? -(1n << (bits - 1n)) : 0n;
      const max = dtype.kind === "i" ? (1n << (bits - 1n)) - 1n : (1n << bits) - 1n;
      return fc.oneof(fc.bigInt({ min, max }), fc.constantFrom(min, max, 0n)).map((x) => (v, o) => {
        const u = BigInt.asUintN(Number(bits), x);
        if (dtype.itemsize === 1) v.setUint8(o, Number(u));
        else if (dtype.itemsize === 2) v.setUint16(o, Number(u), le);
        else if (dtype.itemsize === 4) v.setUint32(o, Number(u), le);
        else v.setBigUint64(o, u, le);
      });
    }
    case "f":
      return float.map((x) => (v, o) => {
        if (dtype.itemsize === 8) v.setFloat64(o, x, le);
        else if (dtype.itemsize === 4) v.setFloat32(o, x, le);
        else v.setUint16(o, halfBits(x), le);
      });
    case "M":
      return fc.oneof(fc.constant(NAT), fc.bigInt({ min: NAT + 1n, max: -NAT - 1n }), fc.bigInt({ min: -1000n, max: 1000n })).map((x) => (v, o) => v.setBigInt64(o, x, le));
    case "S":
      return fc.uint8Array({ maxLength: dtype.itemsize }).map((bytes) => (v, o) => new Uint8Array(v.buffer, v.byteOffset + o, bytes.length).set(bytes));
    case "U":
      return text(dtype.itemsize / 4).map((s) => (v, o) => {
        let k = 0;
        for (const ch of s) if (k < dtype.itemsize / 4) v.setUint32(o + 4 * k++, ch.codePointAt(0)!, le);
      });
    default:
      throw new Error(`no generator for ${dtype.str}`);
  }
}

/** A column of `rows` rows: a fixed dtype (with trailing dimensions for non-strings) or, in format 2, a variable-length one. */
function columnArb(name: string, rows: number, formatVersion: 1 | 2): fc.Arbitrary<ColumnSpec> {
  const fixed = fc.constantFrom(...FIXED_DTYPES).chain((str) => {
    const dtype = parseDtype(str);
    const shapes = dtype.kind === "S" || dtype.kind === "U" ? [[]] : [[], [], [2], [2, 3]];
    return fc.constantFrom(...shapes).chain((trailing) => {
      const items = rows * trailing.reduce((a, b) => a * b, 1);
      return fc.array(elementArb(dtype), { minLength: items, maxLength: items }).map((writers): ColumnSpec => {
        const bytes = new Uint8Array(items * dtype.itemsize);
        const view = new DataView(bytes.buffer);
        writers.forEach((w, k) => w(view, k * dtype.itemsize));
        return { name, data: { bytes }, options: { dtype: str, shape: trailing } };
      });
    });
  });
  if (formatVersion === 1) return fixed;
  const n = { minLength: rows, maxLength: rows };
  return fc.oneof(
    fixed,
    fc.array(text(12), n).map((data): ColumnSpec => ({ name, vtype: "utf8", data })),
    fc.array(fc.uint8Array({ maxLength: 6 }), n).map((data): ColumnSpec => ({ name, vtype: "bytes", data })),
    fc.array(fc.array(fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }), { maxLength: 4 }), n).map((data): ColumnSpec => ({ name, vtype: "ragged", data: data.map((a) => Int32Array.from(a)), options: { dtype: "<i4" } })),
    fc.array(fc.array(float, { maxLength: 3 }), n).map((data): ColumnSpec => ({ name, vtype: "ragged", data: data.map((a) => Float64Array.from(a)), options: { dtype: "<f8" } })),
  );
}

const tableArb = fc.record({ rows: fc.integer({ min: 0, max: 7 }), columns: fc.integer({ min: 1, max: 4 }), formatVersion: fc.constantFrom<1 | 2>(1, 2) }).chain(({ rows, columns, formatVersion }) =>
  fc.tuple(...Array.from({ length: columns }, (_, i) => columnArb(`c${i}`, rows, formatVersion))).map((specs) => ({ formatVersion, specs })),
);

/** Comparable form of decoded values: NaN, -0, bigints and bytes spelled out. */
function plain(value: unknown): unknown {
  if (typeof value === "number") return Number.isNaN(value) ? "NaN" : Object.is(value, -0) ? "-0" : value;
  if (typeof value === "bigint") return `${value}n`;
  if (value instanceof Uint8Array && !(value instanceof Uint8ClampedArray)) return { bytes: Array.from(value) };
  if (ArrayBuffer.isView(value)) return Array.from(value as unknown as ArrayLike<unknown>, plain);
  if (Array.isArray(value)) return value.map(plain);
  return value;
}

/** Names, dtypes, shapes and every value of a ctable. */
async function snapshot(t: CTable): Promise<unknown> {
  const values = await t.readRows(0, t.length);
  return {
    length: t.length,
    columns: t.names.map((n) => {
      const c = t.column(n);
      // bool values stay bytes in the library (0/1), compared as such.
      const v = values[n];
      return { name: n, dtype: dtypeText(c), trailing: c.kind === "carray" ? c.shape.slice(1) : [], values: c.dtype.kind === "b" && v instanceof Uint8Array ? Array.from(v) : plain(v) };
    }),
  };
}

let run = 0;
describe("CSV export → import round trip", () => {
  it("keeps every column's name, dtype, shape and values (property)", async () => {
    await fc.assert(
      fc.asyncProperty(tableArb, async ({ formatVersion, specs }) => {
        const k = run++;
        const src = join(tmp, `src-${k}.bcolz`);
        const t = await createCtable(new FileSystemStore(src), "", specs, { formatVersion });
        await t.close();
        const csv = join(tmp, `t-${k}.csv`);
        const exported = await cli("export", src, "--to", csv, "--no-progress");
        expect(exported.code, exported.stderr).toBe(0);
        const back = join(tmp, `back-${k}.bcolz`);
        const imported = await cli("import", csv, back);
        expect(imported.code, `${imported.stderr}\n${readFileSync(csv, "utf8")}`).toBe(0);
        const [a, b] = [await openCtable(new FileSystemStore(src)), await openCtable(new FileSystemStore(back))];
        expect(await snapshot(b)).toEqual(await snapshot(a));
        // And the CSV of the imported table is the same file.
        const again = join(tmp, `again-${k}.csv`);
        expect((await cli("export", back, "--to", again, "--no-progress")).code).toBe(0);
        expect(readFileSync(again, "utf8")).toBe(readFileSync(csv, "utf8"));
        for (const p of [src, back, csv, again]) rmSync(p, { recursive: true, force: true });
      }),
      { numRuns: 60 },
    );
  });

  it("a carray round-trips too (its header is one typed cell without a name): real bcolz files, values compared with bcolz's", async () => {
    const corpus = join(import.meta.dirname, "../../../conformance/corpus/v1");
    const cases = [
      ["bcolz-real", "carray_i4_n5000_cl1024", ":<i4"],
      ["bcolz-real", "carray_M8_ns_n2500_cl900", ":<M8[ns]"],
      ["bcolz-real", "carray_S7_n3000_cl800", ":|S7"],
      ["bcolz-real", "carray_b1_n7777_cl2500", ":|b1"],
      ["numpy-synth", "be_f8", ":>f8"],
      ["numpy-synth", "multidim_i2_n_2_4", "\":<i2(2,4)\""],
    ] as const;
    for (const [set, name, header] of cases) {
      const csv = join(tmp, `${name}.csv`);
      expect((await cli("export", join(corpus, set, name, "data.bcolz"), "--to", csv, "--no-progress")).code).toBe(0);
      expect(readFileSync(csv, "utf8").split("\n")[0], name).toBe(header);
      const back = join(tmp, `${name}-back.bcolz`);
      const imported = await cli("import", csv, back);
      expect(imported.code, `${name}: ${imported.stderr}`).toBe(0);
      // The values read back, against the values real bcolz (or numpy) wrote.
      expect((await cli("export", back, "--to", join(tmp, `${name}.npy`), "--no-progress")).code).toBe(0);
      const npy = readFileSync(join(tmp, `${name}.npy`));
      const headerLength = 10 + npy.readUInt16LE(8);
      const expected = readFileSync(join(corpus, set, name, "expected", "values.bin"));
      const body = npy.subarray(headerLength);
      if (header.startsWith(":>")) {
        // The .npy keeps the big-endian dtype; expected values are little-endian.
        for (let i = 0; i < body.length; i += 8) body.subarray(i, i + 8).reverse();
      }
      expect(Buffer.compare(body, expected), name).toBe(0);
    }
  });

  it("the issue's cases: M8[ns] stays a datetime, byte strings are escaped once, int32 and float32 stay narrow", async () => {
    const src = join(tmp, "issue.bcolz");
    const t = await createCtable(new FileSystemStore(src), "", [
      { name: "when", data: new BigInt64Array([1500000002101793870n, NAT]), options: { dtype: "<M8[ns]" } },
      { name: "raw", data: [Uint8Array.of(0x61, 0x5c, 0x0a, 0xff), new Uint8Array(0)], options: { dtype: "|S4" } },
      { name: "n", data: new Int32Array([7, -8]), options: { dtype: "<i4" } },
      { name: "x", data: new Float32Array([1.1, NaN]), options: { dtype: "<f4" } },
      { name: "ok", data: [true, false], options: { dtype: "|b1" } },
      { name: "s", data: ["a\\b", ""], options: { dtype: "<U3" } },
    ]);
    await t.close();
    const csv = join(tmp, "issue.csv");
    expect((await cli("export", src, "--to", csv, "--no-progress")).code).toBe(0);
    expect(readFileSync(csv, "utf8")).toBe(
      "when:<M8[ns],raw:|S4,n:<i4,x:<f4,ok:|b1,s:<U3\n" + "1500000002101793870ns,a\\x5c\\x0a\\xff,7,1.1,True,a\\x5cb\n" + "-9223372036854775808ns,,-8,NaN,False,\n",
    );
    const back = join(tmp, "issue-back.bcolz");
    expect((await cli("import", csv, back)).code).toBe(0);
    const b = await openCtable(new FileSystemStore(back));
    expect(b.names.map((n) => b.column(n).dtype.str)).toEqual(["<M8[ns]", "|S4", "<i4", "<f4", "|b1", "<U3"]);
    const rows = await b.readRows(0, 2);
    expect(rows["when"]).toEqual(new BigInt64Array([1500000002101793870n, NAT]));
    expect(rows["raw"]).toEqual([Uint8Array.of(0x61, 0x5c, 0x0a, 0xff), new Uint8Array(0)]);
    expect(rows["s"]).toEqual(["a\\b", ""]);
  });

  it("a typed header also reads NaT, lowercase booleans and counts without the unit; a bad cell names its line and column", async () => {
    const csv = join(tmp, "hand.csv");
    writeFileSync(csv, "t:<M8[s],b:|b1,f:<f8\nNaT,true,-0\n42,false,inf\n");
    const dir = join(tmp, "hand.bcolz");
    expect((await cli("import", csv, dir)).code).toBe(0);
    const t = await openCtable(new FileSystemStore(dir));
    const rows = await t.readRows(0, 2);
    expect(rows["t"]).toEqual(new BigInt64Array([NAT, 42n]));
    expect(Array.from(rows["b"] as Uint8Array)).toEqual([1, 0]);
    expect(Object.is((rows["f"] as Float64Array)[0], -0)).toBe(true);
    writeFileSync(csv, "n:<i2\n1\n40000\n");
    const r = await cli("import", csv, join(tmp, "bad.bcolz"));
    expect([r.code, r.stderr]).toEqual([2, 'error INVALID_ARGUMENT: field source: CSV line 3, column "n": 40000 does not fit <i2 (-32768..32767)\n']);
  });
});
