// Multi-chunk reads decoded on a worker pool give the single-thread result, and a broken chunk
// is still reported with its own file name.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MemoryStore } from "@fmt/fs-adapters";
import { FileSystemStore } from "@fmt/fs-adapters/node";
import { createBloscPool } from "@fmt/blosc/pool";
import type { BloscPool } from "@fmt/blosc/pool";
import type { ChunkCodecPool } from "@fmt/blosc";
import { createCarray, openCarray } from "@fmt/store";

// Workers run the built JavaScript of @fmt/blosc (Node cannot execute the .ts sources).
const BLOSC = fileURLToPath(new URL("../../blosc", import.meta.url));
let pool: BloscPool;
beforeAll(() => {
  execFileSync("pnpm", ["exec", "tsc", "-b"], { cwd: BLOSC, stdio: "pipe" });
  pool = createBloscPool({ threads: 2 });
});
afterAll(async () => {
  await pool.close();
});

function walk(n: number): Float64Array {
  const out = new Float64Array(n);
  let s = 7;
  for (let i = 1; i < n; i++) {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0;
    out[i] = out[i - 1]! + (s / 2 ** 32 - 0.5);
  }
  return out;
}

describe("reads with a worker pool", () => {
  it("read, readInto and sum equal the single-thread results", async () => {
    const values = walk(20 * 16384 + 123);
    const store = new MemoryStore();
    await (await createCarray(store, "a", values, { dtype: "<f8", chunklen: 16384 })).close();
    const plain = await openCarray(store, "a");
    let runs = 0;
    const counted: ChunkCodecPool = {
      threads: pool.threads,
      compressMany: (inputs, options) => pool.compressMany(inputs, options),
      decompressManyInto: (chunks, out, options) => {
        runs++;
        return pool.decompressManyInto(chunks, out, options);
      },
      close: async () => {},
    };
    const pooled = await openCarray(store, "a", { workers: counted });
    expect(Array.from((await pooled.read()) as Float64Array)).toEqual(Array.from(values));
    const out = new Float64Array(9 * 16384 + 10);
    await pooled.readInto(out, 16384 - 5, 10 * 16384 + 5);
    expect(Array.from(out)).toEqual(Array.from(values.subarray(16384 - 5, 10 * 16384 + 5)));
    expect(await pooled.sum()).toBe(await plain.sum());
    expect(runs).toBeGreaterThan(1);
  });

  it("from files (chunks read into lent buffers): runs keep their inputs until decoded, in both formats", async () => {
    // A run of the pool holds up to eight chunks while the next files are read ahead: their
    // buffers must not be lent again before the run is decoded (else a later file overwrites them).
    const dir = mkdtempSync(join(tmpdir(), "read-workers-"));
    try {
      const values = walk(37 * 4096 + 99);
      for (const formatVersion of [1, 2] as const) {
        const path = join(dir, `v${formatVersion}.bcolz`);
        await (await createCarray(new FileSystemStore(path, { fsync: false }), "", values, { dtype: "<f8", chunklen: 4096, formatVersion, superchunksize: 4 })).close();
        for (const prefetch of [0, 3, 12]) {
          const pooled = await openCarray(new FileSystemStore(path), { workers: pool, prefetch });
          const out = new Float64Array(values.length);
          await pooled.readInto(out);
          expect(Buffer.from(out.buffer).equals(Buffer.from(values.buffer)), `format ${formatVersion}, prefetch ${prefetch}`).toBe(true);
          const shared = new Float64Array(new SharedArrayBuffer(values.byteLength));
          await pooled.readInto(shared);
          expect(Buffer.from(shared.buffer).equals(Buffer.from(values.buffer)), `format ${formatVersion}, prefetch ${prefetch}, shared`).toBe(true);
        }
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("a broken chunk in a pooled run is reported with its own file", async () => {
    const store = new MemoryStore();
    await (await createCarray(store, "a", walk(12 * 16384), { dtype: "<f8", chunklen: 16384 })).close();
    const file = (await store.get("a/data/__6.blp"))!;
    file.fill(0, file.length - 2000); // zeroed streams: a corrupt stream, not a bad header
    await store.put("a/data/__6.blp", file);
    const pooled = await openCarray(store, "a", { workers: pool });
    await expect(pooled.read()).rejects.toMatchObject({ path: "a/data/__6.blp" });
  });

  it("refuses a workers option without decompressManyInto", async () => {
    const store = new MemoryStore();
    await (await createCarray(store, "a", [1, 2], { dtype: "<f8" })).close();
    const notAPool: unknown = {};
    await expect(openCarray(store, "a", { workers: notAPool as ChunkCodecPool })).rejects.toMatchObject({ code: "INVALID_ARGUMENT", field: "workers" });
  });
});

describe("format 2 with a worker pool", () => {
  it("create, append and read through the pool give the chunks and values of the single thread", async () => {
    const values = walk(12 * 8192 + 77);
    const options = { dtype: "<f8", chunklen: 8192, formatVersion: 2 as const, superchunksize: 5, checksum: "crc32" as const };
    const alone = new MemoryStore();
    const pooled = new MemoryStore();
    for (const [store, extra] of [[alone, {}], [pooled, { workers: pool }]] as const) {
      const w = await createCarray(store, "a", values.subarray(0, 50_000), { ...options, ...extra });
      await w.append(values.subarray(50_000));
      await w.close();
    }
    // The pool compresses exactly what this thread does; appended slots may lie in the order the
    // chunks finished (offsets need not increase, spec/v2.md §7.1), so chunks are compared, not files.
    expect(await pooled.list("a/")).toEqual(await alone.list("a/"));
    const reader = await openCarray(pooled, "a", { workers: pool });
    const single = await openCarray(alone, "a");
    for (let i = 0; i < single.chunkCount; i++) expect((await reader.storedChunk(i)).chunk, `chunk ${i}`).toEqual((await single.storedChunk(i)).chunk);
    expect(await reader.read()).toEqual(values);
    expect(await reader.sum()).toBe(await (await openCarray(alone, "a")).sum());
  });
});
