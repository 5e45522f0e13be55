// CTable.where and CTable.iterBlocks({columns}) over the real bcolz ctables of the corpus: random
// expressions are evaluated block by block and compared with the per-row reference evaluator run
// on the values of expected/*.bin (written by Python bcolz, independent of this code).
import { describe, expect, it } from "vitest";

import fc from "fast-check";
import { UsageError } from "@fmt/errors";
import { MemoryStore } from "@fmt/fs-adapters";
import { createCtable, decodeValues, formatExpression, openCtable } from "@fmt/store";
import type { CTable, ExpressionNode } from "@fmt/store";
import { asCArray, asPlain, datasetDir, expectedBytes, expectedValues, manifest, memoryCopy } from "./helpers.js";
import type { CtableCase } from "./helpers.js";
import { columnRefType, expressionArbitrary, randomBlock, refType, refWhere } from "../../expr/test/expression-reference.js";
import type { GenSchema, RefColumn } from "../../expr/test/expression-reference.js";

const ctables = manifest.cases.filter((c): c is CtableCase => c.kind === "ctable");

interface Loaded {
  table: CTable;
  ref: RefColumn[];
  gen: GenSchema;
}

const loaded = new Map<string, Promise<Loaded>>();

function load(c: CtableCase): Promise<Loaded> {
  let p = loaded.get(c.name);
  if (p === undefined) {
    p = (async () => {
      const table = await openCtable(memoryCopy(datasetDir(c)));
      const ref: RefColumn[] = c.columns.map((col) => ({ name: col.name, dtype: col.dtype, values: expectedValues(expectedBytes(c, col.expected_file, col.sha256), col.dtype) }));
      const gen: GenSchema = { bool: [], num: [], bytes: [], text: [], numbers: [], byteValues: [], strings: ["IBM", "", "a"] };
      for (const col of ref) {
        const t = columnRefType(col.dtype);
        if (t === "bool") gen.bool.push(col.name);
        else if (t === "S") {
          gen.bytes.push(col.name);
          const seen = new Set<string>();
          for (const v of col.values as number[][]) {
            const key = v.join(",");
            if (!seen.has(key) && seen.size < 30) {
              seen.add(key);
              gen.byteValues.push(Uint8Array.from(v));
            }
          }
        } else if (t === "U") gen.text.push(col.name);
        else {
          gen.num.push(col.name);
          for (let k = 0; k < 12; k++) {
            const v = col.values[Math.floor((k * 7919) % col.values.length)];
            if (typeof v === "bigint") gen.numbers.push(v);
            else if (typeof v === "number" && Number.isFinite(v)) gen.numbers.push(Number.isInteger(v) && t !== "f" ? BigInt(v) : v);
          }
        }
      }
      return { table, ref, gen };
    })();
    loaded.set(c.name, p);
  }
  return p;
}

function wellTyped(gen: GenSchema, ref: RefColumn[]): fc.Arbitrary<ExpressionNode> {
  const types = new Map(ref.map((c) => [c.name, columnRefType(c.dtype)] as const));
  return expressionArbitrary(gen).filter((t) => {
    try {
      return refType(t, types) === "bool";
    } catch {
      return false;
    }
  });
}

it("the corpus has the ctables this suite uses", () => {
  expect(ctables.map((c) => c.name).sort()).toEqual(["blosc114_ctable_mixed", "ctable_addcol", "ctable_append_after_reopen", "ctable_mixed", "ctable_mode_w_flush_default"]);
});

