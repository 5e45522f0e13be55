// Test helper: generate Blosc chunks with the real c-blosc (one Python process per batch).
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import fc from "fast-check";

export const CNAMES = ["blosclz", "lz4", "lz4hc", "snappy", "zlib", "zstd"] as const;
export const DATA_KINDS = ["random", "zeros", "walk_f8", "walk_i4", "walk_i2", "repeat", "lowentropy", "mixed"] as const;

export interface OracleCase {
  id: number;
  seed: number;
  size: number;
  typesize: number;
  data: (typeof DATA_KINDS)[number];
  cname: (typeof CNAMES)[number];
  shuffle: 0 | 1 | 2;
  clevel: number;
  blocksize: number;
  nthreads: number;
}

export interface OracleResult {
  case: OracleCase;
  data: Uint8Array;
  chunk: Uint8Array;
}

const SCRIPT = fileURLToPath(new URL("./cblosc_oracle.py", import.meta.url));

/** Arbitrary for one c-blosc compression case; `maxSize` bounds the input length. */
export function oracleCaseArb(maxSize: number): fc.Arbitrary<Omit<OracleCase, "id">> {
  return fc.record({
    seed: fc.integer({ min: 0, max: 2 ** 31 - 1 }),
    size: fc.oneof(
      { weight: 2, arbitrary: fc.integer({ min: 0, max: Math.min(5000, maxSize) }) },
      { weight: 3, arbitrary: fc.integer({ min: 0, max: maxSize }) },
    ),
    typesize: fc.oneof(
      { weight: 4, arbitrary: fc.constantFrom(1, 2, 4, 8) },
      { weight: 3, arbitrary: fc.integer({ min: 1, max: 24 }) },
      { weight: 2, arbitrary: fc.integer({ min: 1, max: 300 }) },
    ),
    data: fc.constantFrom(...DATA_KINDS),
    cname: fc.constantFrom(...CNAMES),
    shuffle: fc.constantFrom(0 as const, 1 as const, 2 as const),
    clevel: fc.integer({ min: 0, max: 9 }),
    blocksize: fc.oneof(
      { weight: 3, arbitrary: fc.constant(0) },
      { weight: 1, arbitrary: fc.integer({ min: 1, max: 70000 }) },
    ),
    nthreads: fc.constantFrom(1, 1, 2, 4),
  });
}

/** Compress every case with c-blosc 1.21 in one Python run; returns inputs and chunks. */
export function runOracle(cases: OracleCase[]): { version: string; results: OracleResult[] } {
  const dir = mkdtempSync(join(tmpdir(), "blosc-oracle-"));
  try {
    writeFileSync(join(dir, "cases.json"), JSON.stringify(cases));
    const out = execFileSync("/usr/bin/python3", [SCRIPT, join(dir, "cases.json"), dir], { encoding: "utf8", maxBuffer: 1 << 20 });
    const info = JSON.parse(out.trim().split("\n").pop()!) as { version: string; cases: number };
    const results = cases.map((c) => ({
      case: c,
      data: new Uint8Array(readFileSync(join(dir, `${c.id}.data`))),
      chunk: new Uint8Array(readFileSync(join(dir, `${c.id}.chunk`))),
    }));
    return { version: info.version, results };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Sample `n` cases deterministically from `seed`. */
export function sampleCases(n: number, seed: number, maxSize: number): OracleCase[] {
  return fc.sample(oracleCaseArb(maxSize), { numRuns: n, seed }).map((c, id) => ({ ...c, id }));
}
