// `bcolz-ts export --format parquet|arrow`: DuckDB's read_parquet reads the Parquet file back with
// the same values and types (datetimes as TIMESTAMP, strings as VARCHAR), apache-arrow reads the
// IPC file back with the same values; a failed export (a truncated chunk file in a copy of the
// dataset) exits 3 and leaves no file, partial or temporary.
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, truncateSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DuckDBInstance } from "@duckdb/node-api";
import { tableFromIPC } from "apache-arrow";
import { FileSystemStore } from "@fmt/fs-adapters/node";
import { isBcolzError } from "@fmt/errors";
import { createCtable, openCtable } from "@fmt/store";
import { exportDataset } from "../src/export.js";
import { cli } from "./run-cli.js";

const tmp = mkdtempSync(join(tmpdir(), "cli-export-ap-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));


const ROWS = 2500;
const NAT = -(2n ** 63n);
const dir = join(tmp, "t.bcolz");
const id = BigInt64Array.from({ length: ROWS }, (_, i) => BigInt(i) * 3n - 77n);
const price = Float64Array.from({ length: ROWS }, (_, i) => (i % 2 === 0 ? i / 7 : -i * 1.5));
const ok = Uint8Array.from({ length: ROWS }, (_, i) => (i % 5 < 2 ? 1 : 0));
const ts = BigInt64Array.from({ length: ROWS }, (_, i) => (i % 101 === 4 ? NAT : 1_500_000_000_123_456_789n + BigInt(i) * 999_999_937n));
const day = BigInt64Array.from({ length: ROWS }, (_, i) => BigInt(i * 3 - 4000));
const name = Array.from({ length: ROWS }, (_, i) => ["", "a", "héllo", "😀b", "tab\tx"][i % 5]!);
const code = Array.from({ length: ROWS }, (_, i) => new Uint8Array([65 + (i % 26), i % 3, 0].slice(0, 1 + (i % 3))));
const xy = Float32Array.from({ length: 2 * ROWS }, (_, i) => i / 4);

const stripped = (b: Uint8Array): number[] => {
  let e = b.length;
  while (e > 0 && b[e - 1] === 0) e--;
  return Array.from(b.subarray(0, e));
};

beforeAll(async () => {
  const t = await createCtable(new FileSystemStore(dir), "", [
    { name: "id", data: id },
    { name: "price", data: price },
    { name: "ok", data: { bytes: ok }, options: { dtype: "|b1" } },
    { name: "ts", data: { bytes: new Uint8Array(ts.buffer) }, options: { dtype: "<M8[ns]" } },
    { name: "day", data: { bytes: new Uint8Array(day.buffer) }, options: { dtype: "<M8[D]" } },
    { name: "name", data: name, options: { dtype: "<U5" } },
    { name: "code", data: code, options: { dtype: "|S3" } },
    { name: "xy", data: xy, options: { dtype: "<f4", shape: [2] } },
  ], { chunklen: 600 });
  await t.close();
});

async function withDuckdb<T>(run: (con: Awaited<ReturnType<DuckDBInstance["connect"]>>) => Promise<T>): Promise<T> {
  const db = await DuckDBInstance.create(":memory:");
  const con = await db.connect();
  try {
    return await run(con);
  } finally {
    con.closeSync();
    db.closeSync();
  }
}

describe("export --format parquet", () => {
  it("writes a file DuckDB reads back with the same types and values", async () => {
    const out = join(tmp, "t.parquet");
    const r = await cli("export", dir, "--format", "parquet", "--to", out, "--no-progress");
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe(`wrote ${ROWS} row(s) to ${out}\n`);
    await withDuckdb(async (con) => {
      const types = (await con.runAndReadAll(`SELECT column_name, column_type FROM (DESCRIBE SELECT * FROM read_parquet('${out}'))`)).getRows();
      expect(types).toEqual([
        ["id", "BIGINT"], ["price", "DOUBLE"], ["ok", "BOOLEAN"], ["ts", "TIMESTAMP_NS"], ["day", "DATE"],
        ["name", "VARCHAR"], ["code", "BLOB"], ["xy", "FLOAT[]"],
      ]);
      const rows = (await con.runAndReadAll(`SELECT id, price, ok, epoch_ns(ts), day - DATE '1970-01-01', name, code, xy[1], xy[2] FROM read_parquet('${out}')`)).getRows();
      expect(rows.length).toBe(ROWS);
      rows.forEach((row, i) => {
        expect(row.slice(0, 6)).toEqual([id[i], price[i], ok[i] === 1, ts[i] === NAT ? null : ts[i], day[i], name[i]]);
        expect(Array.from((row[6] as { bytes: Uint8Array }).bytes)).toEqual(stripped(code[i]!));
        expect([row[7], row[8]]).toEqual([xy[2 * i], xy[2 * i + 1]]);
      });
    });
  });

  it("picks Parquet from the extension and honours --columns and --force", async () => {
    const out = join(tmp, "cols.parquet");
    expect((await cli("export", dir, "--to", out, "--columns", "ts,id", "--no-progress")).code).toBe(0);
    const again = await cli("export", dir, "--to", out, "--no-progress");
    expect(again.code).toBe(2);
    expect((await cli("export", dir, "--to", out, "--columns", "ts,id", "--force", "--no-progress")).code).toBe(0);
    await withDuckdb(async (con) => {
      const types = (await con.runAndReadAll(`SELECT column_name, column_type FROM (DESCRIBE SELECT * FROM read_parquet('${out}'))`)).getRows();
      expect(types).toEqual([["ts", "TIMESTAMP_NS"], ["id", "BIGINT"]]);
    });
  });

  it("says to install @fmt/duckdb when it is absent, writing nothing", async () => {
    const out = join(tmp, "absent.parquet");
    const importer = (): Promise<unknown> => Promise.reject(Object.assign(new Error("Cannot find package '@fmt/duckdb'"), { code: "ERR_MODULE_NOT_FOUND" }));
    await expect(exportDataset(await openCtable(new FileSystemStore(dir)), { to: out, format: "parquet", duckdbImporter: importer })).rejects.toSatisfy((e: unknown) => isBcolzError(e, "INVALID_ARGUMENT") && /@fmt\/duckdb/.test((e as Error).message));
    expect(existsSync(out)).toBe(false);
  });
});

describe("export --format arrow", () => {
  it("writes an Arrow IPC file apache-arrow reads back with the same values", async () => {
    const out = join(tmp, "t.arrow");
    const r = await cli("export", dir, "--format", "arrow", "--to", out, "--no-progress");
    expect(r.code, r.stderr).toBe(0);
    const bytes = readFileSync(out);
    expect(bytes.subarray(0, 6).toString("latin1")).toBe("ARROW1");
    const table = tableFromIPC(bytes);
    expect(table.numRows).toBe(ROWS);
    expect(table.batches.length).toBe(Math.ceil(ROWS / 600));
    expect(table.schema.fields.map((f) => `${f.name}: ${String(f.type)}`)).toEqual([
      "id: Int64", "price: Float64", "ok: Bool", "ts: Timestamp<NANOSECOND>", "day: Date32<DAY>", "name: Utf8", "code: Binary", "xy: FixedSizeList[2]<Float32>",
    ]);
    const col = (n: string) => table.getChild(n)!;
    for (let i = 0; i < ROWS; i++) {
      expect(col("id").get(i)).toBe(id[i]);
      expect(col("price").get(i)).toBe(price[i]);
      expect(col("ok").get(i)).toBe(ok[i] === 1);
      expect(col("name").get(i)).toBe(name[i]);
      expect(Array.from(col("code").get(i) as Uint8Array)).toEqual(stripped(code[i]!));
      expect(Array.from(col("xy").get(i) as unknown as Iterable<number>)).toEqual([xy[2 * i], xy[2 * i + 1]]);
    }
    // Timestamps and dates as their stored counts, NaT as null.
    const tsData = col("ts").data;
    let k = 0;
    for (const d of tsData) for (let i = 0; i < d.length; i++, k++) expect(d.getValid(i) ? (d.values as BigInt64Array)[i] : NAT).toBe(ts[k]);
    k = 0;
    for (const d of col("day").data) for (let i = 0; i < d.length; i++, k++) expect(BigInt((d.values as Int32Array)[i]!)).toBe(day[k]);
  });

  it("picks Arrow from the .arrow extension", async () => {
    const out = join(tmp, "ext.arrow");
    expect((await cli("export", dir, "--to", out, "--columns", "price", "--no-progress")).code).toBe(0);
    expect(Array.from(tableFromIPC(readFileSync(out)).getChild("price")!.toArray() as Float64Array)).toEqual(Array.from(price));
  });
});

describe("a failed export", () => {
  it("exits 3 and leaves no file, for both formats", async () => {
    const damaged = join(tmp, "damaged.bcolz");
    cpSync(dir, damaged, { recursive: true });
    const chunk = join(damaged, "price", "data", "__2.blp");
    truncateSync(chunk, Math.floor(statSync(chunk).size / 2));
    const outDir = join(tmp, "failed");
    mkdirSync(outDir);
    for (const format of ["parquet", "arrow"]) {
      const out = join(outDir, `x.${format}`);
      const r = await cli("export", damaged, "--format", format, "--to", out, "--no-progress");
      expect(r.code, `${format}: ${r.stderr}`).toBe(3);
      expect(r.stderr).toMatch(/^error [A-Z_]+: /);
      expect(readdirSync(outDir), format).toEqual([]);
    }
  });
});
