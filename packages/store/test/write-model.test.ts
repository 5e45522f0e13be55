// Model-based property test: random sequences of append / set / resize / trim / flush / reopen /
// attribute changes (and, in format 2, compaction) on a real CArray, compared after every step with
// a plain in-memory model (an array of rows), on MemoryStore and on FileSystemStore, for several
// dtypes, in both format versions. Format 2 also runs on a store without positional writes (the
// path object stores take) and with random superchunk sizes, spare room and checksums.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { MemoryStore } from "@fmt/fs-adapters";
import type { WritableStore } from "@fmt/fs-adapters";
import { FileSystemStore } from "@fmt/fs-adapters/node";
import { createCarray, openCarray } from "@fmt/store";
import type { CArray, Values } from "@fmt/store";


type Elem = number | bigint | string | boolean;

interface Kind {
  dtype: string;
  trailing: number[];
  elem: fc.Arbitrary<Elem>;
  dflt: Elem;
  plain(values: Values): Elem[];
}

const KINDS: Kind[] = [
  { dtype: "<i4", trailing: [], elem: fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }), dflt: 7, plain: (v) => Array.from(v as Int32Array) },
  { dtype: "<f8", trailing: [], elem: fc.double(), dflt: NaN, plain: (v) => Array.from(v as Float64Array) },
  { dtype: ">i8", trailing: [2], elem: fc.bigInt(-(2n ** 63n), 2n ** 63n - 1n), dflt: -5n, plain: (v) => Array.from(v as BigInt64Array) },
  { dtype: "|S3", trailing: [], elem: fc.stringMatching(/^[a-z]{0,3}$/), dflt: "ab", plain: (v) => (v as Uint8Array[]).map((b) => new TextDecoder().decode(b)) },
  { dtype: "|b1", trailing: [], elem: fc.boolean(), dflt: true, plain: (v) => Array.from(v as Uint8Array, (x) => x === 1) },
  { dtype: "<U2", trailing: [3], elem: fc.stringMatching(/^[a-zé☃]{0,2}$/), dflt: "", plain: (v) => v as string[] },
];

interface Model {
  rows: Elem[][];
  attrs: Map<string, number>;
}
interface Real {
  store: WritableStore;
  array: CArray;
  kind: Kind;
}

/** A MemoryStore seen without `writeAt`/`byteLength`, as an object store offers it. */
function wholeObjectStore(): WritableStore {
  const inner = new MemoryStore();
  return {
    get: (k) => inner.get(k), getRange: (k, r) => inner.getRange(k, r), list: (p) => inner.list(p), put: (k, v, o) => inner.put(k, v, o),
    delete: (k) => inner.delete(k), putExclusive: (k, v) => inner.putExclusive(k, v),
  };
}

const width = (k: Kind) => k.trailing.reduce((a, b) => a * b, 1);
const rowArb = (k: Kind) => fc.array(k.elem, { minLength: width(k), maxLength: width(k) });

async function check(m: Model, r: Real): Promise<void> {
  expect(r.array.length).toBe(m.rows.length);
  expect(r.kind.plain(await r.array.read())).toEqual(m.rows.flat());
  expect(r.array.attrs.keys()).toEqual([...m.attrs.keys()]);
  for (const [k, v] of m.attrs) expect(r.array.attrs.get(k)).toBe(v);
}

