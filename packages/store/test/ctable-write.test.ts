// The ctable writer: files byte-compared with what real bcolz 1.2.1 wrote (corpus), values read
// back, the all-or-nothing append with its journal, locks, name rules, and a fast-check command
// model of append / addColumn / deleteColumn / renameColumn / reopen.
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { ConflictError, FormatError, UsageError } from "@fmt/errors";
import { MemoryStore } from "@fmt/fs-adapters";
import type { WritableStore } from "@fmt/fs-adapters";
import { parseAttrs } from "@fmt/meta";
import { APPEND_JOURNAL_FILE, createCtable, newColumnNameProblem, openCtable } from "@fmt/store";
import type { CTable } from "@fmt/store";
import { asCArray, asPlain, datasetDir, expectedBytes, expectedValues, manifest } from "./helpers.js";
import type { CtableCase } from "./helpers.js";
import { readFileSync } from "node:fs";
import { join } from "node:path";


const ctables = manifest.cases.filter((c): c is CtableCase => c.kind === "ctable");
const byName = (name: string): CtableCase => ctables.find((c) => c.name === name)!;
const text = (b: Uint8Array | undefined): string | undefined => (b === undefined ? undefined : new TextDecoder().decode(b));
const fileText = (c: CtableCase, rel: string): string => readFileSync(join(datasetDir(c), rel), "utf8");

async function failure(p: Promise<unknown>): Promise<unknown> {
  return p.then(
    () => {
      throw new Error("expected a rejection");
    },
    (e: unknown) => e,
  );
}

/** The column data of a corpus case as raw little-endian rows (exactly bcolz's stored layout). */
function rawColumns(c: CtableCase): { name: string; data: { bytes: Uint8Array }; options: { dtype: string } }[] {
  return c.columns.map((col) => ({ name: col.name, data: { bytes: expectedBytes(c, col.expected_file, col.sha256) }, options: { dtype: col.dtype } }));
}

async function checkValues(t: CTable, c: CtableCase): Promise<void> {
  expect([...t.names]).toEqual(c.names);
  expect(t.length).toBe(c.len);
  for (const col of c.columns) {
    expect(asPlain(await t.readColumn(col.name))).toEqual(expectedValues(expectedBytes(c, col.expected_file, col.sha256), col.dtype));
  }
}

