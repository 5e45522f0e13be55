// The SIMD comparison kernel (src/compare-wasm.ts, wasm/compare.c) against the plain JavaScript
// comparison written here, on random blocks with NaN, ±0, ±Infinity, subnormals and ties with the
// scalar, every operator and lengths around the 16-row step and the 64-row threshold; the counts
// the kernels return against the 1s of that mask.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { MIN_WASM_ROWS, compareScalarWasm, countOnesWasm, evaluateTermsWasm, maskRowsWasm } from "../src/compare-wasm.js";
import type { ScalarTerm } from "../src/compare-wasm.js";
import { compileExpression } from "../src/expression.js";
import type { CmpOp } from "../src/kernels.js";
import { parseDtype } from "@fmt/meta";

const OPS: readonly CmpOp[] = ["==", "!=", "<", "<=", ">", ">="];

function reference(op: CmpOp, a: ArrayLike<number>, b: number, n: number): Uint8Array {
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    const x = a[i]!;
    out[i] = op === "==" ? +(x === b) : op === "!=" ? +(x !== b) : op === "<" ? +(x < b) : op === "<=" ? +(x <= b) : op === ">" ? +(x > b) : +(x >= b);
  }
  return out;
}

function ones(mask: Uint8Array): number {
  let count = 0;
  for (const v of mask) count += v;
  return count;
}

/**
 * Runs the kernel both ways (mask and count, count only) and checks both against the reference
 * when it is used: the count is the number of 1s of the reference mask.
 */
function checkKernel(op: CmpOp, a: Float64Array | Float32Array | Int32Array, b: number, n: number, out: Uint8Array, expectUsed: boolean): void {
  const counted = compareScalarWasm(op, a, b, n, out);
  const countOnly = compareScalarWasm(op, a, b, n);
  if (!expectUsed) {
    expect([counted, countOnly]).toEqual([-1, -1]);
    return;
  }
  const expected = reference(op, a, b, n);
  expect(out.subarray(0, n)).toEqual(expected);
  expect([counted, countOnly]).toEqual([ones(expected), ones(expected)]);
}

const special = [NaN, 0, -0, Infinity, -Infinity, 5e-324, -5e-324, 1, -1, 2.5, 1e308, Math.fround(0.1)];
const doubleValue = fc.oneof(fc.constantFrom(...special), fc.double(), fc.integer({ min: -3, max: 3 }));
const lengths = fc.oneof(fc.integer({ min: 0, max: 200 }), fc.constantFrom(MIN_WASM_ROWS - 1, MIN_WASM_ROWS, MIN_WASM_ROWS + 15, MIN_WASM_ROWS + 16, 65_536 + 7));

