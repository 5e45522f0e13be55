// Damaged datasets must fail with typed errors that name the damaged file; bad calls with UsageErrors.
import { beforeAll, describe, expect, it } from "vitest";
import fc from "fast-check";
import { cp, mkdtemp, rm, truncate, unlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BcolzError, FormatError, UsageError } from "@fmt/errors";
import { MemoryStore } from "@fmt/fs-adapters";
import { FileSystemStore } from "@fmt/fs-adapters/node";
import { CArray, CTable, open, openCarray, openCtable } from "@fmt/store";
import { datasetDir, equalBytes, expectedBytes, manifest, memoryCopy } from "./helpers.js";
import type { CarrayCase, CtableCase } from "./helpers.js";

const I4 = manifest.cases.find((c) => c.name === "carray_i4_n5000_cl1024") as CarrayCase; // 4 full chunks of 1024 + 904 leftover
const TABLE = manifest.cases.find((c) => c.name === "blosc114_ctable_mixed") as CtableCase; // columns i, f, s
const text = (s: string) => new TextEncoder().encode(s);

async function failure(promise: Promise<unknown>): Promise<BcolzError> {
  try {
    await promise;
  } catch (e) {
    if (e instanceof BcolzError) return e;
    throw new Error(`expected a BcolzError, got ${String(e)}`, { cause: e });
  }
  throw new Error("expected a rejection");
}

async function i4Store(): Promise<MemoryStore> {
  return memoryCopy(datasetDir(I4));
}

async function openI4(store: MemoryStore): Promise<CArray> {
  return openCarray(store);
}