describe("files match what bcolz 1.2.1 wrote", () => {
  it("ctable_mode_w_flush_default: defaults, auto chunklen, every metadata file byte for byte", async () => {
    const c = byName("ctable_mode_w_flush_default");
    const store = new MemoryStore();
    const t = await createCtable(store, "t", rawColumns(c), { mode: "w" });
    await t.close();
    expect(text(await store.get("t/__rootdirs__"))).toBe(fileText(c, "__rootdirs__"));
    expect(text(await store.get("t/__attrs__"))).toBe(fileText(c, "__attrs__"));
    for (const name of c.names) {
      for (const f of ["meta/storage", "meta/sizes", "__attrs__"]) expect(text(await store.get(`t/${name}/${f}`)), `${name}/${f}`).toBe(fileText(c, `${name}/${f}`));
    }
    expect(await store.get("t/.lock")).toBeUndefined();
    await checkValues(await openCtable(store, "t"), c);
  });

  it("ctable_mixed: 8 column types and nested table attrs", async () => {
    const c = byName("ctable_mixed");
    const store = new MemoryStore();
    const attrs = parseAttrs(fileText(c, "__attrs__"));
    const t = await createCtable(store, "mixed", rawColumns(c), { chunklen: 1000, attrs });
    await t.close();
    expect(text(await store.get("mixed/__rootdirs__"))).toBe(fileText(c, "__rootdirs__"));
    expect(text(await store.get("mixed/__attrs__"))).toBe(fileText(c, "__attrs__"));
    for (const name of c.names) {
      expect(text(await store.get(`mixed/${name}/meta/storage`)), name).toBe(fileText(c, `${name}/meta/storage`));
      const sizes = JSON.parse(text(await store.get(`mixed/${name}/meta/sizes`))!) as { shape: number[]; nbytes: number };
      const real = JSON.parse(fileText(c, `${name}/meta/sizes`)) as { shape: number[]; nbytes: number };
      expect([sizes.shape, sizes.nbytes]).toEqual([real.shape, real.nbytes]);
    }
    const reopened = await openCtable(store, "mixed");
    await checkValues(reopened, c);
    expect(await reopened.where("flag & qty > 3 & sym != b\"IBM\"")).toEqual(await (await openCtable(new MemoryStore(await copyDir(datasetDir(c))))).where("flag & qty > 3 & sym != b\"IBM\""));
  });

  it("ctable_addcol: addColumn at position 1 with its own cparams and chunklen gives names a, c, b", async () => {
    const c = byName("ctable_addcol");
    const store = new MemoryStore();
    const [a, cc, b] = rawColumns(c);
    const t = await createCtable(store, "", [a!, b!], { chunklen: 800, cparams: { cname: "blosclz" } });
    expect(text(await store.get("__rootdirs__"))).toBe('{"names": ["a", "b"]}\n');
    await t.addColumn("c", cc!.data, { position: 1, dtype: "<i2", cparams: { cname: "zlib", clevel: 9 }, chunklen: 500 });
    expect([...t.names]).toEqual(["a", "c", "b"]);
    await t.close();
    expect(text(await store.get("__rootdirs__"))).toBe(fileText(c, "__rootdirs__"));
    for (const name of c.names) expect(text(await store.get(`${name}/meta/storage`)), name).toBe(fileText(c, `${name}/meta/storage`));
    await checkValues(await openCtable(store), c);
  });

  it("ctable_append_after_reopen: create, close, reopen with mode a, append", async () => {
    const c = byName("ctable_append_after_reopen");
    const store = new MemoryStore();
    const cols = rawColumns(c);
    const atom = (i: number): number => cols[i]!.data.bytes.length / c.len;
    const head = cols.map((col, i) => ({ ...col, data: { bytes: col.data.bytes.subarray(0, 1500 * atom(i)) } }));
    const t = await createCtable(store, "kv", head, { chunklen: 600, cparams: { cname: "snappy", shuffle: 0 } });
    await t.close();
    const again = await openCtable(store, "kv", { mode: "a" });
    expect(again.mode).toBe("a");
    await again.append(Object.fromEntries(cols.map((col, i) => [col.name, { bytes: col.data.bytes.subarray(1500 * atom(i)) }])));
    await again.close();
    for (const name of c.names) expect(text(await store.get(`kv/${name}/meta/storage`)), name).toBe(fileText(c, `${name}/meta/storage`));
    await checkValues(await openCtable(store, "kv"), c);
  });
});

async function copyDir(dir: string): Promise<[string, Uint8Array][]> {
  const { filesUnder } = await import("./helpers.js");
  return filesUnder(dir);
}

