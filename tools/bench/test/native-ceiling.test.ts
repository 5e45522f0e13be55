// native_ceiling.c, the native side of tools/bench/ceiling.mjs, built here with the system's
// libblosc and run on carrays real bcolz 1.2.1 wrote (conformance/corpus): with one thread and
// with two, its read-all must hold the bytes the corpus expects, in order (their position-weighted
// hash), and its sum must add every value; a carray it does not read must get an error line, not
// a number.
import { cpSync, mkdtempSync, readFileSync, rmSync, truncateSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
// @ts-expect-error -- plain JavaScript module without type declarations
import { buildNativeCeiling, resultHash, startNativeCeiling } from "../lib/native-ceiling.mjs";

type Answer = { seconds: number; check: number; hash: number | undefined; count: number };
type Ceiling = { run(op: string, dir: string, threads: number): Promise<Answer>; version(): Promise<string>; close(): Promise<void> };
const hashOf = resultHash as (values: Float64Array) => number;

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

/** The sum of (i + 1) x the values' 32-bit word i, modulo 2^32, in BigInt arithmetic. */
function positionHash(values: Float64Array): number {
  let hash = 0n;
  const words = new Uint32Array(values.buffer, values.byteOffset, values.length * 2);
  for (let i = 0; i < words.length; i++) hash = (hash + BigInt(i + 1) * BigInt(words[i]!)) % 0x100000000n;
  return Number(hash);
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

  it("reads every value of a carray real bcolz wrote, in order, with one thread and with two", async () => {
    const values = expected(F8);
    expect(values.length).toBe(6000);
    expect(values.some((v) => Number.isNaN(v))).toBe(true);
    for (const threads of [1, 2]) {
      // A program of its own, read-all first: its result is memory no earlier run filled, so a
      // chunk left unwritten cannot pass for one read.
      const fresh = startNativeCeiling(buildNativeCeiling(join(dir, "native-ceiling"))) as Ceiling;
      try {
        const got = await fresh.run("readall", join(F8, "data.bcolz"), threads);
        expect(got.hash).toBe(positionHash(values));
        expect(got.count).toBe(6000);
        expect(got.check).toBeNaN();
      } finally {
        await fresh.close();
      }
    }
  });

  it("sums every value it reads, with one thread and with two", async () => {
    const [value] = expected(ONE);
    expect(Number.isFinite(value)).toBe(true);
    for (const threads of [1, 2]) {
      const one = await ceiling.run("sum", join(ONE, "data.bcolz"), threads);
      expect(one.check).toBe(value);
      expect(one.hash).toBeUndefined();
      expect(one.count).toBe(1);
      // The values with NaN among them sum to NaN, as numpy's and ours do; all 6,000 are added.
      const all = await ceiling.run("sum", join(F8, "data.bcolz"), threads);
      expect(all.check).toBeNaN();
      expect(all.count).toBe(6000);
    }
  });

  it("hashes a result as ceiling.mjs hashes ours", () => {
    const values = expected(F8);
    expect(hashOf(values)).toBe(positionHash(values));
    // Two values swapped: another hash.
    const swapped = values.slice();
    [swapped[0], swapped[1]] = [swapped[1]!, swapped[0]!];
    expect(hashOf(swapped)).not.toBe(hashOf(values));
  });

  it("names the c-blosc it runs", async () => {
    expect(await ceiling.version()).toMatch(/^1\.\d+\.\d+/);
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
