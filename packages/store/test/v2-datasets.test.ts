// Format-2 datasets through the same API as format 1: a carray's read operations (get, take,
// slices, iterBlocks, sum, chunk keys), version detection by open(), and ctables (spec/v2.md §11)
// created, appended to, changed column by column, queried and reopened, on memory and on disk.
import { mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { MemoryStore } from "@fmt/fs-adapters";
import type { WritableStore } from "@fmt/fs-adapters";
import { FileSystemStore } from "@fmt/fs-adapters/node";
import { createCarray, createCtable, open, openCarray, openCtable } from "@fmt/store";

function listFiles(dir: string, prefix = ""): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) out.push(...listFiles(full, `${prefix}${name}/`));
    else out.push(`${prefix}${name}`);
  }
  return out.sort();
}

const stores: [string, () => { store: WritableStore; files: () => Promise<string[]>; done: () => void }][] = [
  ["MemoryStore", () => {
    const store = new MemoryStore();
    return { store, files: async () => (await store.list("")).sort(), done: () => undefined };
  }],
  ["FileSystemStore", () => {
    const dir = mkdtempSync(join(tmpdir(), "v2-datasets-"));
    return { store: new FileSystemStore(dir), files: async () => listFiles(dir), done: () => rmSync(dir, { recursive: true, force: true }) };
  }],
];

describe.each(stores)("format 2 on %s", (_name, make) => {
  it("a carray reads like a format-1 one: get, take, slices, steps, iterBlocks, sum", async () => {
    const { store, files, done } = make();
    try {
      const values = Float64Array.from({ length: 10_000 }, (_, i) => i * 0.5);
      const w = await createCarray(store, "a", values, { dtype: "<f8", chunklen: 700, formatVersion: 2, superchunksize: 4, checksum: "crc32" });
      await w.close();
      expect(await files()).toEqual(["a/__attrs__", "a/data/__1__.bin", "a/data/__2__.bin", "a/data/__3__.bin", "a/data/__4__.bin", "a/meta/shape", "a/meta/storage"]);
      const a = await openCarray(store, "a");
      expect(a.formatVersion).toBe(2);
      expect(a.superchunks).toEqual({ superchunksize: 4, checksum: "crc32", spare: 10 });
      expect(a.chunkKey(5)).toBe("a/data/__2__.bin");
      expect(await a.read()).toEqual(values);
      expect(await a.get(-1)).toBe(4999.5);
      expect(await a.get(2801)).toBe(1400.5);
      expect(await a.take([9999, 0, 2801, 0])).toEqual(Float64Array.of(4999.5, 0, 1400.5, 0));
      expect(await a.read(1, 9000, 37)).toEqual(values.filter((_, i) => i >= 1 && i < 9000 && (i - 1) % 37 === 0));
      let rows = 0;
      for await (const block of a.iterBlocks({ blockLen: 1234, start: 5 })) rows += block.stop - block.start;
      expect(rows).toBe(9995);
      expect(await a.sum()).toBe(values.reduce((s, v) => s + v, 0));
      const detected = await open(store, "a");
      expect(detected.kind).toBe("carray");
    } finally {
      done();
    }
  });

  it("verifies checksums on every read unless the caller opts out; a mismatch names file, chunk and both values", async () => {
    const { store, done } = make();
    try {
      const w = await createCarray(store, "c", Int32Array.from({ length: 64 }, (_, i) => i), { dtype: "<i4", chunklen: 16, formatVersion: 2, superchunksize: 2, checksum: "crc32", cparams: { clevel: 0 } });
      await w.close();
      const key = "c/data/__2__.bin";
      const file = (await store.get(key))!;
      const view = new DataView(file.buffer, file.byteOffset);
      const offset = Number(view.getBigInt64(32 + file[24]! + 8, true)); // local chunk 1 = global chunk 3
      file[offset + 16]! ^= 0x01; // row 48 of a memcpyed chunk: 48 -> 49
      await store.put(key, file);
      const error = await (await openCarray(store, "c")).read().then(() => undefined, (e: unknown) => e);
      expect(error).toMatchObject({ code: "CHECKSUM_MISMATCH", path: key, field: "chunk[1].checksum" });
      const { expected, actual } = error as { expected: string; actual: string };
      expect(expected).toMatch(/^[0-9a-f]{8}$/);
      expect(actual).toMatch(/^[0-9a-f]{8}$/);
      expect(actual).not.toBe(expected);
      const unchecked = await openCarray(store, "c", { verifyChecksums: false });
      expect(await unchecked.get(48)).toBe(49);
      expect(await unchecked.get(47)).toBe(47);
    } finally {
      done();
    }
  });

  it("a ctable: columns under data/, append, add/delete/rename a column, where, reopen", async () => {
    const { store, files, done } = make();
    try {
      const t = await createCtable(store, "t", [
        { name: "id", data: BigInt64Array.from({ length: 50 }, (_, i) => BigInt(i)) },
        { name: "price", data: Float64Array.from({ length: 50 }, (_, i) => i * 1.5) },
        { name: "sym", data: Array.from({ length: 50 }, (_, i) => `s${i % 7}`), options: { dtype: "|S3" } },
      ], { chunklen: 8, formatVersion: 2, superchunksize: 3 });
      expect(t.formatVersion).toBe(2);
      await t.append([{ id: 50n, price: 75, sym: "new" }]);
      await t.addColumn("qty", { fill: 3 }, { dtype: "<i4" });
      await t.renameColumn("qty", "quantity");
      await t.deleteColumn("sym");
      await t.attrs.set("source", "test");
      await t.close();
      const all = await files();
      expect(all.filter((f) => f.startsWith("t/") && !f.startsWith("t/data/"))).toEqual(["t/__attrs__", "t/meta/storage"]);
      expect(all.some((f) => f.endsWith("meta/sizes") || f.endsWith("__rootdirs__") || f.endsWith(".lock"))).toBe(false);
      expect(all.filter((f) => f.startsWith("t/data/quantity/"))).toContain("t/data/quantity/data/__1__.bin");
      expect(new TextDecoder().decode(await store.get("t/meta/storage"))).toBe('{"format_version": 2, "kind": "ctable", "columns": ["id", "price", "quantity"]}\n');

      const r = await open(store, "t");
      expect(r.kind).toBe("ctable");
      if (r.kind !== "ctable") return;
      expect(r.formatVersion).toBe(2);
      expect(r.names).toEqual(["id", "price", "quantity"]);
      expect(r.length).toBe(51);
      expect(r.attrs.get("source")).toBe("test");
      expect(await r.where("(price > 60) & (quantity == 3)")).toEqual(Float64Array.of(41, 42, 43, 44, 45, 46, 47, 48, 49, 50));
      expect(await r.where("price > 60", { as: "count" })).toBe(10);
      const w = await openCtable(store, "t", { mode: "a" });
      await w.append([{ id: 51n, price: 1, quantity: 4 }]);
      await w.close();
      expect(Array.from((await (await openCtable(store, "t")).readColumn("quantity", -2)) as Int32Array)).toEqual([3, 4]);
    } finally {
      done();
    }
  });
});