class Append implements fc.AsyncCommand<Model, Real> {
  constructor(readonly rows: Elem[][]) {}
  check = () => true;
  async run(m: Model, r: Real) {
    await r.array.append(this.rows.flat() as never);
    m.rows.push(...this.rows);
    await check(m, r);
  }
  toString = () => `append(${this.rows.length})`;
}
class SetRows implements fc.AsyncCommand<Model, Real> {
  constructor(readonly picks: number[], readonly row: Elem[], readonly mode: "list" | "slice" | "mask" | "one") {}
  check = (m: Readonly<Model>) => m.rows.length > 0;
  async run(m: Model, r: Real) {
    const n = m.rows.length;
    const rows = [...new Set(this.picks.map((p) => p % n))];
    if (this.mode === "one") {
      await r.array.set(rows[0]! - n, this.row.length === 1 ? this.row[0]! : this.row);
      m.rows[rows[0]!] = [...this.row];
    } else if (this.mode === "list") {
      await r.array.set(rows, rows.flatMap(() => this.row));
      for (const i of rows) m.rows[i] = [...this.row];
    } else if (this.mode === "mask") {
      const mask = m.rows.map((_, i) => rows.includes(i));
      await r.array.set(mask, this.row);
      for (const i of rows) m.rows[i] = [...this.row];
    } else {
      const start = rows[0]!;
      const step = 1 + (this.picks.length % 3);
      await r.array.set({ start, step }, this.row);
      for (let i = start; i < n; i += step) m.rows[i] = [...this.row];
    }
    await check(m, r);
  }
  toString = () => `set(${this.mode}, ${this.picks.join(",")})`;
}
class Resize implements fc.AsyncCommand<Model, Real> {
  constructor(readonly n: number) {}
  check = () => true;
  async run(m: Model, r: Real) {
    await r.array.resize(this.n);
    const fill = Array.from({ length: width(r.kind) }, () => r.kind.dflt);
    while (m.rows.length < this.n) m.rows.push([...fill]);
    m.rows.length = this.n;
    await check(m, r);
  }
  toString = () => `resize(${this.n})`;
}
class Trim implements fc.AsyncCommand<Model, Real> {
  constructor(readonly n: number) {}
  check = (m: Readonly<Model>) => this.n <= m.rows.length;
  async run(m: Model, r: Real) {
    await r.array.trim(this.n);
    m.rows.length -= this.n;
    await check(m, r);
  }
  toString = () => `trim(${this.n})`;
}
class Flush implements fc.AsyncCommand<Model, Real> {
  check = () => true;
  async run(m: Model, r: Real) {
    await r.array.flush();
    await check(m, r);
  }
  toString = () => "flush";
}
class Reopen implements fc.AsyncCommand<Model, Real> {
  check = () => true;
  async run(m: Model, r: Real) {
    await r.array.close();
    const reader = await openCarray(r.store, "ds");
    await check(m, { ...r, array: reader });
    r.array = await openCarray(r.store, "ds", { mode: "a" });
    await check(m, r);
  }
  toString = () => "reopen";
}
class Compact implements fc.AsyncCommand<Model, Real> {
  check = () => true;
  async run(m: Model, r: Real) {
    const before = await r.array.compact();
    expect(before).toBeGreaterThanOrEqual(0);
    if (r.array.formatVersion === 2) expect(await r.array.compact()).toBe(0); // nothing left to reclaim
    await check(m, r);
    await check(m, { ...r, array: await openCarray(r.store, "ds") });
  }
  toString = () => "compact";
}
class Attr implements fc.AsyncCommand<Model, Real> {
  constructor(readonly key: string, readonly value: number | undefined) {}
  check = () => true;
  async run(m: Model, r: Real) {
    if (this.value === undefined) {
      await r.array.attrs.delete(this.key);
      m.attrs.delete(this.key);
    } else {
      // Python dict semantics: an existing key keeps its position.
      await r.array.attrs.set(this.key, this.value);
      m.attrs.set(this.key, this.value);
    }
    await check(m, r);
  }
  toString = () => `attr(${this.key}=${this.value})`;
}

function commands(k: Kind) {
  return fc.commands(
    [
      fc.array(rowArb(k), { maxLength: 12 }).map((rows) => new Append(rows)),
      fc.tuple(fc.array(fc.nat(), { minLength: 1, maxLength: 6 }), rowArb(k), fc.constantFrom("list", "slice", "mask", "one") as fc.Arbitrary<"list">).map(([p, row, mode]) => new SetRows(p, row, mode)),
      fc.nat({ max: 30 }).map((n) => new Resize(n)),
      fc.nat({ max: 6 }).map((n) => new Trim(n)),
      fc.constant(new Flush()),
      fc.constant(new Reopen()),
      fc.constant(new Compact()),
      fc.tuple(fc.constantFrom("a", "b", "10"), fc.option(fc.integer(), { nil: undefined })).map(([key, v]) => new Attr(key, v)),
    ],
    { maxCommands: 25 },
  );
}

