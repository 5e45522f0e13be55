// The WebAssembly float64 sum (@fmt/blosc sumTransientFloat64, used by CArray.sum on chunks
// decoded in the kernels' memory) against the TypeScript sum in numpy's order (sumLikeNumpy,
// itself checked against numpy in sum-numpy.test.ts): bit for bit, on lengths around the 8-value
// and 128-value pairwise limits and numpy's 8,192-value buffers, with NaN, ±0, ±∞, subnormals
// and values of very different magnitudes.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compress, decompressPlannedTransient, planChunk, sumTransientFloat64 } from "@fmt/blosc";
import { sumLikeNumpy } from "../src/carray-scan.js";

const value = fc.oneof(
  { weight: 6, arbitrary: fc.double({ noNaN: false }) },
  { weight: 3, arbitrary: fc.double({ min: -1e6, max: 1e6, noNaN: true }) },
  { weight: 1, arbitrary: fc.constantFrom(0, -0, Infinity, -Infinity, NaN, 5e-324, -5e-324, 1e308, 1, 1e-16) },
);
const length = fc.oneof(fc.integer({ min: 0, max: 300 }), fc.constantFrom(7, 8, 9, 127, 128, 129, 136, 8191, 8192, 8193, 16_384 + 5, 40_000));

function same(a: number, b: number): boolean {
  return Object.is(a, b) || (Number.isNaN(a) && Number.isNaN(b));
}

describe("float64 sums in the kernels", () => {
  it("equal the TypeScript sum in numpy's order, bit for bit (property)", () => {
    fc.assert(
      fc.property(length, fc.array(value, { minLength: 1, maxLength: 64 }), value, fc.nat(), (n, pool, start, shift) => {
        const values = Float64Array.from({ length: n }, (_, i) => pool[(i * 7 + shift) % pool.length]! * (i % 3 === 0 ? 1 : 1e-3));
        const bytes = new Uint8Array(values.buffer);
        const chunk = compress(bytes, { typesize: 8, clevel: 5, shuffle: 1, cname: "lz4" });
        const view = decompressPlannedTransient(chunk, planChunk(chunk));
        expect(view).toBeDefined();
        const inKernels = sumTransientFloat64(view!, start);
        if (n * 8 >= 128 && !planChunk(chunk).header.memcpyed) {
          expect(inKernels).toBeDefined();
        }
        const expected = sumLikeNumpy(values, start);
        if (inKernels !== undefined && !same(inKernels, expected)) expect.fail(`n ${n}: kernels ${inKernels}, TypeScript ${expected}`);
      }),
      { numRuns: 300 },
    );
  });

  it("decline bytes outside the kernels' memory", () => {
    expect(sumTransientFloat64(new Uint8Array(new Float64Array([1, 2]).buffer), 0)).toBeUndefined();
  });
});