describe("compareScalarWasm", () => {
  it("float64 blocks: the mask JavaScript computes, for any scalar", () => {
    fc.assert(
      fc.property(fc.constantFrom(...OPS), lengths, fc.array(doubleValue, { minLength: 1, maxLength: 97 }), doubleValue, fc.nat(), (op, n, pool, scalar, pick) => {
        const a = Float64Array.from({ length: n }, (_, i) => pool[(i * 7 + pick) % pool.length]!);
        const b = pick % 3 === 0 && n > 0 ? a[pick % n]! : scalar; // ties with stored values
        checkKernel(op, a, b, n, new Uint8Array(n).fill(9), n >= MIN_WASM_ROWS);
      }),
      { numRuns: 300 },
    );
  });

  it("float32 blocks: exact for float32 scalars, declined for the others", () => {
    fc.assert(
      fc.property(fc.constantFrom(...OPS), lengths, fc.array(fc.oneof(doubleValue, fc.float()), { minLength: 1, maxLength: 50 }), doubleValue, fc.nat(), (op, n, pool, scalar, pick) => {
        const a = Float32Array.from({ length: n }, (_, i) => pool[(i * 5 + pick) % pool.length]!);
        const b = pick % 3 === 0 && n > 0 ? a[pick % n]! : scalar;
        checkKernel(op, a, b, n, new Uint8Array(n).fill(9), n >= MIN_WASM_ROWS && Math.fround(b) === b);
      }),
      { numRuns: 300 },
    );
  });

  it("int32 blocks: exact for int32 scalars, declined for the others", () => {
    const int32 = fc.oneof(fc.integer(), fc.constantFrom(-(2 ** 31), 2 ** 31 - 1, 0, -1, 1));
    fc.assert(
      fc.property(fc.constantFrom(...OPS), lengths, fc.array(int32, { minLength: 1, maxLength: 50 }), fc.oneof(int32, doubleValue, fc.constantFrom(2 ** 31, -(2 ** 31) - 1)), fc.nat(), (op, n, pool, scalar, pick) => {
        const a = Int32Array.from({ length: n }, (_, i) => pool[(i * 3 + pick) % pool.length]!);
        const b = pick % 3 === 0 && n > 0 ? a[pick % n]! : scalar;
        checkKernel(op, a, b, n, new Uint8Array(n).fill(9), n >= MIN_WASM_ROWS && (b | 0) === b);
      }),
      { numRuns: 300 },
    );
  });

  it("views at any offset and blocks longer than n: only rows [0, n) are compared", () => {
    const backing = new Float64Array(300).map((_, i) => (i % 11) - 5);
    const a = backing.subarray(13, 250);
    const out = new Uint8Array(200).fill(7);
    expect(compareScalarWasm("<", a, 0, 150, out)).toBe(ones(reference("<", a, 0, 150)));
    expect(out.subarray(0, 150)).toEqual(reference("<", a, 0, 150));
    expect(compareScalarWasm("<", a, 0, 150)).toBe(ones(reference("<", a, 0, 150)));
    expect([...out.subarray(150)].every((v) => v === 7)).toBe(true);
  });

  it("mask row numbers and count: the 1s of any 0/1 mask, in order, from any first row (runs, isolated bytes, tails)", () => {
    // First rows up to 2^53 − n: every row number is an exact float64.
    const firstRow = fc.oneof(fc.constant(0), fc.nat(), fc.integer({ min: 2 ** 32 - 70_000, max: 2 ** 32 + 70_000 }), fc.integer({ min: 0, max: 2 ** 53 - 70_000 }));
    fc.assert(
      fc.property(fc.oneof(fc.integer({ min: 0, max: 300 }), fc.constantFrom(65_536, 65_536 + 9)), fc.double({ min: 0, max: 1, noNaN: true }), fc.nat(), firstRow, (n, density, seed, first) => {
        let state = seed | 1;
        const mask = new Uint8Array(n);
        for (let i = 0; i < n; i++) {
          state ^= state << 13;
          state ^= state >>> 17;
          state ^= state << 5;
          mask[i] = (state >>> 0) / 2 ** 32 < density ? 1 : 0;
        }
        const rows = maskRowsWasm(mask, first);
        const expected: number[] = [];
        for (let i = 0; i < n; i++) if (mask[i] === 1) expected.push(first + i);
        if (n < MIN_WASM_ROWS) {
          expect([rows, countOnesWasm(mask)]).toEqual([undefined, -1]);
        } else {
          expect(rows).toEqual(Float64Array.from(expected));
          expect(countOnesWasm(mask)).toBe(expected.length);
        }
      }),
      { numRuns: 200 },
    );
  });

  it("terms joined by & or |: the mask, count and row numbers of the row-by-row combination", () => {
    const term = fc.tuple(fc.constantFrom(...OPS), fc.constantFrom("f64", "f32", "i32"), fc.array(doubleValue, { minLength: 1, maxLength: 40 }), doubleValue, fc.nat());
    fc.assert(
      fc.property(fc.array(term, { minLength: 1, maxLength: 4 }), lengths, fc.boolean(), (specs, n, isAnd) => {
        const terms: ScalarTerm[] = specs.map(([op, kind, pool, scalar, pick]) => {
          const values = Array.from({ length: n }, (_, i) => pool[(i * 7 + pick) % pool.length]!);
          const a = kind === "f64" ? Float64Array.from(values) : kind === "f32" ? Float32Array.from(values) : Int32Array.from(values, (v) => (Number.isFinite(v) ? Math.trunc(v) : 0));
          const b = kind === "i32" ? Math.trunc(Number.isFinite(scalar) ? scalar % 1000 : 3) : kind === "f32" ? Math.fround(scalar) : scalar;
          return { op, a, b };
        });
        const expected = new Uint8Array(n).fill(isAnd ? 1 : 0);
        for (const t of terms) {
          const r = reference(t.op, t.a, t.b, n);
          for (let i = 0; i < n; i++) expected[i] = isAnd ? expected[i]! & r[i]! : expected[i]! | r[i]!;
        }
        // The mask is a view of module memory: copied before the next call may grow (detach) it.
        const inModule = evaluateTermsWasm(terms, n, isAnd, "mask");
        const mask = inModule === undefined ? undefined : { bytes: inModule.bytes.slice(), count: inModule.count };
        const count = evaluateTermsWasm(terms, n, isAnd, "count");
        const first = n * 7919;
        const rows = evaluateTermsWasm(terms, n, isAnd, "rows", first);
        // A NaN scalar against float32 is declined (see the float32 test), and so the whole.
        if (n < MIN_WASM_ROWS || terms.some((t) => t.a instanceof Float32Array && Number.isNaN(t.b))) {
          expect([mask, count, rows]).toEqual([undefined, undefined, undefined]);
          return;
        }
        // Compared as text: deep equality of 65,000-entry arrays is slow.
        expect(mask?.bytes.join("")).toBe(expected.join(""));
        expect([mask?.count, count]).toEqual([ones(expected), ones(expected)]);
        expect(rows?.join()).toBe([...expected.keys()].filter((i) => expected[i] === 1).map((i) => first + i).join());
      }),
      { numRuns: 300 },
    );
  });

  it("terms the kernels cannot do exactly are declined as a whole", () => {
    const a = new Float64Array(100).fill(1);
    const f = new Float32Array(100).fill(1);
    expect(evaluateTermsWasm([{ op: ">", a, b: 0 }, { op: "<", a: f, b: 0.1 }], 100, true, "count")).toBeUndefined(); // 0.1 is no float32
    expect(evaluateTermsWasm([{ op: ">", a, b: 0 }, { op: "<", a: new Int32Array(100), b: 0.5 }], 100, false, "mask")).toBeUndefined();
    expect(evaluateTermsWasm([{ op: ">", a, b: 0 }], 101, true, "count")).toBeUndefined(); // longer than the block
    expect(evaluateTermsWasm([], 100, true, "count")).toBeUndefined();
    expect(evaluateTermsWasm([{ op: ">", a, b: 0 }, { op: "<", a: f, b: 2 }], 100, true, "count")).toBe(100);
  });

  it("compiled expressions give the same masks through the kernel as row by row", () => {
    const n = 1000;
    const f = Float64Array.from({ length: n }, (_, i) => (i % 17 === 0 ? NaN : Math.sin(i) * 100));
    const q = Int32Array.from({ length: n }, (_, i) => (i * 7919) % 201 - 100);
    const compiled = compileExpression("(f > 12.5) & (q <= 3) | (f != f)", { f: { dtype: parseDtype("<f8") }, q: { dtype: parseDtype("<i4") } });
    const mask = compiled.evaluate({ f: new Uint8Array(f.buffer), q: new Uint8Array(q.buffer) }, n);
    const expected = Uint8Array.from({ length: n }, (_, i) => +((f[i]! > 12.5 && q[i]! <= 3) || Number.isNaN(f[i]!)));
    expect(mask).toEqual(expected);
  });
});