const v2Options = fc.record({
  superchunksize: fc.integer({ min: 1, max: 4 }),
  spare: fc.constantFrom(0, 10, 60, 100),
  checksum: fc.constantFrom("adler32", "crc32", "none", "sha256") as fc.Arbitrary<"adler32">,
});

async function runModel(k: Kind, makeStore: () => { store: WritableStore; cleanup: () => void }, numRuns: number, formatVersion: 1 | 2 = 1): Promise<void> {
  await fc.assert(
    fc.asyncProperty(fc.integer({ min: 1, max: 5 }), fc.array(rowArb(k), { maxLength: 9 }), commands(k), v2Options, async (chunklen, initial, cmds, v2) => {
      const { store, cleanup } = makeStore();
      try {
        const format = formatVersion === 1 ? {} : { formatVersion, ...v2 };
        const array = await createCarray(store, "ds", initial.flat() as never, { dtype: k.dtype, shape: k.trailing, chunklen, dflt: k.dflt, ...format });
        expect(array.formatVersion).toBe(formatVersion);
        const real: Real = { store, array, kind: k };
        const model: Model = { rows: initial.map((r) => [...r]), attrs: new Map() };
        await check(model, real);
        await fc.asyncModelRun(() => ({ model, real }), cmds);
        await real.array.close();
        await check(model, { ...real, array: await openCarray(store, "ds") });
        expect(await store.get("ds/.lock")).toBeUndefined();
        expect(await store.get("ds/.journal")).toBeUndefined();
        const files = (await store.list!("ds/")).map((f) => f.slice(3));
        // Only the files of the dataset's version (spec v1 §3.1, v2 §10.5): no leftovers of staging.
        const allowed = formatVersion === 1 ? /^(meta\/(sizes|storage)|__attrs__|data\/__\d+\.blp)$/ : /^(meta\/(shape|storage)|__attrs__|data\/__\d+__\.bin)$/;
        expect(files.filter((f) => !allowed.test(f))).toEqual([]);
      } finally {
        cleanup();
      }
    }),
    { numRuns },
  );
}

describe("format-2 carray writes follow an in-memory model (fc.commands)", () => {
  for (const k of KINDS) {
    it(`MemoryStore ${k.dtype}${JSON.stringify(k.trailing)}`, async () => {
      await runModel(k, () => ({ store: new MemoryStore(), cleanup: () => undefined }), 40, 2);
    });
  }
  for (const k of [KINDS[0]!, KINDS[3]!]) {
    it(`store without writeAt ${k.dtype}`, async () => {
      await runModel(k, () => ({ store: wholeObjectStore(), cleanup: () => undefined }), 25, 2);
    });
    it(`FileSystemStore ${k.dtype}`, async () => {
      await runModel(
        k,
        () => {
          const dir = mkdtempSync(join(tmpdir(), "carray-model-v2-"));
          return { store: new FileSystemStore(dir), cleanup: () => rmSync(dir, { recursive: true, force: true }) };
        },
        10,
        2,
      );
    });
  }
});

describe("carray writes follow an in-memory model (fc.commands)", () => {
  for (const k of KINDS) {
    it(`MemoryStore ${k.dtype}${JSON.stringify(k.trailing)}`, async () => {
      await runModel(k, () => ({ store: new MemoryStore(), cleanup: () => undefined }), 60);
    });
  }
  for (const k of [KINDS[0]!, KINDS[2]!, KINDS[3]!]) {
    it(`FileSystemStore ${k.dtype}`, async () => {
      await runModel(
        k,
        () => {
          const dir = mkdtempSync(join(tmpdir(), "carray-model-"));
          return { store: new FileSystemStore(dir), cleanup: () => rmSync(dir, { recursive: true, force: true }) };
        },
        12,
      );
    });
  }
});