describe("writing", () => {
  it("appends columns objects and records, infers dtypes, keeps attrs", async () => {
    const store = new MemoryStore();
    const t = await createCtable(store, "t", [
      { name: "id", data: new BigInt64Array([1n, 2n]) },
      { name: "x", data: [0.5, 1.5] },
      { name: "n", data: [1, 2] },
      { name: "ok", data: [true, false] },
      { name: "s", data: [new Uint8Array([97]), new Uint8Array([98, 99])] },
      { name: "u", data: ["é", "xyz"] },
      { name: "v", data: new Float32Array([1, 2, 3, 4]), options: { shape: [2] } },
    ]);
    expect(t.columns.map((c) => c.dtype.str)).toEqual(["<i8", "<f8", "<i8", "|b1", "|S2", "<U3", "<f4"]);
    await t.append({ id: [3n], x: [2.5], n: [3], ok: [true], s: ["d"], u: ["q"], v: [5, 6] });
    await t.append([{ id: 4n, x: 3.5, n: 4, ok: false, s: "ef", u: "rs", v: [7, 8] }]);
    await t.attrs.set("units", "m");
    await t.close();
    const r = await openCtable(store, "t");
    expect(r.attrs.get("units")).toBe("m");
    expect(text(await store.get("t/__attrs__"))).toBe('{"units": "m"}\n');
    const rows = await r.readRows();
    expect(asPlain(rows["id"])).toEqual([1n, 2n, 3n, 4n]);
    expect(asPlain(rows["x"])).toEqual([0.5, 1.5, 2.5, 3.5]);
    expect(asPlain(rows["s"])).toEqual([[97], [98, 99], [100], [101, 102]]);
    expect(rows["u"]).toEqual(["é", "xyz", "q", "rs"]);
    expect(asPlain(rows["v"])).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(await r.where('u == "rs" | s == "d"')).toEqual(Float64Array.of(2, 3));
    await expect(r.append({ id: [1n] })).rejects.toMatchObject({ code: "READ_ONLY" });
    await expect(r.attrs.set("a", 1)).rejects.toMatchObject({ code: "READ_ONLY" });
  });

  it("refuses bad appends before writing anything", async () => {
    const store = new MemoryStore();
    const t = await createCtable(store, "t", [
      { name: "a", data: new Int32Array([1, 2, 3]) },
      { name: "b", data: new Uint8Array([1, 2, 3]) },
    ]);
    const before = new Map((await store.list("t/")).map((k) => [k, k]));
    const bad: [unknown, string][] = [
      [{ a: [1, 2], b: [1] }, "INVALID_ARGUMENT"],
      [{ a: [1] }, "INVALID_ARGUMENT"],
      [{ a: [1], b: [1], c: [1] }, "INVALID_ARGUMENT"],
      [[{ a: 1 }], "INVALID_ARGUMENT"],
      [[{ a: 1, b: 300 }], "OUT_OF_RANGE"],
      [{ a: [1], b: [-1] }, "OUT_OF_RANGE"],
      [42, "INVALID_ARGUMENT"],
    ];
    for (const [rows, code] of bad) {
      const e = await failure(t.append(rows as never));
      expect(e, JSON.stringify(rows)).toBeInstanceOf(UsageError);
      expect((e as UsageError).code === code || (e as UsageError).code === "INVALID_ARGUMENT").toBe(true);
    }
    expect(t.length).toBe(3);
    expect((await store.list("t/")).filter((k) => !before.has(k))).toEqual([]);
    await t.close();
    const r = await openCtable(store, "t");
    expect(asPlain(await r.readColumn("a"))).toEqual([1, 2, 3]);
  });

  it("validates column names like bcolz (identifiers, no keywords) with UNSAFE_NAME", async () => {
    for (const bad of ["", "1a", "a-b", "a b", "../x", "class", "None", "__rootdirs__", "__attrs__", "é", "a/b", ".lock"]) {
      expect(newColumnNameProblem(bad), bad).toBeDefined();
      const e = await failure(createCtable(new MemoryStore(), "t", [{ name: bad, data: [1] }]));
      expect(e).toBeInstanceOf(UsageError);
      expect((e as UsageError).code).toBe("UNSAFE_NAME");
    }
    for (const good of ["a", "_x", "A1", "match", "type", "__x__"]) expect(newColumnNameProblem(good), good).toBeUndefined();
    const store = new MemoryStore();
    const t = await createCtable(store, "t", [{ name: "a", data: [1, 2] }]);
    expect(((await failure(t.addColumn("def", [1, 2]))) as UsageError).code).toBe("UNSAFE_NAME");
    expect(((await failure(t.renameColumn("a", "x y"))) as UsageError).code).toBe("UNSAFE_NAME");
    expect(((await failure(t.addColumn("a", [1, 2]))) as UsageError).code).toBe("INVALID_ARGUMENT");
    expect(((await failure(t.addColumn("b", [1, 2, 3]))) as UsageError).code).toBe("INVALID_ARGUMENT");
    expect(((await failure(t.addColumn("b", [1, 2], { position: 5 }))) as UsageError).code).toBe("OUT_OF_RANGE");
    expect(((await failure(t.deleteColumn("a"))) as UsageError).code).toBe("INVALID_ARGUMENT");
    expect(((await failure(createCtable(new MemoryStore(), "t", [{ name: "a", data: [1] }, { name: "a", data: [2] }]))) as UsageError).code).toBe("INVALID_ARGUMENT");
    expect(((await failure(createCtable(new MemoryStore(), "t", [{ name: "a", data: [1] }, { name: "b", data: [2, 3] }]))) as UsageError).code).toBe("INVALID_ARGUMENT");
    await t.close();
    expect(await store.list("t/")).toEqual(["t/__attrs__", "t/__rootdirs__", "t/a/__attrs__", "t/a/data/__0.blp", "t/a/meta/sizes", "t/a/meta/storage"]);
  });

  it("locks: a second writer gets LOCKED, mode a refuses an existing dataset, mode w replaces it", async () => {
    const store = new MemoryStore();
    const t = await createCtable(store, "t", [{ name: "a", data: [1, 2] }]);
    expect(await failure(openCtable(store, "t", { mode: "a" }))).toBeInstanceOf(ConflictError);
    expect(((await failure(openCtable(store, "t", { mode: "a" }))) as ConflictError).code).toBe("LOCKED");
    await t.close();
    expect(((await failure(createCtable(store, "t", [{ name: "b", data: [1] }]))) as ConflictError).code).toBe("ALREADY_EXISTS");
    const w = await createCtable(store, "t", [{ name: "b", data: [5, 6, 7] }], { mode: "w" });
    await w.close();
    expect(await store.list("t/")).toEqual(["t/__attrs__", "t/__rootdirs__", "t/b/__attrs__", "t/b/data/__0.blp", "t/b/meta/sizes", "t/b/meta/storage"]);
    const trunc = await openCtable(store, "t", { mode: "w" });
    expect(trunc.length).toBe(0);
    await trunc.close();
    expect((JSON.parse(text(await store.get("t/b/meta/sizes"))!) as { shape: unknown }).shape).toEqual([0]);
  });

  it("deleteColumn (with and without keepData), renameColumn, addColumn with fills and overwrite", async () => {
    const store = new MemoryStore();
    const t = await createCtable(store, "t", [
      { name: "a", data: new Int32Array([1, 2, 3, 4, 5]) },
      { name: "b", data: new Float64Array([1, 2, 3, 4, 5]) },
      { name: "c", data: ["x", "y", "z", "w", "v"], options: { dtype: "|S1" } },
    ], { chunklen: 2 });
    await t.deleteColumn("b", { keepData: true });
    expect(text(await store.get("t/__rootdirs__"))).toBe('{"names": ["a", "c"]}\n');
    expect(await store.get("t/b/meta/sizes")).toBeDefined();
    expect(((await failure(t.addColumn("b", 0, { dtype: "<f8" }))) as ConflictError).code).toBe("ALREADY_EXISTS");
    await t.addColumn("b", 7, { dtype: "<i2", overwrite: true, position: 0 });
    await t.deleteColumn("a");
    expect((await store.list("t/a/")).length).toBe(0);
    await t.renameColumn("c", "sym");
    expect((await store.list("t/c/")).length).toBe(0);
    await t.addColumn("flag", { fill: true }, { dtype: "|b1" });
    await t.addColumn("raw", { fill: new Uint8Array([1, 2]) }, { dtype: "|S2" });
    await t.append({ b: [8], sym: ["q"], flag: [false], raw: ["zz"] });
    await t.close();
    const r = await openCtable(store, "t");
    expect([...r.names]).toEqual(["b", "sym", "flag", "raw"]);
    expect(asPlain(await r.readColumn("b"))).toEqual([7, 7, 7, 7, 7, 8]);
    expect(asPlain(await r.readColumn("sym"))).toEqual([[120], [121], [122], [119], [118], [113]]);
    expect(asPlain(await r.readColumn("flag"))).toEqual([1, 1, 1, 1, 1, 0]);
    expect(asPlain(await r.readColumn("raw"))).toEqual([[1, 2], [1, 2], [1, 2], [1, 2], [1, 2], [122, 122]]);
    expect(r.column("sym").chunklen).toBe(2);
  });
});

