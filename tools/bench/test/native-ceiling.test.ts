// native_ceiling.c, the native side of tools/bench/ceiling.mjs, built here with the system's
// libblosc and run on carrays real bcolz 1.2.1 wrote (conformance/corpus): with one thread and
// with two, its read-all must hold the bytes the corpus expects (the sum of their 64-bit words)
// and its sum must be theirs; a carray it does not read must get an error line, not a number.
import { cpSync, mkdtempSync, readFileSync, rmSync, truncateSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
// @ts-expect-error -- plain JavaScript module without type declarations
import { buildNativeCeiling, startNativeCeiling } from "../lib/native-ceiling.mjs";

type Ceiling = { run(op: string, dir: string, threads: number): Promise<{ seconds: number; check: number; words: bigint | undefined }>; close(): Promise<void> };

const here = dirname(fileURLToPath(import.meta.url));
const corpus = join(here, "../../../conformance/corpus/v1/bcolz-real");
/** 6,000 float64 values (NaN and infinities among them) in chunks of 1,600: three full chunk files and a leftover of 1,200 rows. */
const F8 = join(corpus, "carray_f8_n6000_cl1600");
/** One float64 value: a sum that is exactly it. */
const ONE = join(corpus, "edge_f8_len1");
/** An int32 carray: not one the program reads. */
const I4 = join(corpus, "carray_i4_n5000_cl1024", "data.bcolz");

/** The corpus's expected values of `dir`. */
function expected(dir: string): Float64Array {
  const bytes = readFileSync(join(dir, "expected", "values.bin"));
  return new Float64Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
}

/** The sum of the values' 64-bit words modulo 2^64. */
function wordSum(values: Float64Array): bigint {
  let s = 0n;
  for (const w of new BigUint64Array(values.buffer, values.byteOffset, values.length)) s = (s + w) & 0xffffffffffffffffn;
  return s;
}

describe("native_ceiling.c", () => {
  const dir = mkdtempSync(join(tmpdir(), "native-ceiling-"));
  let ceiling: Ceiling;
  beforeAll(() => {
    ceiling = startNativeCeiling(buildNativeCeiling(join(dir, "native-ceiling"))) as Ceiling;
  });
  afterAll(async () => {
    await ceiling.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("reads every value of a carray real bcolz wrote, with one thread and with two", async () => {
    const values = expected(F8);
    expect(values.length).toBe(6000);
    expect(values.some((v) => Number.isNaN(v))).toBe(true);
    for (const threads of [1, 2]) {
      // A program of its own, read-all first: its result is memory no earlier run filled, so a
      // chunk left unwritten cannot pass for one read.
      const fresh = startNativeCeiling(buildNativeCeiling(join(dir, "native-ceiling"))) as Ceiling;
      try {
        const got = await fresh.run("readall", join(F8, "data.bcolz"), threads);
        expect(got.words).toBe(wordSum(values));
        expect(got.check).toBeNaN();
        expect(got.seconds).toBeGreaterThan(0);
      } finally {
        await fresh.close();
      }
    }
  });

  it("sums what it reads, with one thread and with two", async () => {
    const [value] = expected(ONE);
    expect(Number.isFinite(value)).toBe(true);
    for (const threads of [1, 2]) {
      const got = await ceiling.run("sum", join(ONE, "data.bcolz"), threads);
      expect(got.check).toBe(value);
      expect(got.words).toBeUndefined();
      // The values with NaN among them sum to NaN, as numpy's and ours do.
      expect((await ceiling.run("sum", join(F8, "data.bcolz"), threads)).check).toBeNaN();
    }
  });

  it("answers a carray of another dtype, a missing directory, a short chunk file and an unknown operation with errors", async () => {
    await expect(ceiling.run("readall", I4, 1)).rejects.toThrow(/not a float64 carray/);
    await expect(ceiling.run("sum", join(dir, "absent"), 2)).rejects.toThrow(/cannot read meta/);
    await expect(ceiling.run("mean", join(F8, "data.bcolz"), 1)).rejects.toThrow(/unknown operation mean/);
    // A chunk file cut short: an error naming it, not values read past its end.
    const cut = join(dir, "cut.bcolz");
    cpSync(join(F8, "data.bcolz"), cut, { recursive: true });
    truncateSync(join(cut, "data", "__1.blp"), 100);
    for (const threads of [1, 2]) await expect(ceiling.run("readall", cut, threads)).rejects.toThrow(/cannot read or decode .*__1\.blp/);
    // Still answering after the errors.
    expect((await ceiling.run("sum", join(ONE, "data.bcolz"), 1)).check).toBe(expected(ONE)[0]);
  });
});
