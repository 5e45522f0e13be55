// CTable.where for a query that is one comparison of a column with a constant, counted or listed
// whole: the table compares the column as it is stored (compareColumn), byte-shuffled chunks on
// their byte planes. The expected rows come from comparing the values this test wrote, in
// JavaScript. Every numeric dtype, both format versions, every codec and shuffle (the chunks the
// plane kernel declines are decoded and compared instead), chunks of several blocks, a leftover
// chunk, rows a writer still holds in memory, start/stop, constants tied with stored values.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it, vi } from "vitest";
import { UsageError } from "@fmt/errors";
import { MemoryStore } from "@fmt/fs-adapters";
import { FileSystemStore } from "@fmt/fs-adapters/node";
import { createCtable, openCarray, openCtable } from "@fmt/store";
import type { CTable } from "@fmt/store";
import { datasetDir, expectedBytes, expectedValues, manifest, memoryCopy } from "./helpers.js";

type Op = "==" | "!=" | "<" | "<=" | ">" | ">=";
const OPS: readonly Op[] = ["==", "!=", "<", "<=", ">", ">="];
const MIRROR: { readonly [op in Op]: Op } = { "==": "==", "!=": "!=", "<": ">", "<=": ">=", ">": "<", ">=": "<=" };

interface Column {
  dtype: string;
  /** The stored values from 64-bit patterns (a walk: neighbours share their top bytes). */
  make(bits: bigint[]): ArrayLike<number | bigint> & { buffer: ArrayBufferLike };
  /** Whether the plane kernel may take it (little-endian, a kind and size it compares). */
  planes: boolean;
}

const COLUMNS: Column[] = [
  { dtype: "|i1", make: (b) => Int8Array.from(b, (x) => Number(BigInt.asIntN(8, x))), planes: true },
  { dtype: "|u1", make: (b) => Uint8Array.from(b, (x) => Number(BigInt.asUintN(8, x))), planes: true },
  { dtype: "<i2", make: (b) => Int16Array.from(b, (x) => Number(BigInt.asIntN(16, x))), planes: true },
  { dtype: "<u2", make: (b) => Uint16Array.from(b, (x) => Number(BigInt.asUintN(16, x))), planes: true },
  { dtype: "<i4", make: (b) => Int32Array.from(b, (x) => Number(BigInt.asIntN(32, x))), planes: true },
  { dtype: "<u4", make: (b) => Uint32Array.from(b, (x) => Number(BigInt.asUintN(32, x))), planes: true },
  { dtype: "<i8", make: (b) => BigInt64Array.from(b, (x) => BigInt.asIntN(64, x)), planes: true },
  { dtype: "<f4", make: (b) => new Float32Array(Uint32Array.from(b, (x) => Number(BigInt.asUintN(32, x))).buffer), planes: true },
  { dtype: "<f8", make: (b) => new Float64Array(BigUint64Array.from(b, (x) => BigInt.asUintN(64, x)).buffer), planes: true },
  { dtype: ">i4", make: (b) => Int32Array.from(b, (x) => Number(BigInt.asIntN(32, x))), planes: false },
];

function holds(op: Op, a: number | bigint, b: number | bigint): boolean {
  return op === "==" ? a === b : op === "!=" ? a !== b : op === "<" ? a < b : op === "<=" ? a <= b : op === ">" ? a > b : a >= b;
}

/**
 * A seeded generator of 32-bit values, random in every bit (mulberry32): the low bits of a linear
 * congruential generator are not, and low byte planes made of them compress.
 */
function mulberry32(seed: number): () => number {
  let s = seed;
  return () => {
    s = (s + 0x6d2b79f5) | 0;
    let r = Math.imul(s ^ (s >>> 15), 1 | s);
    r ^= r + Math.imul(r ^ (r >>> 7), 61 | r);
    return (r ^ (r >>> 14)) >>> 0;
  };
}

/** A constant as expression text: an integer, or a float that reads back as the same double. */
function literal(value: number | bigint, integer = false): string {
  if (typeof value === "bigint" || integer) return String(value);
  const text = String(value);
  return /[.e]/.test(text) ? text : `${text}.0`;
}