describe.each(ctables.map((c) => [c.name, c] as const))("%s", (_name, c) => {
  it("where(expression) matches the per-row reference, for any block length, range and limit", async () => {
    const { table, ref, gen } = await load(c);
    await fc.assert(
      fc.asyncProperty(
        wellTyped(gen, ref),
        fc.record(
          {
            blockLen: fc.integer({ min: 1, max: 4000 }),
            start: fc.integer({ min: -c.len - 5, max: c.len + 5 }),
            stop: fc.integer({ min: -c.len - 5, max: c.len + 5 }),
            // Small limits, and limits past whole blocks (where the kernels count and list matches).
            limit: fc.oneof(fc.integer({ min: 0, max: 50 }), fc.integer({ min: 0, max: c.len })),
          },
          { requiredKeys: [] },
        ),
        async (tree, opts) => {
          if (opts.blockLen !== undefined && opts.blockLen < 50 && c.len > 3000) opts.blockLen += 50; // keep runs quick
          const text = formatExpression(tree);
          let expected = refWhere(tree, ref, c.len);
          const norm = (v: number | undefined, dflt: number): number => (v === undefined ? dflt : v < 0 ? Math.max(0, v + c.len) : Math.min(v, c.len));
          const a = norm(opts.start, 0);
          const b = Math.max(a, norm(opts.stop, c.len));
          expected = expected.filter((i) => i >= a && i < b);
          if (opts.limit !== undefined) expected = expected.slice(0, opts.limit);
          expect(await table.where(text, opts)).toEqual(Float64Array.from(expected));
          expect(await table.where(text, { ...opts, as: "count" })).toBe(expected.length);
        },
      ),
      { numRuns: c.name === "ctable_mixed" ? 300 : 60 },
    );
  });

  it('as: "rows" returns the matching rows of the projected columns', async () => {
    const { table, ref, gen } = await load(c);
    await fc.assert(
      fc.asyncProperty(wellTyped(gen, ref), fc.shuffledSubarray(c.names, { minLength: 0 }), async (tree, columns) => {
        const expected = refWhere(tree, ref, c.len);
        const rows = await table.where(formatExpression(tree), { as: "rows", columns });
        expect(Object.keys(rows)).toEqual(columns);
        for (const name of columns) {
          const col = ref.find((r) => r.name === name)!;
          const values = expected.map((i) => col.values[i]);
          expect(asPlain(rows[name])).toEqual(values);
          expect(rows[name]!.constructor).toBe(table.column(name).dtype.kind === "S" ? Array : (decodeValues(new Uint8Array(0), table.column(name).dtype).constructor as unknown));
        }
      }),
      { numRuns: 25 },
    );
  });

  it("JS predicates (block and per-row) agree with the equivalent expression", async () => {
    const { table, ref } = await load(c);
    const numeric = ref.find((r) => ["i", "u", "f"].includes(r.dtype[1]!) && r.dtype[2] !== "8")!;
    const text = `${numeric.name} > 2`;
    const expected = await table.where(text);
    expect(expected).toEqual(Float64Array.from(refWhere({ kind: "compare", op: ">", left: { kind: "column", name: numeric.name }, right: { kind: "integer", value: 2n } }, ref, c.len)));
    const seenColumns = new Set<string>();
    const viaBlock = await table.where((block) => {
      for (const k of Object.keys(block.columns)) seenColumns.add(k);
      const v = block.columns[numeric.name] as Float64Array;
      return Array.from({ length: block.length }, (_, i) => v[i]! > 2);
    });
    expect(viaBlock).toEqual(expected);
    expect([...seenColumns].sort()).toEqual([...c.names].sort());
    const viaBlockObject = await table.where({ block: (b) => (b.columns[numeric.name] as Float64Array).map((x) => (x > 2 ? 1 : 0)), columns: [numeric.name] });
    expect(viaBlockObject).toEqual(expected);
    const indices: number[] = [];
    const viaRow = await table.where({
      row: (r, i) => {
        indices.push(i);
        expect(Object.keys(r)).toEqual([numeric.name]);
        return (r[numeric.name] as number) > 2;
      },
      columns: [numeric.name],
    });
    expect(viaRow).toEqual(expected);
    expect(indices).toEqual(Array.from({ length: c.len }, (_, i) => i));
  });

  it("iterBlocks({columns}) yields only the selected columns, chunk-aligned by default", async () => {
    const { table } = await load(c);
    const pick = [c.names[c.names.length - 1]!, c.names[0]!];
    const first = table.column(pick[0]!);
    const seen: [number, number][] = [];
    const parts: Uint8Array[] = [];
    for await (const block of table.iterBlocks({ columns: pick, start: 5, stop: c.len - 3 })) {
      expect(Object.keys(block.columns)).toEqual(pick[0] === pick[1] ? [pick[0]] : pick);
      seen.push([block.start, block.stop]);
      parts.push(block.columns[pick[0]!]!);
    }
    const boundaries: [number, number][] = [];
    for (let s = 5; s < c.len - 3; ) {
      const e = Math.min(c.len - 3, (Math.floor(s / first.chunklen) + 1) * first.chunklen);
      boundaries.push([s, e]);
      s = e;
    }
    expect(seen).toEqual(boundaries);
    expect(Buffer.concat(parts).equals(Buffer.from(await asCArray(first).readBytes(5, c.len - 3)))).toBe(true);
    const empty: [number, number][] = [];
    for await (const block of table.iterBlocks({ columns: [], blockLen: 1000 })) {
      expect(Object.keys(block.columns)).toEqual([]);
      empty.push([block.start, block.stop]);
    }
    expect(empty[0]).toEqual([0, Math.min(1000, c.len)]);
    expect(empty[empty.length - 1]![1]).toBe(c.len);
  });
});

