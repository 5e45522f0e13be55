// runWhere over a table that lives in memory, with no store behind it: random expressions,
// ranges, limits and block lengths against the per-row reference evaluator, JS predicates
// against the same reference, and the options it refuses. (CTable.where over the real bcolz
// ctables is tested in packages/store/test/where.test.ts.)
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { UsageError } from "@fmt/errors";
import { parseDtype } from "@fmt/meta";
import type { DType } from "@fmt/meta";
import { decodeValues, formatExpression, runWhere } from "../src/index.js";
import type { TypedValues, Values, WhereTable } from "../src/index.js";
import { columnRefType, expressionArbitrary, randomBlock, refType, refWhere } from "./expression-reference.js";
import type { GenSchema } from "./expression-reference.js";

const TYPES: [string, string][] = [
  ["flag", "|b1"],
  ["qty", "<i4"],
  ["price", "<f8"],
  ["id", "<i8"],
  ["big", "<u8"],
  ["sym", "|S4"],
];

const GEN: GenSchema = {
  bool: ["flag"],
  num: ["qty", "price", "id", "big"],
  bytes: ["sym"],
  text: [],
  numbers: [0n, -1n, 2147483647n, 2n ** 63n, 0.5, -0],
  byteValues: [new Uint8Array([0x61]), new Uint8Array([0xff, 0])],
  strings: ["a", ""],
};

/** A table over whole columns of stored bytes; records which columns each iteration asked for. */
class MemoryTable implements WhereTable {
  readonly names: readonly string[];
  readonly requested: string[][] = [];
  private readonly dtypes: Map<string, DType>;

  constructor(
    readonly length: number,
    private readonly bytes: { [name: string]: Uint8Array },
    private readonly chunklen: number,
  ) {
    this.names = TYPES.map(([name]) => name);
    this.dtypes = new Map(TYPES.map(([name, d]) => [name, parseDtype(d)]));
  }

  column(name: string): { dtype: DType; shape: readonly number[]; itemsPerRow: number; chunklen: number } {
    return { dtype: this.dtypes.get(name)!, shape: [this.length], itemsPerRow: 1, chunklen: this.chunklen };
  }

  async *iterBlocks(options: { columns: readonly string[]; blockLen?: number; start: number; stop: number }): AsyncIterable<{ start: number; stop: number; columns: { [name: string]: Uint8Array } }> {
    this.requested.push([...options.columns]);
    const blockLen = options.blockLen ?? this.chunklen;
    // Blocks start at multiples of blockLen, like CTable's chunk-aligned blocks.
    for (let first = Math.floor(options.start / blockLen) * blockLen; first < options.stop; first += blockLen) {
      const start = Math.max(first, options.start);
      const stop = Math.min(first + blockLen, options.stop);
      const columns: { [name: string]: Uint8Array } = {};
      for (const name of options.columns) {
        const size = this.dtypes.get(name)!.itemsize;
        columns[name] = this.bytes[name]!.slice(start * size, stop * size);
      }
      yield { start, stop, columns };
    }
  }
}

const refTypes = new Map(TYPES.map(([n, d]) => [n, columnRefType(d)] as const));
const conditions = expressionArbitrary(GEN).filter((t) => {
  try {
    return refType(t, refTypes) === "bool";
  } catch {
    return false;
  }
});

function thrown(fn: () => Promise<unknown>): Promise<UsageError> {
  return fn().then(
    () => {
      throw new Error("expected a UsageError, nothing was thrown");
    },
    (e: unknown) => {
      if (e instanceof UsageError) return e;
      throw new Error(`expected a UsageError, got ${String(e)}`);
    },
  );
}

