// Every case of the real bcolz corpus (written by Python bcolz 1.2.1 over c-blosc 1.14.3/1.21.3)
// must open with the manifest's metadata and read back expected/*.bin byte for byte.
import { describe, expect, it } from "vitest";
import { FileSystemStore } from "@fmt/fs-adapters/node";
import { CArray, CTable, open, openCarray, openCtable, toLittleEndian } from "@fmt/store";
import type { ReadableStore } from "@fmt/fs-adapters";
import {
  asCArray,
  asPlain,
  datasetDir,
  equalBytes,
  expectedBytes,
  expectedValues,
  manifest,
  memoryCopy,
  plain,
  rng,
} from "./helpers.js";
import type { CarrayCase, ColumnCase, CtableCase } from "./helpers.js";

const carrays = manifest.cases.filter((c): c is CarrayCase => c.kind === "carray");
const ctables = manifest.cases.filter((c): c is CtableCase => c.kind === "ctable");

it("the corpus has the cases this suite expects", () => {
  expect(carrays.length).toBe(57);
  expect(ctables.length).toBe(5);
});

/** Python's range(len)[start:stop:step] for positive steps, written out independently. */
function pySliceIndices(length: number, start: number | undefined, stop: number | undefined, step: number): number[] {
  const norm = (v: number | undefined, dflt: number): number => {
    if (v === undefined) return dflt;
    if (v < 0) return Math.max(0, v + length);
    return Math.min(v, length);
  };
  const out: number[] = [];
  for (let i = norm(start, 0); i < norm(stop, length); i += step) out.push(i);
  return out;
}

function checkMetadata(array: CArray, c: ColumnCase | CarrayCase): void {
  expect(array.kind).toBe("carray");
  expect(array.dtype.str).toBe(c.dtype);
  expect([...array.shape]).toEqual(c.shape);
  expect(array.length).toBe(c.len);
  expect(array.chunklen).toBe(c.chunklen);
  expect(array.nchunks).toBe(c.nchunks_full);
  expect(array.leftoverRows).toBe(c.leftover_rows);
  expect(array.chunkCount).toBe(c.nchunks_full + (c.leftover_rows > 0 ? 1 : 0));
  expect(array.chunkCount).toBeLessThanOrEqual(c.data_files.length);
  const { clevel, shuffle, cname, quantize } = array.cparams;
  expect({ clevel, shuffle, cname, quantize }).toEqual(c.cparams);
  expect(plain(array.dflt)).toEqual(c.dflt);
  expect(Number(array.expectedlen)).toBe(c.expectedlen);
  expect(array.atomSize).toBe(array.dtype.itemsize);
  expect(array.nbytes).toBe(c.len * array.dtype.itemsize);
}

/** Reads the array every way the API offers and compares with the expected little-endian bytes. */
async function checkContent(array: CArray, expected: Uint8Array, dtype: string, seed: number): Promise<void> {
  const atom = array.atomSize;
  const n = array.length;
  const all = toLittleEndian(await array.readBytes(), array.dtype);
  expect(all.length).toBe(expected.length);
  expect(equalBytes(all, expected)).toBe(true);

  const random = rng(seed);
  const pick = (m: number) => Math.floor(random() * m);
  const values = expectedValues(expected, dtype);

  // Single rows, including chunk boundaries and the last row.
  const rows = new Set<number>();
  for (let k = 0; k < 12 && n > 0; k++) rows.add(pick(n));
  for (const b of [0, array.chunklen - 1, array.chunklen, n - 1]) if (b >= 0 && b < n) rows.add(b);
  for (const i of rows) {
    expect(equalBytes(await array.getBytes(i), expected.subarray(i * atom, (i + 1) * atom))).toBe(true);
    const v = await array.get(i);
    expect(asPlain([v])).toEqual([values[i]]);
    expect(asPlain([await array.get(i - n)])).toEqual([values[i]]);
  }

  // Byte ranges and Python-style slices with steps.
  for (let k = 0; k < 6; k++) {
    const a = pick(n + 1);
    const b = a + pick(n + 1 - a);
    expect(equalBytes(await array.readBytes(a, b), expected.subarray(a * atom, b * atom))).toBe(true);
  }
  const slices: [number | undefined, number | undefined, number][] = [
    [undefined, undefined, 1],
    [undefined, undefined, 7],
    [-5, undefined, 1],
    [3, -3, 2],
  ];
  for (let k = 0; k < 6; k++) slices.push([pick(n + 1) - (k % 2 === 0 ? 0 : n), pick(n + 2), 1 + pick(Math.max(1, array.chunklen * 2))]);
  for (const [start, stop, step] of slices) {
    const got = asPlain(await array.read(start, stop, step));
    expect(got).toEqual(pySliceIndices(n, start, stop, step).map((i) => values[i]));
  }

  // Blocks: default (chunk-aligned), and random block lengths over random ranges.
  const parts: Uint8Array[] = [];
  let next = 0;
  for await (const block of array.iterBlocks()) {
    expect(block.start).toBe(next);
    expect(block.stop - block.start).toBe(Math.min(array.chunklen, n - block.start));
    parts.push(block.bytes);
    next = block.stop;
  }
  expect(next).toBe(n);
  expect(equalBytes(Buffer.concat(parts), expected)).toBe(true);
  for (let k = 0; k < 3; k++) {
    const blockLen = 1 + pick(Math.max(1, Math.floor(array.chunklen * 2.5)));
    const a = pick(n + 1);
    const b = a + pick(n + 1 - a);
    const got: Uint8Array[] = [];
    let at = a;
    for await (const block of array.iterBlocks(blockLen, a, b)) {
      expect(block.start).toBe(at);
      expect(block.stop === b || block.stop % blockLen === 0).toBe(true);
      expect(block.bytes.length).toBe((block.stop - block.start) * atom);
      got.push(block.bytes);
      at = block.stop;
    }
    expect(at).toBe(b);
    expect(equalBytes(Buffer.concat(got), expected.subarray(a * atom, b * atom))).toBe(true);
  }

  // Whole chunks.
  for (let i = 0; i < array.chunkCount; i++) {
    const first = i * array.chunklen;
    const chunk = await array.chunkBytes(i);
    expect(equalBytes(chunk, expected.subarray(first * atom, (first + array.chunkRows(i)) * atom))).toBe(true);
  }
}