describe("where on ctable_mixed (8 columns: i8, f8, i4, b1, S6, M8[ns], u2, f4)", () => {
  const c = ctables.find((x) => x.name === "ctable_mixed")!;

  it("handles NaN, ±inf, NaT, interior NULs and non-UTF-8 bytes like numpy", async () => {
    const { table, ref } = await load(c);
    const values = (name: string): unknown[] => ref.find((r) => r.name === name)!.values;
    const where = (pred: (i: number) => boolean): Float64Array => Float64Array.from(Array.from({ length: c.len }, (_, i) => i).filter(pred));
    const price = values("price") as number[];
    const sym = values("sym") as number[][];
    const ts = values("ts") as bigint[];
    expect(await table.where("price != price")).toEqual(where((i) => Number.isNaN(price[i]!)));
    expect(await table.where("price > 1e308 | price < -1e308")).toEqual(where((i) => Math.abs(price[i]!) > 1e308));
    expect(await table.where("price == 1.7976931348623157e308")).toEqual(where((i) => price[i] === Number.MAX_VALUE));
    expect(await table.where('sym == b"a\\x00b"')).toEqual(where((i) => sym[i]!.join() === "97,0,98"));
    expect(await table.where('sym == b"\\xff\\xfe"')).toEqual(where((i) => sym[i]!.join() === "255,254"));
    expect(await table.where('sym == ""')).toEqual(where((i) => sym[i]!.length === 0));
    expect(await table.where('sym == "IBM\\0\\0"')).toEqual(where((i) => sym[i]!.join() === "73,66,77"));
    expect(await table.where("ts == -9223372036854775808")).toEqual(where((i) => ts[i] === -(2n ** 63n)));
    expect((await table.where("ts == -9223372036854775808")).length).toBeGreaterThan(0);
    expect(await table.where("flag & qty > 2147483646")).toEqual(where((i) => values("flag")[i] === 1 && (values("qty")[i] as number) > 2147483646));
  });

  it("reads only the columns the query and projection need", async () => {
    const { table } = await load(c);
    const store = table.store as unknown as { get(key: string): Promise<Uint8Array | undefined> };
    const original = store.get.bind(store);
    const keys = new Set<string>();
    store.get = async (key: string) => {
      keys.add(key.split("/")[0]!);
      return original(key);
    };
    try {
      await table.where("qty > 3 & flag", { as: "rows", columns: ["id"] });
    } finally {
      store.get = original;
    }
    expect([...keys].sort()).toEqual(["flag", "id", "qty"]);
  });

  it("refuses bad queries and options with UsageError", async () => {
    const { table } = await load(c);
    const cases: [unknown, unknown, string][] = [
      ["price >", {}, "expression"],
      ["nope > 1", {}, "expression"],
      ['price == "x"', {}, "expression"],
      ["price", {}, "expression"],
      ["price > 1", { as: "list" }, "as"],
      ["price > 1", { columns: ["nope"] }, "columns.0"],
      ["price > 1", { limit: -1 }, "limit"],
      ["price > 1", { limit: 1.5 }, "limit"],
      ["price > 1", { blockLen: 0 }, "blockLen"],
      ["price > 1", null, "options"],
      [42, {}, "query"],
      [{ row: () => true, block: () => [] }, {}, "query"],
      [{ row: () => true, columns: ["nope"] }, {}, "query.columns.0"],
      [() => [true], {}, "predicate"],
      [() => 7, {}, "predicate"],
    ];
    for (const [query, options, field] of cases) {
      const error = await table.where(query as string, options as object).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error, String(query)).toBeInstanceOf(UsageError);
      expect((error as UsageError).field).toBe(field);
    }
    const boom = new Error("predicate failed");
    await expect(
      table.where(() => {
        throw boom;
      }),
    ).rejects.toBe(boom);
  });
});

