// Arrow → ctable: tables built with apache-arrow's own builders, IPC stream and file bytes (also
// read piece by piece), nulls, and a seeded property test: generated columns of every mapped type
// go Arrow → ctable → Arrow and come back equal, and the ctable's values equal the Arrow input.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  Bool,
  DateDay,
  Field,
  FixedSizeList,
  Float16,
  Float32,
  Float64,
  Int16,
  Int32,
  Int64,
  Int8,
  makeData,
  makeVector,
  RecordBatch,
  Schema,
  Table,
  tableFromArrays,
  tableToIPC,
  TimestampMicrosecond,
  Type,
  TimestampNanosecond,
  Uint16,
  Uint32,
  Uint64,
  Uint8,
  Utf8,
  vectorFromArray,
} from "apache-arrow";
import type { DataType, Vector } from "apache-arrow";
import { MemoryStore } from "@fmt/fs-adapters";
import { isBcolzError } from "@fmt/errors";
import { openCtable } from "@fmt/store";
import { importArrow, tableToArrow } from "../src/index.js";
import { seedFrom } from "../../../tools/test-seed.js";
import { tableCells } from "./helpers.js";

// The run's TEST_SEED (tools/test-seed.ts), or ARROW_SEED for this file alone: any failure replays.
const SEED = seedFrom("ARROW_SEED");

/** A timestamp vector of raw counts (apache-arrow's builders take milliseconds as numbers). */
function timestamps(values: readonly (bigint | null)[], type: DataType): Vector {
  const data = BigInt64Array.from(values, (v) => v ?? 0n);
  const nulls = new Uint8Array(Math.ceil(values.length / 8));
  values.forEach((v, i) => {
    if (v !== null) nulls[i >> 3]! |= 1 << (i & 7);
  });
  const nullCount = values.filter((v) => v === null).length;
  return makeVector(makeData({ type: type as TimestampNanosecond, length: values.length, data, nullCount, ...(nullCount > 0 ? { nullBitmap: nulls } : {}) }));
}

function sample(): Table {
  return new Table({
    i8: vectorFromArray([-128, 0, 127], new Int8()),
    u64: vectorFromArray([0n, 2n ** 64n - 1n, 5n], new Uint64()),
    f32: vectorFromArray([1.5, NaN, -0], new Float32()),
    f64: vectorFromArray([Infinity, 2.25, -1e300], new Float64()),
    ok: vectorFromArray([true, false, true], new Bool()),
    ts: timestamps([0n, 1500000000000000000n, -5n], new TimestampNanosecond()),
    day: vectorFromArray([new Date(0), new Date(86400000 * 365), new Date(-86400000)], new DateDay()),
    name: vectorFromArray(["", "héllo", "😀😀"], new Utf8()),
    xy: vectorFromArray([[1, 2], [3, 4], [5, 6]], new FixedSizeList(2, new Field("item", new Float64(), false))),
  });
}