describe("runWhere on an in-memory table", () => {
  it("matches the per-row reference for any expression, range, limit and block length", async () => {
    await fc.assert(
      fc.asyncProperty(
        conditions,
        fc.integer({ min: 0, max: 200 }),
        fc.integer(),
        fc.integer({ min: 1, max: 70 }),
        fc.option(fc.integer({ min: -250, max: 250 }), { nil: undefined }),
        fc.option(fc.integer({ min: -250, max: 250 }), { nil: undefined }),
        // Limits past a block of 64 rows or more too, where the kernels count and list matches.
        fc.option(fc.oneof(fc.integer({ min: 0, max: 40 }), fc.integer({ min: 0, max: 250 })), { nil: undefined }),
        async (tree, length, seed, blockLen, start, stop, limit) => {
          const { ref, bytes } = randomBlock(TYPES, length, seed);
          const table = new MemoryTable(length, bytes, 16);
          const text = formatExpression(tree);
          const lo = start === undefined ? 0 : Math.min(Math.max(start < 0 ? start + length : start, 0), length);
          const hi = Math.max(lo, stop === undefined ? length : Math.min(Math.max(stop < 0 ? stop + length : stop, 0), length));
          const expected = refWhere(tree, ref, length)
            .filter((i) => i >= lo && i < hi)
            .slice(0, limit ?? Infinity);
          const options = { start, stop, limit, blockLen };
          expect(await runWhere(table, text, options)).toEqual(Float64Array.from(expected));
          expect(await runWhere(table, text, { ...options, as: "count" })).toBe(expected.length);
          const rows = (await runWhere(table, text, { ...options, as: "rows", columns: ["id", "sym"] })) as { [name: string]: Values };
          expect(Object.keys(rows)).toEqual(["id", "sym"]);
          const ids = decodeValues(bytes["id"]!, parseDtype("<i8")) as BigInt64Array;
          const syms = decodeValues(bytes["sym"]!, parseDtype("|S4")) as Uint8Array[];
          expect([...(rows["id"] as TypedValues)]).toEqual(expected.map((i) => ids[i]));
          expect(rows["sym"]).toEqual(expected.map((i) => syms[i]));
        },
      ),
      { numRuns: 300 },
    );
  });

  it("reads only the columns the expression uses, plus the projection for rows", async () => {
    const { bytes } = randomBlock(TYPES, 50, 7);
    const table = new MemoryTable(50, bytes, 16);
    await runWhere(table, "price > 0 & qty < 3", { as: "count" });
    await runWhere(table, "qty < 3", { as: "rows", columns: ["sym", "qty"] });
    expect(table.requested).toEqual([
      ["price", "qty"],
      ["qty", "sym"],
    ]);
  });

  it("gives block and row predicates the decoded columns they ask for", async () => {
    const length = 123;
    const { ref, bytes } = randomBlock(TYPES, length, 99);
    const table = new MemoryTable(length, bytes, 10);
    const qty = ref.find((c) => c.name === "qty")!.values as number[];
    const expected = Float64Array.from(qty.flatMap((q, i) => (q % 3 === 0 ? [i] : [])));
    const seenColumns: string[][] = [];
    const viaBlock = await runWhere(table, {
      columns: ["qty"],
      block: ({ length: n, columns }) => {
        seenColumns.push(Object.keys(columns));
        const q = columns["qty"] as Int32Array;
        return Array.from({ length: n }, (_, i) => q[i]! % 3 === 0);
      },
    });
    const viaRow = await runWhere(table, { row: (r, index) => (r["qty"] as number) % 3 === 0 && index >= 0, columns: ["qty"] });
    expect(viaBlock).toEqual(expected);
    expect(viaRow).toEqual(expected);
    expect(new Set(seenColumns.map((c) => c.join()))).toEqual(new Set(["qty"]));
  });

  it("joins row numbers listed by the kernels and found one by one in order, whole and cut by any limit", async () => {
    // From row 30 in blocks of 64: rows 30-63 and 192-199 are compared in JavaScript (fewer than
    // 64 rows), one by one, and the blocks between by the SIMD kernels, which list row numbers.
    // With blocks of 32 every row is found one by one.
    const length = 200;
    const { ref, bytes } = randomBlock(TYPES, length, 5);
    const table = new MemoryTable(length, bytes, 64);
    const qty = ref.find((c) => c.name === "qty")!.values as number[];
    for (const blockLen of [64, 32]) {
      const all = qty.flatMap((q, i) => (q > 0 && i >= 30 ? [i] : []));
      for (const [from, to] of [[30, 64], [64, 192], [192, 200]] as const) expect(all.some((i) => i >= from && i < to)).toBe(true);
      const whole = await runWhere(table, "qty > 0", { start: 30, blockLen });
      expect(whole).toBeInstanceOf(Float64Array);
      expect(whole).toEqual(Float64Array.from(all));
      for (let limit = 0; limit <= all.length + 1; limit++) {
        expect(await runWhere(table, "qty > 0", { start: 30, blockLen, limit }), `blockLen ${blockLen}, limit ${limit}`).toEqual(Float64Array.from(all.slice(0, limit)));
      }
    }
  });

  it("refuses bad options, bad queries and masks of the wrong length", async () => {
    const { bytes } = randomBlock(TYPES, 20, 3);
    const table = new MemoryTable(20, bytes, 8);
    const bad: [() => Promise<unknown>, string][] = [
      [() => runWhere(table, "qty >", {}), "expression"],
      [() => runWhere(table, "nope > 1", {}), "expression"],
      [() => runWhere(table, "qty > 1", { as: "list" as never }), "as"],
      [() => runWhere(table, "qty > 1", { limit: -1 }), "limit"],
      [() => runWhere(table, "qty > 1", { blockLen: 0 }), "blockLen"],
      [() => runWhere(table, "qty > 1", { start: 1.5 }), "start"],
      [() => runWhere(table, "qty > 1", { columns: ["nope"] }), "columns.0"],
      [() => runWhere(table, { block: () => new Uint8Array(1) }), "predicate"],
      [() => runWhere(table, 42 as never), "query"],
    ];
    for (const [call, field] of bad) {
      const error = await thrown(call);
      expect(error.code).toBe("INVALID_ARGUMENT");
      expect(error.field).toBe(field);
    }
  });
});
