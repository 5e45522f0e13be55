// `bcolz-ts sql` against numpy: a ctable is exported with `bcolz-ts export --to t.npy`, numpy
// (/usr/bin/python3) computes a sum, a filtered count, a group-by over an int column and the
// min/max of a datetime column from that file, and `sql` must print the same answers. Then the
// output forms, the error for a missing @fmt/duckdb, and a 5 M-row table streamed through
// DuckDB while the JS memory high-water mark stays far below the table's size.
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FileSystemStore } from "@fmt/fs-adapters/node";
import { isBcolzError } from "@fmt/errors";
import { createCtable, openCtable } from "@fmt/store";
import { TEST_SEED } from "../../../tools/test-seed.js";
import { cli } from "./run-cli.js";
import { LineSink } from "../src/output-stream.js";
import { loadDuckdb, runSqlCommand } from "../src/sql.js";

const tmp = mkdtempSync(join(tmpdir(), "cli-sql-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));


/** A small deterministic generator (xorshift32). */
function rng(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s / 2 ** 32;
  };
}

const ROWS = 20_000;
const dir = join(tmp, "t.bcolz");

beforeAll(async () => {
  const r = rng(TEST_SEED);
  const g = Int32Array.from({ length: ROWS }, () => Math.floor(r() * 12) - 3);
  const x = Float64Array.from({ length: ROWS }, () => (r() - 0.3) * 1000);
  const flag = Uint8Array.from({ length: ROWS }, () => (r() < 0.4 ? 1 : 0));
  const ts = BigInt64Array.from({ length: ROWS }, () => 1_400_000_000_000_000_000n + BigInt(Math.floor(r() * 2 ** 52)) * 1000n + BigInt(Math.floor(r() * 1000)));
  const sym = Array.from({ length: ROWS }, () => ["AB", "CDE", "Z"][Math.floor(r() * 3)]!);
  const t = await createCtable(new FileSystemStore(dir), "", [
    { name: "g", data: g },
    { name: "x", data: x },
    { name: "flag", data: { bytes: flag }, options: { dtype: "|b1" } },
    { name: "ts", data: { bytes: new Uint8Array(ts.buffer) }, options: { dtype: "<M8[ns]" } },
    { name: "sym", data: sym, options: { dtype: "<U3" } },
  ], { chunklen: 3000 });
  await t.close();
});

const NUMPY = `
import json, sys
import numpy as np
a = np.load(sys.argv[1])
groups = sorted(set(int(v) for v in a["g"]))
print(json.dumps({
  "sum": float(a["x"].sum()),
  "count": int(((a["x"] > 100) & a["flag"]).sum()),
  "groups": [[g, int((a["g"] == g).sum()), float(a["x"][a["g"] == g].sum())] for g in groups],
  "tsmin": str(int(a["ts"].min().view("i8"))),
  "tsmax": str(int(a["ts"].max().view("i8"))),
  "len": int(len(a)),
}))
`;

describe("bcolz-ts sql against numpy", () => {
  let numpy: { sum: number; count: number; groups: [number, number, number][]; tsmin: string; tsmax: string; len: number };

  beforeAll(async () => {
    const npy = join(tmp, "t.npy");
    const exported = await cli("export", dir, "--to", npy, "--no-progress");
    expect(exported.code, exported.stderr).toBe(0);
    numpy = JSON.parse(execFileSync("/usr/bin/python3", ["-c", NUMPY, npy], { encoding: "utf8" })) as typeof numpy;
    expect(numpy.len).toBe(ROWS);
  });

  it("sums a column", async () => {
    const r = await cli("sql", dir, "SELECT sum(x) AS s FROM t");
    expect(r.code, r.stderr).toBe(0);
    const [header, value] = r.stdout.trim().split("\n");
    expect(header).toBe("s");
    expect(Number(value)).toBeCloseTo(numpy.sum, 6);
  });

  it("counts with a filter", async () => {
    const r = await cli("sql", dir, "SELECT count(*) AS n FROM t WHERE x > 100 AND flag", "--no-header");
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(`${numpy.count}\n`);
  });

  it("groups by an int column", async () => {
    const r = await cli("sql", dir, "SELECT g, count(*) AS n, sum(x) AS s FROM t GROUP BY g ORDER BY g", "--json");
    expect(r.code, r.stderr).toBe(0);
    const rows = r.stdout.trim().split("\n").map((line) => JSON.parse(line) as { g: number; n: number; s: number });
    expect(rows.map((row) => [row.g, row.n])).toEqual(numpy.groups.map(([g, n]) => [g, n]));
    rows.forEach((row, i) => expect(row.s).toBeCloseTo(numpy.groups[i]![2], 6));
  });

  it("finds the min and max of a datetime column", async () => {
    const r = await cli("sql", dir, "SELECT epoch_ns(min(ts)) AS lo, epoch_ns(max(ts)) AS hi, min(ts) AS lo_text FROM t", "--no-header");
    expect(r.code, r.stderr).toBe(0);
    const [lo, hi, text] = r.stdout.trim().split("\t");
    expect([lo, hi]).toEqual([numpy.tsmin, numpy.tsmax]);
    // The text form is DuckDB's: the same instant, to the nanosecond.
    const iso = execFileSync("/usr/bin/python3", ["-c", `import numpy as np; print(str(np.datetime64(${numpy.tsmin}, "ns")))`], { encoding: "utf8" }).trim();
    expect(text!.replace(" ", "T").padEnd(iso.length, "0")).toBe(iso);
  });

  it("names the table with --name and prints strings and booleans like cat", async () => {
    const r = await cli("sql", dir, "SELECT sym, flag FROM trades ORDER BY g, x LIMIT 3", "--name", "trades");
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.trim().split("\n");
    expect(lines[0]).toBe("sym\tflag");
    for (const line of lines.slice(1)) expect(line).toMatch(/^(AB|CDE|Z)\t(True|False)$/);
  });

  it("reports bad SQL as a usage error (exit 2) and a missing directory as exit 3", async () => {
    const bad = await cli("sql", dir, "SELECT FROM WHERE");
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^error INVALID_ARGUMENT: .*DuckDB/);
    const missing = await cli("sql", join(tmp, "nope.bcolz"), "SELECT 1");
    expect(missing.code).toBeGreaterThanOrEqual(2);
  });

  it("tells the user to install @fmt/duckdb when it is absent", async () => {
    const absent = (): Promise<unknown> => Promise.reject(Object.assign(new Error("Cannot find package '@fmt/duckdb' imported from /x/sql.js"), { code: "ERR_MODULE_NOT_FOUND" }));
    await expect(loadDuckdb(absent)).rejects.toSatisfy((e: unknown) => isBcolzError(e, "INVALID_ARGUMENT") && /npm install @fmt\/duckdb/.test((e as Error).message));
    const sink = new LineSink(new Writable({ write: (_c, _e, cb) => cb() }));
    await expect(runSqlCommand(await openCtable(new FileSystemStore(dir)), "SELECT 1", { importer: absent }, sink)).rejects.toSatisfy((e: unknown) => isBcolzError(e, "INVALID_ARGUMENT"));
    // Other failures of the import are not disguised.
    await expect(loadDuckdb(() => Promise.reject(new TypeError("boom")))).rejects.toThrow("boom");
  });
});

