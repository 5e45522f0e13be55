// Property tests: any slice, step, block length or row of real bcolz data reads back exactly.
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { openCarray, openCtable } from "@fmt/store";
import type { CArray } from "@fmt/store";
import { asCArray, asPlain, datasetDir, equalBytes, expectedBytes, expectedValues, manifest, memoryCopy } from "./helpers.js";
import type { CarrayCase, CtableCase } from "./helpers.js";

async function subjects(): Promise<{ label: string; array: CArray; expected: Uint8Array; dtype: string }[]> {
  const out: { label: string; array: CArray; expected: Uint8Array; dtype: string }[] = [];
  for (const name of ["carray_i4_n5000_cl1024", "edge_f8_3chunks_plus_leftover", "carray_S7_n3000_cl800", "carray_b1_n7777_cl2500"]) {
    const c = manifest.cases.find((x) => x.name === name) as CarrayCase;
    out.push({ label: name, array: await openCarray(memoryCopy(datasetDir(c))), expected: expectedBytes(c, "values.bin", c.expected["values.bin"].sha256), dtype: c.dtype });
  }
  const t = manifest.cases.find((x) => x.name === "ctable_addcol") as CtableCase;
  const table = await openCtable(memoryCopy(datasetDir(t)));
  const col = t.columns.find((x) => x.name === "c")!;
  out.push({ label: "ctable_addcol/c", array: asCArray(table.column("c")), expected: expectedBytes(t, col.expected_file, col.sha256), dtype: col.dtype });
  return out;
}

describe("reads of arbitrary ranges match the expected bytes (property)", async () => {
  const all = await subjects();
  it.each(all.map((s) => [s.label, s] as const))("%s", async (_label, s) => {
    const { array, expected, dtype } = s;
    const n = array.length;
    const atom = array.atomSize;
    const values = expectedValues(expected, dtype);
    const bound = fc.integer({ min: -n - 5, max: n + 5 });
    await fc.assert(
      fc.asyncProperty(
        fc.option(bound, { nil: undefined }),
        fc.option(bound, { nil: undefined }),
        fc.integer({ min: 1, max: 3 * array.chunklen }),
        async (start, stop, step) => {
          const norm = (v: number | undefined, d: number) => (v === undefined ? d : v < 0 ? Math.max(0, v + n) : Math.min(v, n));
          const want: unknown[] = [];
          for (let i = norm(start, 0); i < norm(stop, n); i += step) want.push(values[i]);
          expect(asPlain(await array.read(start, stop, step))).toEqual(want);
        },
      ),
      { numRuns: 60 },
    );
    await fc.assert(
      fc.asyncProperty(fc.nat(n), fc.nat(n), fc.integer({ min: 1, max: 3 * array.chunklen }), async (x, y, blockLen) => {
        const [a, b] = x <= y ? [x, y] : [y, x];
        expect(equalBytes(await array.readBytes(a, b), expected.subarray(a * atom, b * atom))).toBe(true);
        const parts: Uint8Array[] = [];
        let at = a;
        for await (const block of array.iterBlocks(blockLen, a, b)) {
          expect(block.start).toBe(at);
          expect(block.stop > block.start).toBe(true);
          expect(block.stop === b || block.stop % blockLen === 0).toBe(true);
          parts.push(block.bytes);
          at = block.stop;
        }
        expect(at).toBe(b);
        expect(equalBytes(Buffer.concat(parts), expected.subarray(a * atom, b * atom))).toBe(true);
        if (n > 0) {
          const row = x % n;
          expect(equalBytes(await array.getBytes(row), expected.subarray(row * atom, (row + 1) * atom))).toBe(true);
        }
      }),
      { numRuns: 60 },
    );
  });
});