describe("Arrow → ctable", () => {
  it("maps the Arrow types to dtypes and keeps every value (format 1)", async () => {
    const store = new MemoryStore();
    const source = sample();
    const t = await importArrow(source, store, "t");
    expect(t.columns.map((c) => c.dtype.str)).toEqual(["|i1", "<u8", "<f4", "<f8", "|b1", "<M8[ns]", "<M8[D]", "<U5", "<f8"]);
    expect(t.column("xy").shape).toEqual([3, 2]);
    const rows = await t.readRows();
    expect(Array.from(rows["i8"] as Int8Array)).toEqual([-128, 0, 127]);
    expect(Array.from(rows["u64"] as BigUint64Array)).toEqual([0n, 2n ** 64n - 1n, 5n]);
    expect(Array.from(rows["f32"] as Float32Array)).toEqual([1.5, NaN, -0]);
    expect(Array.from(rows["ok"] as Uint8Array)).toEqual([1, 0, 1]);
    expect(Array.from(rows["ts"] as BigInt64Array)).toEqual([0n, 1500000000000000000n, -5n]);
    expect(Array.from(rows["day"] as BigInt64Array)).toEqual([0n, 365n, -1n]);
    expect(rows["name"]).toEqual(["", "héllo", "😀😀"]);
    expect(Array.from(rows["xy"] as Float64Array)).toEqual([1, 2, 3, 4, 5, 6]);
    await t.close();
    // And back to Arrow: the same cells (DateDay stays days: M8[D] → Date32).
    expect(tableCells(await tableToArrow(await openCtable(store, "t")))).toEqual(tableCells(source));
  });

  it("makes format-2 string columns variable-length", async () => {
    const store = new MemoryStore();
    const t = await importArrow(sample(), store, "t2", { formatVersion: 2 });
    expect(t.formatVersion).toBe(2);
    const name = t.column("name");
    expect(name.kind === "vlarray" ? name.vtype : "carray").toBe("utf8");
    expect(await t.readColumn("name")).toEqual(["", "héllo", "😀😀"]);
    await t.close();
  });

  it("imports IPC stream and file bytes, whole or as an async iterable of pieces", async () => {
    const source = sample();
    for (const format of ["stream", "file"] as const) {
      const bytes = tableToIPC(source, format);
      const t = await importArrow(bytes, new MemoryStore(), "t");
      expect(tableCells(await tableToArrow(t))).toEqual(tableCells(source));
      await t.close();
    }
    const bytes = tableToIPC(source, "stream");
    async function* pieces(): AsyncGenerator<Uint8Array> {
      for (let i = 0; i < bytes.length; i += 37) yield bytes.subarray(i, i + 37);
    }
    // An async source is read once: string lengths must be given for format 1.
    await expect(importArrow(pieces(), new MemoryStore(), "t")).rejects.toSatisfy((e: unknown) => isBcolzError(e, "INVALID_ARGUMENT") && (e as { field?: string }).field === "stringLength");
    const t = await importArrow(pieces(), new MemoryStore(), "t", { stringLength: { name: 5 } });
    expect(tableCells(await tableToArrow(t))).toEqual(tableCells(source));
    await t.close();
    // Format 2 needs no lengths.
    const t2 = await importArrow(pieces(), new MemoryStore(), "t", { formatVersion: 2 });
    expect(await t2.readColumn("name")).toEqual(["", "héllo", "😀😀"]);
    await t2.close();
  });

  it("appends batch by batch", async () => {
    const schema = new Schema([new Field("x", new Int32(), false), new Field("s", new Utf8(), false)]);
    const batches = Array.from({ length: 5 }, (_, b) => new RecordBatch(schema, new Table({ x: vectorFromArray(Int32Array.from({ length: 1000 }, (_, i) => b * 1000 + i)), s: vectorFromArray(Array.from({ length: 1000 }, (_, i) => "x".repeat((b + i) % 7)), new Utf8()) }).batches[0]!.data));
    const t = await importArrow(batches, new MemoryStore(), "t", { chunklen: 300 });
    expect(t.length).toBe(5000);
    expect(t.column("s").dtype.str).toBe("<U6");
    expect(Array.from((await t.readColumn("x")) as Int32Array)).toEqual(Array.from({ length: 5000 }, (_, i) => i));
    await t.close();
  });

  it("refuses nulls unless a fill is given; timestamps take NaT", async () => {
    const withNulls = new Table({
      x: vectorFromArray([1, null, 3], new Int32()),
      s: vectorFromArray(["a", null, "ccc"], new Utf8()),
      ts: timestamps([5n, null, 7n], new TimestampMicrosecond()),
    });
    await expect(importArrow(withNulls, new MemoryStore(), "t")).rejects.toSatisfy((e: unknown) => isBcolzError(e, "INVALID_ARGUMENT") && /null/.test((e as Error).message));
    const t = await importArrow(withNulls, new MemoryStore(), "t", { nullFill: { x: -1, s: "?" } });
    const rows = await t.readRows();
    expect(Array.from(rows["x"] as Int32Array)).toEqual([1, -1, 3]);
    expect(rows["s"]).toEqual(["a", "?", "ccc"]);
    expect(Array.from(rows["ts"] as BigInt64Array)).toEqual([5n, -(2n ** 63n), 7n]);
    await t.close();
  });

  it("creates an empty table from a Table without rows", async () => {
    const empty = new Table(new Schema([new Field("x", new Float64(), false), new Field("s", new Utf8(), false)]));
    const t = await importArrow(empty, new MemoryStore(), "t");
    expect([t.length, t.names, t.columns.map((c) => c.dtype.str)]).toEqual([0, ["x", "s"], ["<f8", "<U1"]]);
    await t.close();
  });

  it("refuses Arrow types without a dtype", async () => {
    const t = new Table({ d: vectorFromArray([{ a: 1 }] as never[]) });
    await expect(importArrow(t, new MemoryStore(), "t")).rejects.toSatisfy((e: unknown) => isBcolzError(e, "UNSUPPORTED_DTYPE"));
  });
});