/** A store whose writes start failing after `budget` puts/deletes (a crash, as seen by the writer). */
class FailingStore extends MemoryStore {
  budget = Infinity;
  // put calls MemoryStore's put (which copies) before any await: chunks come from the codec's memory.
  override get putsAtOnce(): boolean {
    return true;
  }
  override async put(key: string, value: Uint8Array): Promise<void> {
    if (this.budget-- <= 0) throw new Error("disk gone");
    return super.put(key, value);
  }
  override async delete(key: string): Promise<void> {
    if (this.budget-- <= 0) throw new Error("disk gone");
    return super.delete(key);
  }
}

describe("append is all or nothing", () => {
  it("an interrupted append is rolled back by the next writer, whatever write it stopped at", async () => {
    const base = new MemoryStore();
    const t0 = await createCtable(base, "t", [
      { name: "a", data: new Int32Array(10).map((_, i) => i) },
      { name: "s", data: Array.from({ length: 10 }, (_, i) => `s${i}`), options: { dtype: "|S3" } },
    ], { chunklen: 4 });
    await t0.close();
    const snapshot = await base.list("");
    const files = await Promise.all(snapshot.map(async (k) => [k, (await base.get(k))!] as [string, Uint8Array]));
    let completed = false;
    for (let budget = 0; !completed; budget++) {
      const store = new FailingStore(files);
      const t = await openCtable(store, "t", { mode: "a" });
      store.budget = budget;
      try {
        await t.append({ a: new Int32Array([10, 11, 12, 13, 14, 15]), s: ["x", "y", "z", "u", "v", "w"] });
        completed = true;
      } catch (e) {
        expect((e as Error).message).toBe("disk gone");
      }
      store.budget = Infinity;
      // A killed process leaves its locks behind; the next writer breaks them.
      const r = await openCtable(store, "t", { mode: "a", breakLock: true });
      expect(await store.get(`t/${APPEND_JOURNAL_FILE}`)).toBeUndefined();
      expect(r.length).toBe(completed ? 16 : 10);
      expect(asPlain(await r.readColumn("a"))).toEqual(Array.from({ length: r.length }, (_, i) => i));
      expect((await r.readColumn("s")).length).toBe(r.length);
      await r.close();
      expect(budget).toBeLessThan(100);
    }
  });

  it("a reader of an interrupted append sees the committed length (spec §8.5)", async () => {
    const store = new MemoryStore();
    const t = await createCtable(store, "t", [
      { name: "a", data: [1, 2] },
      { name: "b", data: [1, 2] },
    ]);
    await t.close();
    // What a crash between the two columns' meta/sizes leaves: a journal and different lengths.
    const a = await openCtable(store, "t", { mode: "a" });
    await asCArray(a.column("a")).append([3]);
    await a.column("a").close();
    await store.put(`t/${APPEND_JOURNAL_FILE}`, new TextEncoder().encode('{"format": 1, "length": 2}\n'));
    const reader = await openCtable(store, "t");
    expect(reader.length).toBe(2);
    expect(asPlain(await reader.readColumn("a"))).toEqual([1n, 2n]);
    // Without the journal the same state is plain corruption: no hint, and writers refuse it too.
    await store.delete(`t/${APPEND_JOURNAL_FILE}`);
    expect(((await failure(openCtable(store, "t"))) as FormatError).message).not.toContain("interrupted");
    expect(((await failure(openCtable(store, "t", { mode: "a", breakLock: true }))) as FormatError).code).toBe("INCONSISTENT");
    // With it, the next writer rolls back to the recorded length.
    await store.put(`t/${APPEND_JOURNAL_FILE}`, new TextEncoder().encode('{"format": 1, "length": 2}\n'));
    const fixed = await openCtable(store, "t", { mode: "a", breakLock: true });
    expect(fixed.length).toBe(2);
    await fixed.close();
    expect(asPlain(await (await openCtable(store, "t")).readColumn("a"))).toEqual([1n, 2n]);
  });
});

