// spec/v2.md §14 and §15: every real bcolz 1.2.1 dataset of the corpus converted to format 2 and
// back keeps its values (checked against the corpus's expected bytes), dtype, shape, chunklen,
// cparams and attributes, and its chunk files come back byte for byte (only a leftover chunk
// holding more rows than the length needs is recompressed); verify() reports every damaged chunk
// by file and local index; a failed conversion leaves nothing behind.
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { MemoryStore } from "@fmt/fs-adapters";
import { FileSystemStore } from "@fmt/fs-adapters/node";
import { convert, createCarray, open, openCarray, verify } from "@fmt/store";
import type { CArray, CTable } from "@fmt/store";
import { CORPUS, asCArray, manifest } from "./helpers.js";

const sha256 = (bytes: Uint8Array): string => createHash("sha256").update(bytes).digest("hex");

function describeArray(a: CArray): unknown {
  return { dtype: a.dtype.str, shape: a.shape, chunklen: a.chunklen, cparams: a.cparams, attrs: JSON.stringify(a.attrs.toJSON(), (_k, v: unknown) => (typeof v === "bigint" ? `${v}n` : v)) };
}

async function leLittleEndianSha(a: CArray): Promise<string> {
  const bytes = await a.readBytes();
  if (a.dtype.byteOrder === ">") {
    const unit = a.dtype.kind === "U" ? 4 : a.dtype.itemsize;
    for (let i = 0; i < bytes.length; i += unit) bytes.subarray(i, i + unit).reverse();
  }
  return sha256(bytes);
}

describe("convert: every real bcolz dataset to format 2 and back (§14)", () => {
  for (const c of manifest.cases) {
    it(c.name, async () => {
      const src = new FileSystemStore(`${CORPUS}${c.name}`);
      const v2 = new MemoryStore();
      const back = new MemoryStore();
      const there = await convert(src, c.rootdir, v2, "d", { formatVersion: 2, checksum: "crc32" });
      await convert(v2, "d", back, "d", { formatVersion: 1 });
      const original = await open(src, c.rootdir);
      const inV2 = await open(v2, "d");
      const again = await open(back, "d");
      expect(inV2.formatVersion).toBe(2);
      expect(again.formatVersion).toBe(1);
      const pairs: [CArray, CArray, CArray, string][] = original.kind === "carray"
        ? [[original, inV2 as CArray, again as CArray, ""]]
        : (original as CTable).columns.map((col, i) => [asCArray(col), asCArray((inV2 as CTable).columns[i]), asCArray((again as CTable).columns[i]), (original as CTable).names[i]!]);
      if (original.kind === "ctable") {
        expect((inV2 as CTable).names).toEqual(original.names);
        expect((again as CTable).names).toEqual(original.names);
        expect(JSON.stringify((again as CTable).attrs.toJSON())).toBe(JSON.stringify(original.attrs.toJSON()));
      }
      for (const [o, mid, end, name] of pairs) {
        expect(describeArray(mid)).toEqual(describeArray(o));
        expect(describeArray(end)).toEqual(describeArray(o));
        // Values against the corpus's expected files (not produced by this code).
        const expected = c.kind === "carray" ? c.expected["values.bin"].sha256 : c.columns.find((col) => col.name === name)!.sha256;
        expect(await leLittleEndianSha(mid)).toBe(expected);
        expect(await leLittleEndianSha(end)).toBe(expected);
        // Chunk files byte for byte, except a leftover recompressed with only its rows.
        for (let k = 0; k < o.chunkCount; k++) {
          const before = await src.get(o.chunkKey(k));
          const after = await back.get(end.chunkKey(k));
          const stored = await o.storedChunk(k);
          if (stored.exact) expect(after, `${end.chunkKey(k)}`).toEqual(before);
        }
      }
      expect(there.chunks).toBe(there.copied + there.recompressed);
      // The bytes of a v1 dataset we wrote: a format-1 write verified clean.
      expect((await verify(back, "d")).problems).toEqual([]);
      expect((await verify(v2, "d")).problems).toEqual([]);
    });
  }
});

describe("verify (§15)", () => {
  it("reports every damaged chunk of a format-2 carray by file and local index, not only the first", async () => {
    const store = new MemoryStore();
    const a = await createCarray(store, "a", Float64Array.from({ length: 4000 }, (_, i) => i), { dtype: "<f8", chunklen: 100, formatVersion: 2, superchunksize: 16, checksum: "adler32" });
    await a.close();
    const damage = async (g: number): Promise<void> => {
      const r = await openCarray(store, "a");
      const key = r.chunkKey(g);
      const file = (await store.get(key))!;
      const entry = 32 + file[24]! + 8 * (g % 16);
      const offset = Number(new DataView(file.buffer).getBigInt64(entry, true));
      file[offset + 40]! ^= 0x10;
      await store.put(key, file);
    };
    await damage(3);
    await damage(20);
    await damage(37);
    const report = await verify(store, "a");
    expect(report.ok).toBe(false);
    expect(report.chunks).toBe(40);
    expect(report.problems.map((p) => [p.path, p.chunk, p.local, p.code, p.field])).toEqual([
      ["a/data/__1__.bin", 3, 3, "CHECKSUM_MISMATCH", "chunk[3].checksum"],
      ["a/data/__2__.bin", 20, 4, "CHECKSUM_MISMATCH", "chunk[4].checksum"],
      ["a/data/__3__.bin", 37, 5, "CHECKSUM_MISMATCH", "chunk[5].checksum"],
    ]);
  });

  it("reports every damaged chunk file of a format-1 carray, and a dataset that does not open", async () => {
    const store = new MemoryStore();
    const a = await createCarray(store, "a", Float64Array.from({ length: 1000 }, (_, i) => i), { dtype: "<f8", chunklen: 100 });
    await a.close();
    for (const k of [2, 7]) {
      const file = (await store.get(`a/data/__${k}.blp`))!;
      file[4] = 9; // blpk version
      await store.put(`a/data/__${k}.blp`, file);
    }
    const report = await verify(store, "a");
    expect(report.problems.map((p) => [p.path, p.chunk, p.code])).toEqual([["a/data/__2.blp", 2, "UNSUPPORTED_VERSION"], ["a/data/__7.blp", 7, "UNSUPPORTED_VERSION"]]);
    await store.delete("a/meta/storage");
    expect(await verify(store, "a")).toMatchObject({ ok: false, kind: "unknown", problems: [{ code: "MISSING_FILE", path: "a/meta/storage" }] });
  });

  it("a failed conversion leaves nothing at the destination and never touches an existing one", async () => {
    const src = new MemoryStore();
    const a = await createCarray(src, "a", Float64Array.from({ length: 500 }, (_, i) => i), { dtype: "<f8", chunklen: 100 });
    await a.close();
    const file = (await src.get("a/data/__3.blp"))!;
    file[20]! ^= 0xff; // Blosc header of chunk 3: the copy fails there
    await src.put("a/data/__3.blp", file);
    const dst = new MemoryStore();
    await expect(convert(src, "a", dst, "b", { formatVersion: 2 })).rejects.toMatchObject({ path: "a/data/__3.blp" });
    expect(await dst.list("")).toEqual([]);
    await dst.put("b/__attrs__", new TextEncoder().encode("{}\n"));
    await expect(convert(src, "a", dst, "b", { formatVersion: 2 })).rejects.toMatchObject({ code: "ALREADY_EXISTS" });
    expect(await dst.list("")).toEqual(["b/__attrs__"]);
  });
});