describe("corrupted carray files", () => {
  it("a deleted chunk file is MISSING_FILE naming it; other chunks still read", async () => {
    const store = await i4Store();
    await store.delete("data/__2.blp");
    const a = await openI4(store);
    const err = await failure(a.readBytes());
    expect(err).toBeInstanceOf(FormatError);
    expect(err.code).toBe("MISSING_FILE");
    expect(err.path).toBe("data/__2.blp");
    expect((await failure(a.get(2500))).path).toBe("data/__2.blp");
    const expected = expectedBytes(I4, "values.bin", I4.expected["values.bin"].sha256);
    expect(equalBytes(await a.readBytes(0, 2048), expected.subarray(0, 2048 * 4))).toBe(true);
    expect(equalBytes(await a.readBytes(3072, 5000), expected.subarray(3072 * 4))).toBe(true);
  });

  it("a deleted leftover chunk file is MISSING_FILE", async () => {
    const store = await i4Store();
    await store.delete("data/__4.blp");
    const err = await failure((await openI4(store)).read(-1));
    expect([err.code, err.path]).toEqual(["MISSING_FILE", "data/__4.blp"]);
  });

  it.each([
    [100, "TRUNCATED"],
    [20, "TRUNCATED"],
    [10, "TRUNCATED"],
    [0, "TRUNCATED"],
  ])("a chunk file cut to %i bytes is %s naming it", async (size, code) => {
    const store = await i4Store();
    const file = (await store.get("data/__1.blp"))!;
    await store.put("data/__1.blp", file.subarray(0, size));
    const err = await failure((await openI4(store)).readBytes(1000, 1100));
    expect(err).toBeInstanceOf(FormatError);
    expect([err.code, err.path]).toEqual([code, "data/__1.blp"]);
  });

  it("bytes after the Blosc chunk are ignored, like bcolz does", async () => {
    const store = await i4Store();
    const file = (await store.get("data/__0.blp"))!;
    await store.put("data/__0.blp", new Uint8Array([...file, 1, 2, 3, 4, 5]));
    const expected = expectedBytes(I4, "values.bin", I4.expected["values.bin"].sha256);
    expect(equalBytes(await (await openI4(store)).readBytes(), expected)).toBe(true);
  });

  it("a bad blpk magic is BAD_MAGIC naming the file", async () => {
    const store = await i4Store();
    const file = (await store.get("data/__3.blp"))!;
    file[0] = 0x78;
    await store.put("data/__3.blp", file);
    const err = await failure((await openI4(store)).chunkBytes(3));
    expect([err.code, err.path]).toEqual(["BAD_MAGIC", "data/__3.blp"]);
  });

  it("meta/sizes claiming more rows makes the old leftover chunk INCONSISTENT", async () => {
    const store = await i4Store();
    await store.put("meta/sizes", text('{"shape": [5120], "nbytes": 20480, "cbytes": 0}\n'));
    const a = await openI4(store);
    expect(a.length).toBe(5120);
    const err = await failure(a.readBytes());
    expect(err).toBeInstanceOf(FormatError);
    expect([err.code, err.path, err.field]).toEqual(["INCONSISTENT", "data/__4.blp", "blosc.nbytes"]);
    expect(err.expected).toBe(4096);
    expect(err.actual).toBe(904 * 4);
  });

  it("meta/sizes claiming far more rows fails on the missing chunk before allocating the result", async () => {
    const store = await i4Store();
    await store.put("meta/sizes", text('{"shape": [100000000], "nbytes": 400000000, "cbytes": 0}\n'));
    const err = await failure((await openI4(store)).readBytes());
    expect([err.code, err.path]).toEqual(["MISSING_FILE", `data/__${Math.floor((1e8 - 1) / 1024)}.blp`]);
  });

  it("meta/sizes claiming fewer rows reads only those rows (stale files are ignored)", async () => {
    const store = await i4Store();
    await store.put("meta/sizes", text('{"shape": [2048], "nbytes": 8192, "cbytes": 0}\n'));
    await store.put("data/__7.blp", text("garbage"));
    const a = await openI4(store);
    const expected = expectedBytes(I4, "values.bin", I4.expected["values.bin"].sha256);
    expect(a.chunkCount).toBe(2);
    expect(equalBytes(await a.readBytes(), expected.subarray(0, 2048 * 4))).toBe(true);
  });

  it("a full chunk replaced by a leftover-sized one is INCONSISTENT", async () => {
    const store = await i4Store();
    await store.put("data/__1.blp", (await store.get("data/__4.blp"))!);
    const err = await failure((await openI4(store)).getBytes(1500));
    expect([err.code, err.path]).toEqual(["INCONSISTENT", "data/__1.blp"]);
  });

  it("four reads of one carray at once, each failing on a chunk of its own, name their own files", async () => {
    // The reader plans every chunk with one options object, set anew for each: reads that
    // interleave must not see each other's chunk (key, rows) in their checks.
    const store = await i4Store();
    const leftover = (await store.get("data/__4.blp"))!;
    await store.put("data/__1.blp", leftover);
    await store.put("data/__3.blp", leftover);
    const a = await openI4(store);
    // chunkBytes reads its chunk after it is asked for; readBytes through the planned fetches.
    const errors = await Promise.all([failure(a.chunkBytes(1)), failure(a.chunkBytes(3)), failure(a.readBytes(0, 2048)), failure(a.readBytes(2048, 4096))]);
    expect(errors.map((e) => [e.code, e.path, e.actual])).toEqual([
      ["INCONSISTENT", "data/__1.blp", 904 * 4],
      ["INCONSISTENT", "data/__3.blp", 904 * 4],
      ["INCONSISTENT", "data/__1.blp", 904 * 4],
      ["INCONSISTENT", "data/__3.blp", 904 * 4],
    ]);
  });

  it("a leftover chunk holding more rows than meta/sizes needs is read leniently (spec v1 §8.5)", async () => {
    const store = await i4Store();
    await store.put("data/__4.blp", (await store.get("data/__0.blp"))!);
    const expected = expectedBytes(I4, "values.bin", I4.expected["values.bin"].sha256);
    const rows = (await openI4(store)).readBytes(4096, 5000);
    // The leftover rows now come from the first 904 rows of chunk 0.
    expect(equalBytes(await rows, expected.subarray(0, 904 * 4))).toBe(true);
  });

  it("a leftover chunk with a size that is not whole rows is still INCONSISTENT", async () => {
    const store = await i4Store();
    const other = (await store.get("data/__4.blp"))!;
    const view = new DataView(other.buffer, other.byteOffset);
    view.setInt32(16 + 4, view.getInt32(16 + 4, true) + 2, true);
    await store.put("data/__4.blp", other);
    const err = await failure((await openI4(store)).read());
    expect([err.code, err.path]).toEqual(["INCONSISTENT", "data/__4.blp"]);
  });

  it("a chunklen that disagrees with the chunks is INCONSISTENT at the first chunk", async () => {
    const store = await i4Store();
    const storage = new TextDecoder().decode(await store.get("meta/storage")).replace('"chunklen": 1024', '"chunklen": 1000');
    await store.put("meta/storage", text(storage));
    const err = await failure((await openI4(store)).readBytes());
    expect([err.code, err.path]).toEqual(["INCONSISTENT", "data/__0.blp"]);
  });

  it("garbage in meta/storage is BAD_JSON naming it", async () => {
    const store = await i4Store();
    await store.put("meta/storage", text("{\"dtype\": int32, garbage\n"));
    const err = await failure(open(store));
    expect(err).toBeInstanceOf(FormatError);
    expect([err.code, err.path]).toEqual(["BAD_JSON", "meta/storage"]);
  });

  it("non-UTF-8 bytes in meta/sizes are BAD_JSON naming it", async () => {
    const store = await i4Store();
    await store.put("meta/sizes", new Uint8Array([0x7b, 0xff, 0xfe, 0x7d]));
    const err = await failure(open(store));
    expect([err.code, err.path]).toEqual(["BAD_JSON", "meta/sizes"]);
  });

  it.each([
    ['{"shape": [], "nbytes": 0, "cbytes": 0}\n'],
    ['{"shape": [-3], "nbytes": 0, "cbytes": 0}\n'],
    ['{"shape": [1.5], "nbytes": 0, "cbytes": 0}\n'],
    ['{"shape": "5000", "nbytes": 0, "cbytes": 0}\n'],
  ])("an invalid shape %s is a FormatError naming meta/sizes", async (sizes) => {
    const store = await i4Store();
    await store.put("meta/sizes", text(sizes));
    const err = await failure(open(store));
    expect(err).toBeInstanceOf(FormatError);
    expect(err.path).toBe("meta/sizes");
  });

  it("missing metadata files are MISSING_FILE naming them", async () => {
    const store = await i4Store();
    await store.delete("meta/sizes");
    expect([(await failure(open(store))).code, (await failure(open(store))).path]).toEqual(["MISSING_FILE", "meta/sizes"]);
    const empty = new MemoryStore();
    const err = await failure(open(empty, "nothing/here"));
    expect([err.code, err.path]).toEqual(["MISSING_FILE", "nothing/here/meta/storage"]);
  });

  it("a missing __attrs__ is MISSING_FILE, as bcolz cannot open such a dataset either", async () => {
    const store = await i4Store();
    await store.delete("__attrs__");
    await expect(openI4(store)).rejects.toMatchObject({ code: "MISSING_FILE", path: "__attrs__" });
  });

  it("errors of a dataset under a path name the full store key", async () => {
    const store = memoryCopy(datasetDir(I4), "deep/ds");
    await store.delete("deep/ds/data/__0.blp");
    const err = await failure((await openCarray(store, "deep/ds")).get(0));
    expect([err.code, err.path]).toEqual(["MISSING_FILE", "deep/ds/data/__0.blp"]);
  });

  it("works the same on real files: deleted and truncated chunk files", async () => {
    const dir = await mkdtemp(join(tmpdir(), "fmt-store-corrupt-"));
    try {
      await cp(datasetDir(I4), dir, { recursive: true });
      await unlink(join(dir, "data", "__2.blp"));
      await truncate(join(dir, "data", "__3.blp"), 40);
      const a = await open(new FileSystemStore(dir));
      expect(a.kind).toBe("carray");
      const arr = a as CArray;
      expect([(await failure(arr.chunkBytes(2))).code, (await failure(arr.chunkBytes(2))).path]).toEqual(["MISSING_FILE", "data/__2.blp"]);
      const err = await failure(arr.chunkBytes(3));
      expect([err.code, err.path]).toEqual(["TRUNCATED", "data/__3.blp"]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("random damage to a chunk file gives a FormatError naming it, or correct-length data (property)", async () => {
    const pristine = await i4Store();
    const original = (await pristine.get("data/__0.blp"))!;
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(fc.nat(original.length - 1), fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 8 }),
        fc.option(fc.nat(original.length), { nil: undefined }),
        async (edits, cut) => {
          const damaged = original.slice(0, cut ?? original.length);
          for (const [at, value] of edits) if (at < damaged.length) damaged[at] = value;
          const store = await i4Store();
          await store.put("data/__0.blp", damaged);
          const a = await openI4(store);
          for (const attempt of [() => a.chunkBytes(0), () => a.getBytes(700), () => a.readBytes(10, 20)]) {
            try {
              const bytes = await attempt();
              expect([1024 * 4, 4, 40]).toContain(bytes.length);
            } catch (e) {
              expect(e).toBeInstanceOf(FormatError);
              expect((e as FormatError).path).toBe("data/__0.blp");
            }
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe("corrupted ctables", () => {
  it("columns of different lengths are INCONSISTENT naming the column's meta/sizes", async () => {
    const store = memoryCopy(datasetDir(TABLE));
    await store.put("f/meta/sizes", text('{"shape": [2400], "nbytes": 19200, "cbytes": 0}\n'));
    const err = await failure(open(store));
    expect(err).toBeInstanceOf(FormatError);
    expect([err.code, err.path]).toEqual(["INCONSISTENT", "f/meta/sizes"]);
  });

  it("a column name that leaves the table directory is UNSAFE_NAME naming __rootdirs__", async () => {
    const store = memoryCopy(datasetDir(TABLE), "t");
    await store.put("t/__rootdirs__", text('{"names": ["i", "../escape"]}\n'));
    const err = await failure(open(store, "t"));
    expect(err).toBeInstanceOf(FormatError);
    expect([err.code, err.path]).toEqual(["UNSAFE_NAME", "t/__rootdirs__"]);
  });

  it("a listed column without a directory is MISSING_FILE naming its meta/storage", async () => {
    const store = memoryCopy(datasetDir(TABLE));
    for (const key of await store.list("s/")) await store.delete(key);
    const err = await failure(openCtable(store));
    expect([err.code, err.path]).toEqual(["MISSING_FILE", "s/meta/storage"]);
  });

  it("a damaged chunk of one column names that column's file", async () => {
    const store = memoryCopy(datasetDir(TABLE));
    await store.delete("f/data/__1.blp");
    const t = (await open(store)) as CTable;
    const err = await failure(t.readRows(0, 2500));
    expect([err.code, err.path]).toEqual(["MISSING_FILE", "f/data/__1.blp"]);
    const err2 = await failure((async () => {
      for await (const _block of t.iterBlocks()) void _block;
    })());
    expect([err2.code, err2.path]).toEqual(["MISSING_FILE", "f/data/__1.blp"]);
  });

  it("a ctable without __rootdirs__ opened as a ctable is MISSING_FILE", async () => {
    const store = memoryCopy(datasetDir(I4));
    const err = await failure(openCtable(store));
    expect([err.code, err.path]).toEqual(["MISSING_FILE", "__rootdirs__"]);
  });
});

describe("bad calls", () => {
  let a: CArray;
  let t: CTable;
  beforeAll(async () => {
    a = await openCarray(memoryCopy(datasetDir(I4)));
    t = await openCtable(memoryCopy(datasetDir(TABLE)));
  });

  it.each([
    ["readBytes(-1)", () => a.readBytes(-1), "OUT_OF_RANGE"],
    ["readBytes(10, 5)", () => a.readBytes(10, 5), "OUT_OF_RANGE"],
    ["readBytes(0, 5001)", () => a.readBytes(0, 5001), "OUT_OF_RANGE"],
    ["readBytes(0.5)", () => a.readBytes(0.5), "INVALID_ARGUMENT"],
    ["get(5000)", () => a.get(5000), "OUT_OF_RANGE"],
    ["get(-5001)", () => a.get(-5001), "OUT_OF_RANGE"],
    ["get(NaN)", () => a.get(NaN), "INVALID_ARGUMENT"],
    ["read(0, 10, 0)", () => a.read(0, 10, 0), "INVALID_ARGUMENT"],
    ["read(0, 10, -1)", () => a.read(0, 10, -1), "INVALID_ARGUMENT"],
    ["chunkBytes(5)", () => a.chunkBytes(5), "OUT_OF_RANGE"],
    ["iterBlocks(0)", () => a.iterBlocks(0).next(), "INVALID_ARGUMENT"],
    ["iterBlocks(10, 0, 6000)", () => a.iterBlocks(10, 0, 6000).next(), "OUT_OF_RANGE"],
    ["column('nope')", async () => t.column("nope"), "INVALID_ARGUMENT"],
    ["open(store, '../x')", () => open(new MemoryStore(), "../x"), "UNSAFE_NAME"],
    ["open(store, '/abs')", () => open(new MemoryStore(), "/abs"), "UNSAFE_NAME"],
  ])("%s is a UsageError %s", async (_label, call, code) => {
    const err = await failure(call());
    expect(err).toBeInstanceOf(UsageError);
    expect(err.code).toBe(code);
  });

  it("maxReadBytes refuses larger reads with SIZE_LIMIT and allows smaller ones", async () => {
    const small = await openCarray(memoryCopy(datasetDir(I4)), "", { maxReadBytes: 400 });
    const err = await failure(small.readBytes());
    expect([err.constructor, err.code]).toEqual([UsageError, "SIZE_LIMIT"]);
    expect((await small.readBytes(0, 100)).length).toBe(400);
    expect((await failure(small.iterBlocks().next())).code).toBe("SIZE_LIMIT");
    let rows = 0;
    for await (const block of small.iterBlocks(100)) rows += block.stop - block.start;
    expect(rows).toBe(5000);
  });

  it("rejects bad options", async () => {
    expect((await failure(openCarray(new MemoryStore(), "", { maxReadBytes: -1 }))).code).toBe("INVALID_ARGUMENT");
    expect((await failure(openCarray(new MemoryStore(), "", { prefetch: 1.5 }))).code).toBe("INVALID_ARGUMENT");
  });
});