// ---------------------------------------------------------------------------------------------
// command model

interface Model {
  names: string[];
  columns: Map<string, number[]>;
}

type Command = { check(m: Model): boolean; run(m: Model, r: { t: CTable; store: WritableStore }): Promise<void>; toString(): string };

const NAMES = ["a", "b", "c", "d", "e", "f"];

function commands(): fc.Arbitrary<Command>[] {
  const append = fc.integer({ min: 0, max: 9 }).chain((n) => fc.tuple(fc.constant(n), fc.array(fc.integer({ min: -1000, max: 1000 }), { minLength: 60, maxLength: 60 }), fc.boolean()));
  return [
    append.map(([n, values, asRecords]): Command => ({
      check: () => true,
      async run(m, r) {
        const data = new Map(m.names.map((name, k) => [name, values.slice(k * 9, k * 9 + n)]));
        if (asRecords) await r.t.append(Array.from({ length: n }, (_, i) => Object.fromEntries(m.names.map((name) => [name, data.get(name)![i]!]))));
        else await r.t.append(Object.fromEntries(m.names.map((name) => [name, new Int32Array(data.get(name)!)])));
        for (const name of m.names) m.columns.get(name)!.push(...data.get(name)!);
      },
      toString: () => `append(${n}${asRecords ? ", records" : ""})`,
    })),
    fc.tuple(fc.constantFrom(...NAMES), fc.nat(), fc.integer({ min: -5, max: 5 }), fc.integer({ min: 1, max: 7 })).map(([name, pos, fill, chunklen]): Command => ({
      check: (m) => !m.names.includes(name),
      async run(m, r) {
        const position = pos % (m.names.length + 1);
        await r.t.addColumn(name, fill, { dtype: "<i4", position, chunklen, overwrite: true });
        m.names.splice(position, 0, name);
        m.columns.set(name, new Array<number>(r.t.length).fill(fill));
      },
      toString: () => `addColumn(${name}, ${fill}, pos ${pos}, chunklen ${chunklen})`,
    })),
    fc.tuple(fc.nat(), fc.boolean()).map(([pick, keepData]): Command => ({
      check: (m) => m.names.length > 1,
      async run(m, r) {
        const name = m.names[pick % m.names.length]!;
        await r.t.deleteColumn(name, { keepData });
        m.names = m.names.filter((x) => x !== name);
        m.columns.delete(name);
      },
      toString: () => `deleteColumn(#${pick}, keepData ${keepData})`,
    })),
    fc.tuple(fc.nat(), fc.constantFrom(...NAMES)).map(([pick, to]): Command => ({
      check: (m) => !m.names.includes(to),
      async run(m, r) {
        const from = m.names[pick % m.names.length]!;
        // A directory left by deleteColumn(keepData) blocks the new name: the model expects ALREADY_EXISTS then.
        const blocked = (await r.store.list!(`t/${to}/`)).length > 0;
        if (blocked) {
          const e = await failure(r.t.renameColumn(from, to));
          expect((e as ConflictError).code).toBe("ALREADY_EXISTS");
          return;
        }
        await r.t.renameColumn(from, to);
        m.names = m.names.map((x) => (x === from ? to : x));
        m.columns.set(to, m.columns.get(from)!);
        m.columns.delete(from);
      },
      toString: () => `renameColumn(#${pick} -> ${to})`,
    })),
    fc.constant<Command>({
      check: () => true,
      async run(_m, r) {
        await r.t.close();
        r.t = await openCtable(r.store, "t", { mode: "a" });
      },
      toString: () => "reopen",
    }),
  ];
}