/** 64-bit patterns: a walk of small steps around a random start, jumps, and float specials. */
function patterns(n: number, seed: number, dtype: string): bigint[] {
  let s = seed >>> 0;
  const next = (): number => (s = (Math.imul(s, 1103515245) + 12345) >>> 0);
  // Floats walk in their top bits' neighbourhood of 1.0 (so ties reach the low planes), with NaN,
  // ±0 and ±∞ among them.
  const float = dtype.endsWith("f8") ? 0x3ff0000000000000n : dtype.endsWith("f4") ? 0x3f800000n : undefined;
  const specials = dtype.endsWith("f8") ? [0x7ff8000000000000n, 0n, 0x8000000000000000n, 0x7ff0000000000000n, 0xfff0000000000000n] : [0x7fc00000n, 0n, 0x80000000n, 0x7f800000n, 0xff800000n];
  let walk = float ?? BigInt(next() % 2000) - 1000n;
  const out: bigint[] = [];
  for (let i = 0; i < n; i++) {
    const r = next() % 20;
    if (r < 15) walk += BigInt((next() % 7) - 3) * (float === undefined ? 1n : 1n << BigInt(next() % 40));
    else if (r < 18) walk = (float ?? 0n) + BigInt(next() % 100_000) * (next() % 2 === 0 ? 1n : -1n);
    out.push(r === 19 && float !== undefined ? specials[next() % specials.length]! : walk);
  }
  return out;
}

/** Spies on compareColumn: what it answered, call by call. */
function spyOnCompare(table: CTable): boolean[] {
  const answers: boolean[] = [];
  const original = table.compareColumn.bind(table);
  vi.spyOn(table, "compareColumn").mockImplementation(async (...args) => {
    const answer = await original(...args);
    answers.push(answer);
    return answer;
  });
  return answers;
}