// ---- property: generated columns through Arrow → ctable → Arrow ----

type Gen = { type: DataType; values: fc.Arbitrary<unknown> };
const gens: Gen[] = [
  { type: new Int8(), values: fc.integer({ min: -128, max: 127 }) },
  { type: new Int16(), values: fc.integer({ min: -32768, max: 32767 }) },
  { type: new Int32(), values: fc.integer() },
  { type: new Int64(), values: fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }) },
  { type: new Uint8(), values: fc.integer({ min: 0, max: 255 }) },
  { type: new Uint16(), values: fc.integer({ min: 0, max: 65535 }) },
  { type: new Uint32(), values: fc.integer({ min: 0, max: 2 ** 32 - 1 }) },
  { type: new Uint64(), values: fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }) },
  { type: new Float16(), values: fc.oneof(fc.constantFrom(0, -0, 1.5, 65504, NaN, Infinity, -Infinity), fc.integer({ min: -2048, max: 2048 })) },
  { type: new Float32(), values: fc.float() },
  { type: new Float64(), values: fc.double() },
  { type: new Bool(), values: fc.boolean() },
  { type: new TimestampNanosecond(), values: fc.bigInt({ min: -(2n ** 63n) + 1n, max: 2n ** 63n - 1n }) },
  { type: new Utf8(), values: fc.string({ unit: "grapheme", maxLength: 6 }) },
];

const tableArb = fc.record({ rows: fc.integer({ min: 1, max: 40 }), picks: fc.array(fc.integer({ min: 0, max: gens.length - 1 }), { minLength: 1, maxLength: 5 }), formatVersion: fc.constantFrom<1 | 2>(1, 2) }).chain(({ rows, picks, formatVersion }) =>
  fc.tuple(...picks.map((g) => fc.array(gens[g]!.values, { minLength: rows, maxLength: rows }))).map((columns) => ({ picks, columns, formatVersion })),
);

describe("Arrow round trip (property)", () => {
  it("Arrow → ctable → Arrow keeps every generated column", async () => {
    await fc.assert(
      fc.asyncProperty(tableArb, async ({ picks, columns, formatVersion }) => {
        const vectors = Object.fromEntries(picks.map((g, i) => [`c${i}`, gens[g]!.type.typeId === Type.Timestamp ? timestamps(columns[i] as bigint[], gens[g]!.type) : vectorFromArray(columns[i] as never[], gens[g]!.type)]));
        const source = new Table(vectors);
        const t = await importArrow(source, new MemoryStore(), "t", { formatVersion, chunklen: 7 });
        const back = await tableToArrow(t);
        expect(back.schema.fields.map((f) => String(f.type))).toEqual(source.schema.fields.map((f) => String(f.type)));
        expect(tableCells(back)).toEqual(tableCells(source));
        await t.close();
      }),
      { seed: SEED, numRuns: 150 },
    );
  });

  it("undoes the dictionary encoding of tableFromArrays strings", async () => {
    const t = await importArrow(tableFromArrays({ s: ["ab", "c", "ab"] }), new MemoryStore(), "t");
    expect(t.column("s").dtype.str).toBe("<U2");
    expect(await t.readColumn("s")).toEqual(["ab", "c", "ab"]);
    await t.close();
  });

  it("an Arrow vector built by makeVector is imported without a builder", async () => {
    const v = makeVector(new Float64Array([1, 2, 3]));
    const t = await importArrow(new Table({ v }), new MemoryStore(), "t");
    expect(Array.from((await t.readColumn("v")) as Float64Array)).toEqual([1, 2, 3]);
    await t.close();
  });
});
