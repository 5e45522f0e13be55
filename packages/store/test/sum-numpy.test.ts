// CArray.sum of floats against numpy (python3-numpy through /usr/bin/python3) adding the chunks
// the way bcolz 1.2.1's carray.sum does: `result += chunk[:].sum()` for every chunk, then the
// leftover rows. numpy sums each chunk pairwise in buffers of 8,192 values, so the result depends
// on the order of additions; ours must equal bcolz's to the last bit, not only approximately.
import { execFileSync } from "node:child_process";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { MemoryStore } from "@fmt/fs-adapters";
import { createCarray } from "@fmt/store";

interface Case {
  values: number[];
  chunklen: number;
  dtype: "float64" | "float32";
}

/** bcolz's sums of every case, computed by numpy in one python3 process. */
function bcolzSums(cases: Case[]): number[] {
  const script = `
import sys, json, struct
import numpy as np
out = []
for case in json.load(sys.stdin):
    a = np.array(case["values"], dtype=np.float64).astype(case["dtype"])
    n = case["chunklen"]
    # bcolz sums float32 chunks in float64 only when asked; ours is documented as double
    # precision, so the chunks are summed as float64 here.
    a = a.astype(np.float64)
    r = np.float64(0)
    for i in range(0, len(a), n):
        r += a[i:i + n].sum()
    out.append(str(struct.unpack("<q", struct.pack("<d", float(r)))[0]))
print(json.dumps(out))
`;
  const text = execFileSync("/usr/bin/python3", ["-c", script], { input: JSON.stringify(cases), encoding: "utf8", maxBuffer: 64 << 20 });
  // The bits of each double (as decimal text: JSON numbers would round them), so that -0 and
  // the last bit are compared too.
  return (JSON.parse(text) as string[]).map((bits) => {
    const view = new DataView(new ArrayBuffer(8));
    view.setBigInt64(0, BigInt(bits), true);
    return view.getFloat64(0, true);
  });
}

const magnitude = fc.constantFrom(1e-300, 1e-5, 1, 1e3, 1e9, 1e15, 1e300);
const caseArb: fc.Arbitrary<Case> = fc.record({
  scale: magnitude,
  raw: fc.array(fc.double({ min: -1, max: 1, noNaN: true }), { minLength: 0, maxLength: 20_000 }),
  chunklen: fc.constantFrom(1, 7, 8, 100, 129, 1000, 8192, 8193, 16_384, 20_000),
  dtype: fc.constantFrom("float64" as const, "float32" as const),
}).map(({ scale, raw, chunklen, dtype }) => ({ values: raw.map((v) => v * scale), chunklen, dtype }));

describe("sum() adds floats in bcolz's order (numpy oracle)", () => {
  it("equals bcolz's sum to the last bit on generated arrays", async () => {
    const cases = fc.sample(caseArb, { numRuns: 60, seed: 20261124 });
    // Long runs of large and small values, where the order of additions shows most.
    cases.push({ values: Array.from({ length: 70_000 }, (_, i) => (i % 3 === 0 ? 1e16 : 1.5) * (i % 2 === 0 ? 1 : -0.75)), chunklen: 65_536, dtype: "float64" });
    const want = bcolzSums(cases);
    for (let c = 0; c < cases.length; c++) {
      const { values, chunklen, dtype } = cases[c]!;
      const typed = dtype === "float64" ? Float64Array.from(values) : Float32Array.from(values);
      const a = await createCarray(new MemoryStore(), "", typed, { dtype, chunklen });
      const got = await a.sum();
      expect(Object.is(got, want[c]), `case ${c}: ${values.length} values, chunklen ${chunklen}, ${dtype}: ${String(got)} vs numpy ${want[c]}`).toBe(true);
    }
  }, 60_000);

  it("differs from one running total where numpy's order differs (the oracle can tell)", async () => {
    // Guards the test above: on these values a left-to-right sum and bcolz's differ.
    const values = new Float64Array(20_000).fill(0.1);
    let sequential = 0;
    for (const v of values) sequential += v;
    const [bcolz] = bcolzSums([{ values: Array.from(values), chunklen: 20_000, dtype: "float64" }]);
    expect(bcolz).not.toBe(sequential);
    const a = await createCarray(new MemoryStore(), "", values, { dtype: "float64", chunklen: 20_000 });
    expect(await a.sum()).toBe(bcolz);
  });
});