describe("where: one comparison of a stored column", () => {
  const scenario = fc.record({
    column: fc.constantFrom(...COLUMNS),
    n: fc.oneof(fc.integer({ min: 0, max: 400 }), fc.integer({ min: 400, max: 40_000 })),
    seed: fc.integer(),
    chunklen: fc.constantFrom(7, 100, 1000, 4096, 16_384),
    cparams: fc.constantFrom(
      { cname: "lz4", shuffle: 1, clevel: 5 },
      { cname: "blosclz", shuffle: 1, clevel: 9 },
      { cname: "lz4", shuffle: 1, clevel: 1 },
      { cname: "zlib", shuffle: 1, clevel: 5 },
      { cname: "lz4", shuffle: 0, clevel: 5 },
      { cname: "lz4", shuffle: 2, clevel: 5 },
      { cname: "lz4", shuffle: 1, clevel: 0 },
    ),
    formatVersion: fc.constantFrom(1 as const, 2 as const),
    op: fc.constantFrom(...OPS),
    constantOnLeft: fc.boolean(),
    pick: fc.nat(),
    unflushed: fc.integer({ min: 0, max: 50 }),
    range: fc.option(fc.tuple(fc.nat(), fc.nat()), { nil: undefined }),
  });

  it("counts and lists the rows comparing the written values would (property)", async () => {
    await fc.assert(
      fc.asyncProperty(scenario, async ({ column, n, seed, chunklen, cparams, formatVersion, op, constantOnLeft, pick, unflushed, range }) => {
        const all = column.make(patterns(n + unflushed, seed, column.dtype)) as unknown as Int32Array;
        const values = Array.from(all as ArrayLike<number | bigint>);
        const store = new MemoryStore();
        const table = await createCtable(store, "t", [{ name: "x", data: all.subarray(0, n), options: { dtype: column.dtype, chunklen, cparams } }], { formatVersion });
        // Rows appended and not flushed stay in the writer's memory (a leftover chunk).
        if (unflushed > 0) await table.append({ x: all.subarray(n) });
        // A constant tied with a stored value, or next to one; finite, and not zero for floats.
        let constant: number | bigint = values.length === 0 ? 1 : values[pick % values.length]!;
        if (column.dtype[1] === "f" && (!Number.isFinite(constant) || constant === 0)) constant = 1.5;
        if (column.dtype.endsWith("f4")) constant = Math.fround(constant as number);
        const integer = column.dtype[1] !== "f";
        const text = constantOnLeft ? `${literal(constant, integer)} ${MIRROR[op]} x` : `x ${op} ${literal(constant, integer)}`;
        const [start, stop] = range === undefined ? [0, values.length] : [Math.min(range[0], range[1]) % (values.length + 1), Math.max(range[0], range[1]) % (values.length + 1)];
        const expected: number[] = [];
        for (let i = start; i < Math.max(start, stop); i++) if (holds(op, values[i]!, constant)) expected.push(i);
        const answers = spyOnCompare(table);
        const options = range === undefined ? {} : { start, stop };
        expect(await table.where(text, { ...options, as: "count" })).toBe(expected.length);
        expect(Array.from(await table.where(text, options))).toEqual(expected);
        if (start < stop) expect(answers).toEqual(column.planes ? [true, true] : [false, false]);
        await table.close();
        // Read back from the store (no writer), as a reader would.
        const reopened = await openCtable(store, "t");
        expect(await reopened.where(text, { ...options, as: "count" })).toBe(expected.length);
      }),
      { numRuns: 150 },
    );
  });

  it("compares the chunks of a large float64 column on their planes, in both formats", async () => {
    const n = 200_000;
    const values = new Float64Array(n);
    let v = 0;
    for (let i = 0; i < n; i++) values[i] = v += Math.sin(i * 0.37) * 3;
    for (const formatVersion of [1, 2] as const) {
      const store = new MemoryStore();
      const t = await createCtable(store, "t", [{ name: "f64", data: values, options: { chunklen: 65_536 } }], { formatVersion });
      await t.close();
      const table = await openCtable(store, "t");
      const answers = spyOnCompare(table);
      for (const [op, c] of [[">", 12.25], ["<=", -40.5], ["==", values[77_777]!]] as const) {
        const expected: number[] = [];
        for (let i = 0; i < n; i++) if (holds(op, values[i]!, c)) expected.push(i);
        expect(await table.where(`f64 ${op} ${literal(c)}`, { as: "count" })).toBe(expected.length);
        expect(Array.from(await table.where(`f64 ${op} ${literal(c)}`))).toEqual(expected);
      }
      expect(answers.every((a) => a)).toBe(true);
    }
  });

  it("reads only the top byte planes of float64 chunk files where that decides (format 1)", async () => {
    const n = 6 * 65_536 + 1000;
    const values = new Float64Array(n);
    let v = 100;
    for (let i = 0; i < n; i++) values[i] = v += Math.sin(i * 0.37) * 3 + Math.cos(i * 0.011);
    const store = new MemoryStore();
    const t = await createCtable(store, "t", [{ name: "f64", data: values, options: { chunklen: 65_536 } }]);
    await t.close();
    // Bytes the chunk files hand out, whole or as windows.
    let read = 0;
    const get = store.get.bind(store);
    const getRanges = store.getRanges.bind(store);
    vi.spyOn(store, "get").mockImplementation(async (key) => {
      const bytes = await get(key);
      if (key.includes("/data/")) read += bytes?.length ?? 0;
      return bytes;
    });
    vi.spyOn(store, "getRanges").mockImplementation(async (key, ranges) => {
      const got = await getRanges(key, ranges);
      if (key.includes("/data/")) read += got?.reduce((a, b) => a + b.length, 0) ?? 0;
      return got;
    });
    const table = await openCtable(store, "t");
    const files = (await store.list("t/f64/data/")).map((k) => store.get(k));
    read = 0;
    const total = (await Promise.all(files)).reduce((a, b) => a + (b?.length ?? 0), 0);
    read = 0;
    for (const [op, c] of [[">", 250.5], ["<", 120.25], ["==", values[300_000]!]] as const) {
      const expected: number[] = [];
      for (let i = 0; i < n; i++) if (holds(op, values[i]!, c)) expected.push(i);
      read = 0;
      expect(Array.from(await table.where(`f64 ${op} ${literal(c)}`))).toEqual(expected);
      expect(await table.where(`f64 ${op} ${literal(c)}`, { as: "count" })).toBe(expected.length);
      // Six full chunks by their top planes, the leftover chunk whole, twice.
      expect(read).toBeLessThan(0.7 * 2 * total);
    }
  });

  it("reads only the top two planes of local chunk files where they decide, into the kernel's memory", async () => {
    // A slow climb with noise, as the bench's walk is within a chunk: the low planes are stored
    // raw, the top two of float64 and float32 values compress well and decide every value of a
    // chunk whose values do not come near the constant's top two bytes; the chunks that do are
    // read again, more of them. Chunk 3's lowest plane is a few hundred bytes short of raw (the
    // size prefixes above it are found all the same); chunk 5's low planes compress well (read
    // whole). A local store reads the windows where they go.
    const chunklen = 65_536;
    const n = 12 * chunklen;
    const f8 = new Float64Array(n);
    const f4 = new Float32Array(n);
    const next = mulberry32(7);
    const random = (): number => next() / 2 ** 32;
    const bits8 = new Uint32Array(f8.buffer);
    const bits4 = new Uint32Array(f4.buffer);
    for (let i = 0; i < n; i++) {
      f8[i] = 100 + i * 0.0005 + random() * 2;
      // Measurement noise in the low half of the mantissa.
      bits8[2 * i] = random() * 2 ** 32;
      f4[i] = Math.fround(f8[i]!);
    }
    for (let i = 3 * chunklen; i < 3 * chunklen + 400; i++) {
      bits8[2 * i] = bits8[2 * i]! & ~0xff;
      bits4[i] = bits4[i]! & ~0xff;
    }
    for (let i = 5 * chunklen; i < 6 * chunklen; i++) {
      bits8[2 * i] = 0;
      bits4[i] = bits4[i]! & ~0xffff;
    }
    const dir = mkdtempSync(join(tmpdir(), "top-planes-"));
    try {
      const store = new FileSystemStore(dir);
      const t = await createCtable(store, "t", [
        { name: "f8", data: f8, options: { chunklen } },
        { name: "f4", data: f4, options: { chunklen } },
      ]);
      await t.close();
      // Bytes read per chunk file, whole or as windows, and the windows read where they were lent.
      const read = new Map<string, number>();
      const count = (key: string, bytes: number): void => void read.set(key, (read.get(key) ?? 0) + bytes);
      let readWhereLent = 0;
      const getRanges = store.getRanges.bind(store);
      vi.spyOn(store, "getRanges").mockImplementation(async (key, ranges, into) => {
        const got = await getRanges(key, ranges, into);
        got?.forEach((part, i) => {
          count(key, part.length);
          const lent = into?.[i];
          if (lent !== undefined && part.length > 0 && part.buffer === lent.buffer && part.byteOffset === lent.byteOffset) readWhereLent++;
        });
        return got;
      });
      const get = store.get.bind(store);
      vi.spyOn(store, "get").mockImplementation(async (key) => {
        const bytes = await get(key);
        if (key.includes("/data/")) count(key, bytes?.length ?? 0);
        return bytes;
      });
      const table = await openCtable(store, "t");
      for (const [column, values] of [["f8", f8], ["f4", f4]] as const) {
        const sizes = await Promise.all(Array.from({ length: 12 }, async (_, g) => (await get(`t/${column}/data/__${g}.blp`))!.length));
        // Each chunk's smallest and largest value, for every constant and operator below.
        const ranges = Array.from({ length: 12 }, (_, g) => {
          let min = Infinity;
          let max = -Infinity;
          for (let i = g * chunklen; i < (g + 1) * chunklen; i++) {
            min = Math.min(min, values[i]!);
            max = Math.max(max, values[i]!);
          }
          return { min, max };
        });
        for (const c of [values[Math.floor(0.75 * n)]!, 300.03125]) {
          for (const op of ["<", ">=", "=="] as const) {
            const expected: number[] = [];
            for (let i = 0; i < n; i++) if (holds(op, values[i]!, c)) expected.push(i);
            read.clear();
            readWhereLent = 0;
            expect(await table.where(`${column} ${op} ${literal(c)}`, { as: "count" })).toBe(expected.length);
            expect(Array.from(await table.where(`${column} ${op} ${literal(c)}`))).toEqual(expected);
            expect(readWhereLent).toBeGreaterThan(0);
            for (let g = 0; g < 12; g++) {
              const bytes = read.get(`t/${column}/data/__${g}.blp`) ?? 0;
              const { min, max } = ranges[g]!;
              if (g === 5) {
                // Its low planes compressed: both readers miss, then the file is read whole.
                expect(bytes).toBeGreaterThan(2 * sizes[g]!);
              } else if (min > c + 32 || max < c - 32) {
                // Decided by the top two planes: a tenth of a float64 file (the top four planes
                // are over a quarter), under half of a float32 file (read whole otherwise), in
                // each of the two passes.
                expect(bytes).toBeLessThan((column === "f8" ? 0.1 : 0.45) * 2 * sizes[g]!);
              }
            }
          }
        }
        // Passes over the same column at once each read into their own memory.
        const constants = [values[Math.floor(0.2 * n)]!, values[Math.floor(0.5 * n)]!, 300.03125, values[Math.floor(0.9 * n)]!];
        const counts = await Promise.all(constants.map((c) => table.where(`${column} > ${literal(c)}`, { as: "count" })));
        const above = (c: number): number => {
          let k = 0;
          for (let i = 0; i < n; i++) if (values[i]! > c) k++;
          return k;
        };
        expect(counts).toEqual(constants.map(above));
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("keeps reading the top two planes when only the top four keep missing", async () => {
    // Every other chunk from the third holds values tied with the constant down to the top four
    // planes: both readers miss it (read whole), and after four such chunks the top-four reader
    // stops being tried. The top-two reader, which decides the chunks between, goes on.
    const chunklen = 65_536;
    const n = 12 * chunklen;
    const c = 300.03125;
    const values = new Float64Array(n);
    const bits = new Uint32Array(values.buffer);
    const random = mulberry32(11);
    for (let i = 0; i < n; i++) {
      values[i] = 100 + (i % chunklen) * 0.0005 + (random() / 2 ** 32) * 2;
      bits[2 * i] = random();
    }
    const tied = [2, 4, 6, 8, 10];
    for (const g of tied) {
      for (let i = g * chunklen; i < g * chunklen + 10; i++) {
        values[i] = c;
        bits[2 * i] = random(); // the same top four bytes as the constant, other low ones
      }
    }
    const store = new MemoryStore();
    const t = await createCtable(store, "t", [{ name: "f64", data: values, options: { chunklen } }]);
    await t.close();
    const getRanges = vi.spyOn(store, "getRanges");
    const get = vi.spyOn(store, "get");
    const table = await openCtable(store, "t");
    const expected = values.reduce((k, v) => k + (v > c ? 1 : 0), 0);
    getRanges.mockClear();
    get.mockClear();
    expect(await table.where(`f64 > ${literal(c)}`, { as: "count" })).toBe(expected);
    const calls = (key: string): number => getRanges.mock.calls.filter(([k]) => k === key).length;
    // Tried by both readers: the first four tied chunks; by the top-two reader alone: the fifth
    // and every chunk between.
    for (let g = 0; g < 12; g++) expect(calls(`t/f64/data/__${g}.blp`)).toBe(tied.includes(g) && g < 10 ? 2 : 1);
    expect(get.mock.calls.filter(([k]) => k.includes("/data/")).map(([k]) => k)).toEqual(tied.map((g) => `t/f64/data/__${g}.blp`));
  });

  it("reads chunks whole whose low planes are compressed, and checks every chunk file's container", async () => {
    // Integer-valued floats: the low planes are all zeros (compressed), so the top-plane read
    // does not apply; after a few such chunks the pass stops trying.
    const n = 12 * 65_536;
    const values = Float64Array.from({ length: n }, (_, i) => (i * 7919) % 1000);
    const store = new MemoryStore();
    const t = await createCtable(store, "t", [{ name: "f64", data: values, options: { chunklen: 65_536 } }]);
    await t.close();
    // Spied before the open: the layout keeps the store's getRanges.
    const getRanges = vi.spyOn(store, "getRanges");
    const table = await openCtable(store, "t");
    const expected = values.reduce((k, v) => k + (v > 500.5 ? 1 : 0), 0);
    expect(await table.where("f64 > 500.5", { as: "count" })).toBe(expected);
    // Each of the two readers (the top two planes, the top four) tried on four chunks.
    expect(getRanges.mock.calls.length).toBe(8);
    // A chunk file whose container header is broken is refused, as a whole read refuses it.
    const walk = new Float64Array(4 * 65_536);
    let v = 0;
    for (let i = 0; i < walk.length; i++) walk[i] = v += Math.sin(i * 0.37) * 3;
    const other = new MemoryStore();
    const u = await createCtable(other, "u", [{ name: "f64", data: walk, options: { chunklen: 65_536 } }]);
    await u.close();
    const broken = (await other.get("u/f64/data/__2.blp"))!.slice();
    broken[1] = 0x58;
    await other.put("u/f64/data/__2.blp", broken);
    const reopened = await openCtable(other, "u");
    await expect(reopened.where("f64 > 1.5", { as: "count" })).rejects.toMatchObject({ path: "u/f64/data/__2.blp" });
    await expect(reopened.readColumn("f64")).rejects.toMatchObject({ path: "u/f64/data/__2.blp" });
  });

  it("leaves other queries to the block-by-block evaluation", async () => {
    const store = new MemoryStore();
    const t = await createCtable(store, "t", [
      { name: "a", data: new Float64Array([1, 2, 3, 4]) },
      { name: "b", data: new Int32Array([4, 3, 2, 1]) },
    ]);
    const answers = spyOnCompare(t);
    expect(await t.where("a > 0.0", { as: "count" })).toBe(4); // a zero float constant
    expect(await t.where("b > 2.5", { as: "count" })).toBe(2); // not an int32 value
    expect(await t.where("a + 1 > 3", { as: "count" })).toBe(2); // arithmetic
    expect(await t.where("(a > 1) & (b > 1)", { as: "count" })).toBe(2); // two comparisons
    expect(await t.where("a > 1", { as: "count", limit: 2 })).toBe(2); // a limit
    expect(await t.where("a > 1", { as: "rows" })).toEqual({ a: new Float64Array([2, 3, 4]), b: new Int32Array([3, 2, 1]) });
    // Only the first two are one comparison of a stored column, which compareColumn declined.
    expect(answers).toEqual([false, false]);
    expect(await t.where("b > 2", { as: "count" })).toBe(2);
    expect(await t.where("b > 2.0", { as: "count" })).toBe(2); // in float64, which holds every int32
    expect(answers).toEqual([false, false, true, true]);
  });

  it("compares the chunks real bcolz 1.2.1 wrote (c-blosc 1.14) as their expected values do", async () => {
    let compared = 0;
    for (const c of manifest.cases) {
      const columns = c.kind === "carray" ? [{ dtype: c.dtype, shape: c.shape, values: () => expectedBytes(c, "values.bin", c.expected["values.bin"].sha256), open: () => openCarray(memoryCopy(datasetDir(c))) }] : [];
      for (const { dtype, shape, values, open } of columns) {
        if (shape.length > 1 || !/^[<|][iuf][1248]$/.test(dtype) || dtype === "<u8" || dtype === "<f1") continue;
        const array = await open();
        const stored = expectedValues(values(), dtype) as (number | bigint)[];
        if (stored.length === 0) continue;
        for (const op of OPS) {
          const constant = stored[Math.floor(stored.length / 3)]!;
          if (typeof constant === "number" && (!Number.isFinite(constant) || constant === 0)) continue;
          let matches = 0;
          const mask: number[] = [];
          const answered = await array.compareStored({ column: "", op, value: constant }, { start: 0, stop: array.length, masks: true }, (first, n, m) => {
            matches += n;
            for (const bit of m!) mask.push(bit);
          });
          expect(answered).toBe(true);
          const expected = stored.map((v) => (holds(op, v, constant) ? 1 : 0));
          expect(matches).toBe(expected.reduce((a: number, b) => a + b, 0));
          expect(mask).toEqual(expected);
          compared++;
        }
      }
    }
    expect(compared).toBeGreaterThan(20);
  });

  it("declines constants the column's values cannot equal exactly, and answers them right", async () => {
    const store = new MemoryStore();
    const t = await createCtable(store, "t", [
      { name: "u4", data: new Uint32Array([0, 1, 4294967295]) },
      { name: "i1", data: new Int8Array([-128, 0, 127]) },
      { name: "u2", data: new Uint16Array([0, 65535, 7]) },
      { name: "i4", data: new Int32Array([-5, 0, 2147483647]) },
      { name: "f4", data: new Float32Array([0.1, 0.5, 2]) },
      { name: "f8", data: new Float64Array([-Infinity, 1, Infinity, NaN]).subarray(0, 3) },
    ]);
    const answers = spyOnCompare(t);
    expect(await t.where("u4 > -1", { as: "count" })).toBe(3);
    expect(await t.where("i1 < 300", { as: "count" })).toBe(3);
    expect(await t.where("u2 == 70000", { as: "count" })).toBe(0);
    expect(await t.where("i4 > 3000000000.0", { as: "count" })).toBe(0);
    expect(await t.where("f4 > 0.1", { as: "count" })).toBe(3); // compared in float64: 0.1f is above 0.1
    expect(answers).toEqual([false, false, false, false, false]);
    // ±∞ constants (folded from 1e308 * 10) are compared on planes.
    expect(Array.from(await t.where("f8 < 1e308 * 10"))).toEqual([0, 1]);
    expect(Array.from(await t.where("f8 >= -1e308 * 10"))).toEqual([0, 1, 2]);
    expect(Array.from(await t.where("f8 == -1e308 * 10"))).toEqual([0]);
    expect(answers.slice(5)).toEqual([true, true, true]);
  });

  it("refuses a bad comparison and an unknown column", async () => {
    const t = await createCtable(new MemoryStore(), "t", [{ name: "a", data: new Float64Array([1, 2]) }]);
    const visit = (): void => undefined;
    await expect(t.compareColumn({ column: "a", op: "<>" as "==", value: 1 }, { start: 0, stop: 2, masks: false }, visit)).rejects.toMatchObject({ code: "INVALID_ARGUMENT", field: "comparison.op" });
    await expect(t.compareColumn({ column: "a", op: ">", value: "1" as unknown as number }, { start: 0, stop: 2, masks: false }, visit)).rejects.toMatchObject({ code: "INVALID_ARGUMENT", field: "comparison.value" });
    await expect(t.compareColumn({ column: "a", op: ">", value: 1 }, { start: 0, stop: 3, masks: false }, visit)).rejects.toMatchObject({ code: "OUT_OF_RANGE" });
    await expect(t.compareColumn({ column: "b", op: ">", value: 1 }, { start: 0, stop: 2, masks: false }, visit)).rejects.toBeInstanceOf(UsageError);
  });

  it("answers from chunks kept in the cache as from the stored ones", async () => {
    const store = new MemoryStore();
    const values = Float64Array.from({ length: 5000 }, (_, i) => (i % 97) - 40.5);
    const t = await createCtable(store, "t", [{ name: "a", data: values, options: { chunklen: 1000 } }]);
    await t.close();
    const table = await openCtable(store, "t", { cacheBytes: 1 << 20 });
    await table.column("a").read(0, 2500); // chunks 0-2 decoded and cached
    const expected: number[] = [];
    for (let i = 0; i < values.length; i++) if (values[i]! > 3) expected.push(i);
    expect(Array.from(await table.where("a > 3.0"))).toEqual(expected);
    expect(await table.where("a > 3.0", { as: "count", start: 1500, stop: 4200 })).toBe(expected.filter((i) => i >= 1500 && i < 4200).length);
  });

  it("stops at maxResultBytes while listing rows", async () => {
    const store = new MemoryStore();
    const t = await createCtable(store, "t", [{ name: "a", data: new Float64Array(10_000).map((_, i) => i) }]);
    const error = await t.where("a > 10.5", { maxResultBytes: 8 * 1000 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as UsageError).code).toBe("SIZE_LIMIT");
    expect(await t.where("a > 10.5", { as: "count", maxResultBytes: 8 })).toBe(10_000 - 11);
  });
});
