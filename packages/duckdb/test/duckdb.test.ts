// SQL over ctables and Parquet export through DuckDB: column types (DESCRIBE), every value against
// the store's own decoded values, streaming results, SQL errors, and Parquet read back by DuckDB's
// read_parquet, with no file left behind by a failed export.
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, truncateSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DuckDBInstance } from "@duckdb/node-api";
import { FileSystemStore } from "@fmt/fs-adapters/node";
import { isBcolzError } from "@fmt/errors";
import { createCtable, openCtable } from "@fmt/store";
import type { CTable } from "@fmt/store";
import { exportParquet, querySql, streamSql } from "../src/index.js";

const tmp = mkdtempSync(join(tmpdir(), "duckdb-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const ROWS = 5000;
const NAT = -(2n ** 63n);
let table: CTable;
const ids = BigInt64Array.from({ length: ROWS }, (_, i) => BigInt(i * 7 - 1000));
const prices = Float64Array.from({ length: ROWS }, (_, i) => (i % 97) * 1.25 - 3);
const flags = Uint8Array.from({ length: ROWS }, (_, i) => (i % 3 === 0 ? 1 : 0));
const times = BigInt64Array.from({ length: ROWS }, (_, i) => (i === 10 ? NAT : 1500000000000000000n + BigInt(i) * 1000003n));
const days = BigInt64Array.from({ length: ROWS }, (_, i) => BigInt(i - 2500));
const syms = Array.from({ length: ROWS }, (_, i) => ["AB", "CDE", "", "é😀"][i % 4]!);
const raw = Array.from({ length: ROWS }, (_, i) => new Uint8Array([i % 256, 0, 65].slice(0, i % 4)));
const small = Float32Array.from({ length: ROWS }, (_, i) => i / 3);
const pairs = Int32Array.from({ length: 2 * ROWS }, (_, i) => i - ROWS);

beforeAll(async () => {
  const dir = join(tmp, "t.bcolz");
  const t = await createCtable(new FileSystemStore(dir), "", [
    { name: "id", data: ids },
    { name: "price", data: prices },
    { name: "flag", data: { bytes: flags }, options: { dtype: "|b1" } },
    { name: "ts", data: { bytes: new Uint8Array(times.buffer) }, options: { dtype: "<M8[ns]" } },
    { name: "day", data: { bytes: new Uint8Array(days.buffer) }, options: { dtype: "<M8[D]" } },
    { name: "sym", data: syms, options: { dtype: "<U3" } },
    { name: "raw", data: raw, options: { dtype: "|S3" } },
    { name: "small", data: small },
    { name: "pair", data: pairs, options: { dtype: "<i4", shape: [2] } },
  ], { chunklen: 1024 });
  await t.close();
  table = await openCtable(new FileSystemStore(dir));
});

describe("querySql", () => {
  it("gives every column its DuckDB type", async () => {
    const r = await querySql({ t: table }, "SELECT column_name, column_type FROM (DESCRIBE t)");
    expect(r.rows).toEqual([
      ["id", "BIGINT"], ["price", "DOUBLE"], ["flag", "BOOLEAN"], ["ts", "TIMESTAMP_NS"], ["day", "DATE"],
      ["sym", "VARCHAR"], ["raw", "BLOB"], ["small", "FLOAT"], ["pair", "INTEGER[2]"],
    ]);
  });

  it("holds every value the store decodes", async () => {
    const r = await querySql({ t: table }, "SELECT id, price, flag, epoch_ns(ts) AS ts, (day - DATE '1970-01-01') AS day, sym, raw, small, pair[1] AS p0, pair[2] AS p1 FROM t ORDER BY id");
    expect(r.rows.length).toBe(ROWS);
    r.rows.forEach((row, i) => {
      expect(row[0]).toBe(ids[i]);
      expect(row[1]).toBe(prices[i]);
      expect(row[2]).toBe(flags[i] === 1);
      expect(row[3]).toBe(times[i] === NAT ? null : times[i]);
      expect(Number(row[4])).toBe(Number(days[i]));
      expect(row[5]).toBe(syms[i]);
      expect(Array.from((row[6] as { bytes: Uint8Array }).bytes)).toEqual(Array.from(raw[i]!.slice(0, (() => { let e = raw[i]!.length; while (e > 0 && raw[i]![e - 1] === 0) e--; return e; })())));
      expect(row[7]).toBe(small[i]);
      expect([row[8], row[9]]).toEqual([pairs[2 * i], pairs[2 * i + 1]]);
    });
  });

  it("answers aggregates like a scan of the decoded columns", async () => {
    const r = await querySql({ trades: table }, "SELECT count(*) AS n, sum(price) AS s, min(ts) AS lo, max(id) AS hi FROM trades WHERE flag");
    let n = 0;
    let s = 0;
    for (let i = 0; i < ROWS; i++) {
      if (flags[i] === 1) {
        n++;
        s += prices[i]!;
      }
    }
    expect(r.columnNames).toEqual(["n", "s", "lo", "hi"]);
    expect(r.rows[0]![0]).toBe(BigInt(n));
    expect(r.rows[0]![1]).toBeCloseTo(s, 6);
    expect(r.rows[0]![3]).toBe(ids[ROWS - 1 - ((ROWS - 1) % 3)]);
    expect(r.json[0]!["n"]).toBe(String(n));
  });

  it("streams results in chunks", async () => {
    let rows = 0;
    let pieces = 0;
    for await (const piece of streamSql({ t: table }, "SELECT id FROM t")) {
      rows += piece.rows.length;
      pieces++;
      expect(piece.columnTypes).toEqual(["BIGINT"]);
    }
    expect(rows).toBe(ROWS);
    expect(pieces).toBeGreaterThan(1);
  });

  it("turns a query DuckDB refuses into a usage error", async () => {
    await expect(querySql({ t: table }, "SELEC nonsense")).rejects.toSatisfy((e: unknown) => isBcolzError(e, "INVALID_ARGUMENT") && (e as { field?: string }).field === "sql");
    await expect(querySql({ t: table }, "SELECT missing FROM t")).rejects.toSatisfy((e: unknown) => isBcolzError(e, "INVALID_ARGUMENT"));
  });
});

describe("exportParquet", () => {
  it("writes a Parquet file DuckDB reads back with the same types and values", async () => {
    const out = join(tmp, "t.parquet");
    expect(await exportParquet(table, out)).toBe(ROWS);
    const db = await DuckDBInstance.create(":memory:");
    const con = await db.connect();
    try {
      const described = await con.runAndReadAll(`SELECT column_name, column_type FROM (DESCRIBE SELECT * FROM read_parquet('${out}'))`);
      expect(described.getRows()).toEqual([
        ["id", "BIGINT"], ["price", "DOUBLE"], ["flag", "BOOLEAN"], ["ts", "TIMESTAMP_NS"], ["day", "DATE"],
        ["sym", "VARCHAR"], ["raw", "BLOB"], ["small", "FLOAT"], ["pair", "INTEGER[]"],
      ]);
      const back = await con.runAndReadAll(`SELECT id, price, epoch_ns(ts), sym FROM read_parquet('${out}') ORDER BY id`);
      back.getRows().forEach((row, i) => {
        expect(row).toEqual([ids[i], prices[i], times[i] === NAT ? null : times[i], syms[i]]);
      });
    } finally {
      con.closeSync();
      db.closeSync();
    }
    // Refuses to replace the file unless asked.
    await expect(exportParquet(table, out)).rejects.toSatisfy((e: unknown) => isBcolzError(e, "INVALID_ARGUMENT"));
    expect(await exportParquet(table, out, { force: true, columns: ["id"] })).toBe(ROWS);
  });

  it("leaves no file behind when a chunk is damaged", async () => {
    const copy = join(tmp, "damaged.bcolz");
    cpSync(join(tmp, "t.bcolz"), copy, { recursive: true });
    const chunk = join(copy, "price", "data", "__2.blp");
    truncateSync(chunk, Math.floor(statSync(chunk).size / 2));
    const outDir = join(tmp, "out");
    mkdirSync(outDir);
    const damaged = await openCtable(new FileSystemStore(copy));
    await expect(exportParquet(damaged, join(outDir, "x.parquet"))).rejects.toSatisfy((e: unknown) => isBcolzError(e));
    expect(readdirSync(outDir)).toEqual([]);
    expect(existsSync(join(outDir, "x.parquet"))).toBe(false);
  });
});