describe("bcolz-ts sql over 5 M rows", () => {
  it("streams the table into DuckDB without holding it in JS memory", async () => {
    const N = 5_000_000;
    const big = join(tmp, "big.bcolz");
    const started = Date.now();
    const t = await createCtable(new FileSystemStore(big), "", [{ name: "x", data: { bytes: new Uint8Array(0) }, options: { dtype: "<f8" } }, { name: "g", data: { bytes: new Uint8Array(0) }, options: { dtype: "<i4" } }], { chunklen: 65536, cparams: { cname: "lz4", clevel: 1 } });
    // Appended in pieces, so that the test itself never holds the whole table either.
    const piece = 1_000_000;
    let expectedSum = 0;
    for (let start = 0; start < N; start += piece) {
      const x = Float64Array.from({ length: piece }, (_, i) => ((start + i) % 1000) / 8);
      const g = Int32Array.from({ length: piece }, (_, i) => (start + i) % 7);
      for (let i = 0; i < piece; i++) expectedSum += x[i]!;
      await t.append({ x, g });
    }
    await t.close();
    const created = Date.now() - started;
    const tableBytes = N * (8 + 4);

    // Through the command line: the answer.
    let queryStart = Date.now();
    const r = await cli("sql", big, "SELECT count(*), sum(x) FROM t", "--no-header");
    const viaCli = Date.now() - queryStart;
    expect(r.code, r.stderr).toBe(0);
    const [count, sum] = r.stdout.trim().split("\t");
    expect(count).toBe(String(N));
    expect(Number(sum)).toBeCloseTo(expectedSum, 3);

    // The same command, measured after every batch: live ArrayBuffers (after a full collection,
    // so that garbage does not count) and the process's resident set, against a baseline taken
    // with DuckDB's library already loaded.
    setFlagsFromString("--expose-gc");
    const gc = runInNewContext("gc") as () => void;
    gc();
    const base = process.memoryUsage();
    let peakArrayBuffers = 0;
    let peakRss = 0;
    let batches = 0;
    const onBatch = (): void => {
      batches++;
      gc();
      const m = process.memoryUsage();
      peakArrayBuffers = Math.max(peakArrayBuffers, m.arrayBuffers - base.arrayBuffers);
      peakRss = Math.max(peakRss, m.rss - base.rss);
    };
    let out = "";
    const sink = new LineSink(new Writable({ write: (c: Buffer, _e, cb) => ((out += String(c)), cb()) }));
    queryStart = Date.now();
    await runSqlCommand(await openCtable(new FileSystemStore(big)), "SELECT count(*), sum(x) FROM t", { header: false, onBatch }, sink);
    await sink.flush();
    const measured = Date.now() - queryStart;
    expect(out).toBe(r.stdout);
    expect(batches).toBe(Math.ceil(N / 65536));
    console.log(`5M rows (${(tableBytes / 2 ** 20).toFixed(1)} MiB of values): created in ${created} ms; sql in ${viaCli} ms (${measured} ms with a GC per batch); ${batches} batches; peak live ArrayBuffers +${(peakArrayBuffers / 2 ** 20).toFixed(1)} MiB, peak RSS +${(peakRss / 2 ** 20).toFixed(1)} MiB`);
    // JS holds about one block at a time (one batch in flight) and, per column, the few buffers the
    // reader reads chunk files into (the fetches in flight, reused from chunk to chunk; 7.6–8 MiB
    // for these two columns): far below the table (57 MiB), let alone twice.
    expect(peakArrayBuffers).toBeLessThan(tableBytes / 4);
    // The whole process, DuckDB's own copy of the table included, stays below holding the rows twice.
    expect(peakRss).toBeLessThan(2 * tableBytes);
  });
});