describe("command model", () => {
  it("append / addColumn / deleteColumn / renameColumn / reopen keep the table equal to the model", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.oneof(...commands()), { maxLength: 25 }), fc.integer({ min: 1, max: 5 }), async (cmds, chunklen) => {
        const store = new MemoryStore();
        const first = [3, 1, 4];
        const r = { t: await createCtable(store, "t", [{ name: "a", data: new Int32Array(first) }], { chunklen }), store: store as WritableStore };
        const model: Model = { names: ["a"], columns: new Map([["a", [...first]]]) };
        try {
          for (const cmd of cmds) {
            if (!cmd.check(model)) continue;
            await cmd.run(model, r);
            expect([...r.t.names]).toEqual(model.names);
          }
        } finally {
          await r.t.close();
        }
        const reader = await openCtable(store, "t");
        expect(text(await store.get("t/__rootdirs__"))).toBe(`{"names": [${model.names.map((n) => `"${n}"`).join(", ")}]}\n`);
        for (const name of model.names) expect(asPlain(await reader.readColumn(name)), name).toEqual(model.columns.get(name));
        expect(await store.get("t/.lock")).toBeUndefined();
        expect(await store.get(`t/${APPEND_JOURNAL_FILE}`)).toBeUndefined();
      }),
      { numRuns: 120 },
    );
  });
});