describe("where on random ctables written by createCtable", () => {
  const TYPES: [string, string][] = [
    ["b", "|b1"],
    ["i1", "|i1"],
    ["i4", "<i4"],
    ["u2", "<u2"],
    ["u4", ">u4"],
    ["f4", "<f4"],
    ["f8", "<f8"],
    ["h", "<f2"],
    ["i8", "<i8"],
    ["u8", "<u8"],
    ["ts", "<M8[ns]"],
    ["s", "|S4"],
    ["u", "<U3"],
    ["ub", ">U2"],
  ];
  const genFor = (types: [string, string][]): GenSchema => ({
    bool: types.filter(([, d]) => d === "|b1").map(([n]) => n),
    num: types.filter(([, d]) => "iufM".includes(d[1]!)).map(([n]) => n),
    bytes: types.filter(([, d]) => d[1] === "S").map(([n]) => n),
    text: types.filter(([, d]) => d[1] === "U").map(([n]) => n),
    numbers: [0n, -1n, 10n, 2147483647n, -2147483648n, 4294967295n, 9007199254740993n, -(2n ** 63n), 2n ** 64n - 1n, 0.5, 2906.5, 1e300],
    byteValues: [new Uint8Array([0x61, 0, 0x62]), new Uint8Array([0xff]), new Uint8Array([0x61, 0x62])],
    strings: ["é", "ab", "\u{1F600}", ""],
  });
  const scenario = fc
    .tuple(fc.subarray(TYPES, { minLength: 1 }), fc.integer({ min: 0, max: 700 }), fc.integer())
    .chain(([types, n, seed]) => {
      const { ref } = randomBlock(types, n, seed);
      return fc.tuple(
        fc.constant(types),
        fc.constant(n),
        fc.constant(seed),
        wellTyped(genFor(types), ref),
        fc.array(fc.integer({ min: 1, max: 300 }), { minLength: types.length, maxLength: types.length }),
        fc.option(fc.integer({ min: 1, max: 500 }), { nil: undefined }),
      );
    });

  it("matches the per-row reference for every column type, byte order and chunklen", async () => {
    await fc.assert(
      fc.asyncProperty(scenario, async ([types, n, seed, tree, chunklens, blockLen]) => {
        const { ref, bytes } = randomBlock(types, n, seed);
        const store = new MemoryStore();
        const t = await createCtable(
          store,
          "r",
          types.map(([name, dtype], i) => ({ name, data: { bytes: bytes[name]! }, options: { dtype, chunklen: chunklens[i]! } })),
        );
        await t.close();
        const table = await openCtable(store, "r");
        const expected = refWhere(tree, ref, n);
        expect(await table.where(formatExpression(tree), blockLen === undefined ? {} : { blockLen })).toEqual(Float64Array.from(expected));
        expect(await table.where(formatExpression(tree, { words: true }), { as: "count" })).toBe(expected.length);
      }),
      { numRuns: 80 },
    );
  });
});