describe("carray cases", () => {
  it.each(carrays.map((c, i) => [c.name, c, i] as const))("%s", async (_name, c, i) => {
    const store = new FileSystemStore(datasetDir(c));
    const array = await open(store);
    expect(array).toBeInstanceOf(CArray);
    if (!(array instanceof CArray)) return;
    checkMetadata(array, c);
    expect(plain(array.attrs)).toEqual(c.attrs);
    const expected = expectedBytes(c, "values.bin", c.expected["values.bin"].sha256);
    await checkContent(array, expected, c.dtype, 1000 + i);
  });
});

describe("ctable cases", () => {
  it.each(ctables.map((c, i) => [c.name, c, i] as const))("%s", async (_name, c, i) => {
    const table = await open(new FileSystemStore(datasetDir(c)));
    expect(table).toBeInstanceOf(CTable);
    if (!(table instanceof CTable)) return;
    expect(table.kind).toBe("ctable");
    expect([...table.names]).toEqual(c.names);
    expect(table.length).toBe(c.len);
    expect(plain(table.attrs)).toEqual(c.attrs);
    const expected = new Map<string, Uint8Array>();
    for (const [k, col] of c.columns.entries()) {
      const array = asCArray(table.columns[k]);
      expect(table.column(col.name)).toBe(array);
      expect(array.path).toBe(col.name);
      checkMetadata(array, col);
      expect(plain(array.attrs)).toEqual(col.attrs);
      const bytes = expectedBytes(c, col.expected_file, col.sha256);
      expected.set(col.name, bytes);
      await checkContent(array, bytes, col.dtype, 2000 + 10 * i + k);
      expect(asPlain(await table.readColumn(col.name))).toEqual(expectedValues(bytes, col.dtype));
    }

    const random = rng(3000 + i);
    const a = Math.floor(random() * c.len);
    const b = a + Math.floor(random() * (c.len - a));
    const rows = await table.readRows(a, b);
    expect(Object.keys(rows)).toEqual(c.names);
    for (const col of c.columns) {
      expect(asPlain(rows[col.name])).toEqual(expectedValues(expected.get(col.name)!, col.dtype).slice(a, b));
    }

    // A slice of columns, in the order asked for, with a step.
    const picked = [...c.names].reverse().filter((_, k) => k % 2 === 0);
    const some = await table.readRows(a, b, 3, picked);
    expect(Object.keys(some)).toEqual(picked);
    for (const name of picked) {
      const dtype = c.columns.find((col) => col.name === name)!.dtype;
      expect(asPlain(some[name])).toEqual(expectedValues(expected.get(name)!, dtype).slice(a, b).filter((_: unknown, k: number) => k % 3 === 0));
    }
    await expect(table.readRows(0, 1, 1, ["nope"])).rejects.toMatchObject({ code: "INVALID_ARGUMENT" });

    for (const blockLen of [undefined, 333]) {
      const parts = new Map<string, Uint8Array[]>(c.names.map((n) => [n, []]));
      let next = 0;
      for await (const block of table.iterBlocks(blockLen)) {
        expect(block.start).toBe(next);
        expect(Object.keys(block.columns)).toEqual(c.names);
        for (const n of c.names) parts.get(n)!.push(block.columns[n]!);
        next = block.stop;
      }
      expect(next).toBe(c.len);
      for (const n of c.names) expect(equalBytes(Buffer.concat(parts.get(n)!), expected.get(n)!)).toBe(true);
    }
  });
});

describe("reading from a MemoryStore", () => {
  it.each(manifest.cases.map((c) => [c.name, c] as const))("%s (nested under a path)", async (_name, c) => {
    const store: ReadableStore = memoryCopy(datasetDir(c), "nested/ds");
    if (c.kind === "carray") {
      const array = await openCarray(store, "nested/ds");
      expect(array.chunkKey(0)).toBe("nested/ds/data/__0.blp");
      const expected = expectedBytes(c, "values.bin", c.expected["values.bin"].sha256);
      expect(equalBytes(await array.readBytes(), expected)).toBe(true);
    } else {
      const table = await openCtable(store, "nested/ds");
      for (const col of c.columns) {
        const expected = expectedBytes(c, col.expected_file, col.sha256);
        expect(equalBytes(await asCArray(table.column(col.name)).readBytes(), expected)).toBe(true);
      }
    }
  });
});
