// ctables with vlarray columns (spec/v2.md §11–§12): create, append, read in every form, add,
// rename and delete columns, the committed length during an append; where on utf8 and bytes
// columns against a plain JS filter; the checks of §12 on damaged vlarrays.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { MemoryStore } from "@fmt/fs-adapters";
import { createCtable, createVLArray, open, openCarray, openCtable, openVLArray } from "@fmt/store";
import type { CTable } from "@fmt/store";

const enc = new TextEncoder();
const bytes = (s: string): Uint8Array => enc.encode(s);
const plain = (v: unknown): unknown => (v instanceof Uint8Array ? Array.from(v) : ArrayBuffer.isView(v) ? Array.from(v as unknown as ArrayLike<unknown>) : v);

async function table(store = new MemoryStore()): Promise<{ store: MemoryStore; t: CTable }> {
  const t = await createCtable(store, "t", [
    { name: "id", data: new Int32Array([1, 2, 3]) },
    { name: "sym", data: ["ab", "", "héllo"], vtype: "utf8" },
    { name: "blob", data: [bytes("x"), new Uint8Array([0, 255]), new Uint8Array(0)], vtype: "bytes" },
    { name: "nums", data: [[1, 2], [], [65535]], vtype: "ragged", options: { dtype: "<u2" } },
  ], { formatVersion: 2, chunklen: 2 });
  return { store, t };
}

describe("ctable with vlarray columns", () => {
  it("creates, appends rows and columns, reads every way, reopens", async () => {
    const { store, t } = await table();
    await t.append([{ id: 4, sym: "☃", blob: bytes("yy"), nums: new Uint16Array([7]) }]);
    await t.append({ id: [5, 6], sym: ["😀", "z"], blob: [new Uint8Array(0), bytes("q")], nums: [[], [8, 9, 10]] });
    expect(t.length).toBe(6);
    expect(await t.readColumn("sym")).toEqual(["ab", "", "héllo", "☃", "😀", "z"]);
    const rows = await t.readRows(1, 6, 2);
    expect(rows["sym"]).toEqual(["", "☃", "z"]);
    expect((rows["nums"] as unknown[]).map(plain)).toEqual([[], [7], [8, 9, 10]]);
    expect((rows["blob"] as unknown[]).map(plain)).toEqual([[0, 255], [121, 121], [113]]);
    const picked = await t.takeRows([5, 0, 5], ["sym", "id"]);
    expect(picked["sym"]).toEqual(["z", "ab", "z"]);
    const seen: string[] = [];
    for await (const block of t.iterBlocks({ columns: ["id", "sym"], blockLen: 4 })) {
      expect(block.columns["id"]!.length).toBe((block.stop - block.start) * 4);
      seen.push(...(block.elements!["sym"] as string[]));
    }
    expect(seen).toEqual(await t.readColumn("sym"));
    await t.close();
    const again = await open(store, "t");
    expect(again.kind).toBe("ctable");
    const r = again as CTable;
    expect(r.column("sym").kind).toBe("vlarray");
    expect(await r.readColumn("sym")).toEqual(["ab", "", "héllo", "☃", "😀", "z"]);
    await expect(r.readColumnInto("sym", new Uint8Array(6))).rejects.toMatchObject({ code: "INVALID_ARGUMENT" });
  });

  it("adds, renames and deletes vlarray columns; format 1 refuses them", async () => {
    const { store, t } = await table();
    await t.addColumn("tag", "n/a", { vtype: "utf8" });
    await t.addColumn("word", ["one", "two", "three"], { vtype: "utf8", position: 0 });
    expect(t.names).toEqual(["word", "id", "sym", "blob", "nums", "tag"]);
    await t.renameColumn("word", "w");
    await t.deleteColumn("blob");
    await t.close();
    const r = await openCtable(store, "t");
    expect(r.names).toEqual(["w", "id", "sym", "nums", "tag"]);
    expect(await r.readColumn("w")).toEqual(["one", "two", "three"]);
    expect(await r.readColumn("tag")).toEqual(["n/a", "n/a", "n/a"]);
    expect((await store.list("t/data/")).some((k) => k.startsWith("t/data/blob/") || k.startsWith("t/data/word/"))).toBe(false);
    await expect(createCtable(new MemoryStore(), "v1", [{ name: "s", data: ["a"], vtype: "utf8" }])).rejects.toMatchObject({ code: "INVALID_ARGUMENT" });
  });

  it("a reader sees the committed length during an append; a writer rolls it back", async () => {
    const { store, t } = await table();
    await t.close();
    // An append that wrote every column but died before removing its journal.
    const w = await openVLArray(store, "t/data/sym", { mode: "a" });
    await w.append(["extra"]);
    await w.close();
    await store.put("t/.append", enc.encode('{"format": 2, "length": 3}\n'));
    const r = await openCtable(store, "t");
    expect(r.length).toBe(3);
    expect(await r.readColumn("sym")).toEqual(["ab", "", "héllo"]);
    const a = await openCtable(store, "t", { mode: "a" });
    expect(a.length).toBe(3);
    await a.close();
    expect((await openVLArray(store, "t/data/sym")).length).toBe(3);
  });
});

describe("where on vlarray columns", () => {
  const alphabet = ["a", "b", "Z", "é", "☃", "\uE000", "😀", "\u0000"];
  const text = fc.array(fc.constantFrom(...alphabet), { maxLength: 4 }).map((a) => a.join(""));
  const cmpBytes = (x: Uint8Array, y: Uint8Array): number => {
    for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i]! - y[i]!;
    return x.length - y.length;
  };
  const ops: Record<string, (c: number) => boolean> = { "==": (c) => c === 0, "!=": (c) => c !== 0, "<": (c) => c < 0, "<=": (c) => c <= 0, ">": (c) => c > 0, ">=": (c) => c >= 0 };
  const literal = (s: string): string => `"${s.replace(/\u0000/g, "\\0")}"`;

  it("matches a plain JS filter in UTF-8 byte order (utf8 and bytes columns)", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(text, { minLength: 1, maxLength: 30 }), text, fc.constantFrom(...Object.keys(ops)), fc.integer({ min: 1, max: 7 }), async (words, lit, op, chunklen) => {
        const store = new MemoryStore();
        const t = await createCtable(store, "t", [
          { name: "s", data: words, vtype: "utf8" },
          { name: "b", data: words.map(bytes), vtype: "bytes" },
          { name: "i", data: new Int32Array(words.map((_, k) => k)) },
        ], { formatVersion: 2, chunklen });
        const expected = Float64Array.from(words.flatMap((w, k) => (ops[op]!(cmpBytes(bytes(w), bytes(lit))) ? [k] : [])));
        expect(await t.where(`s ${op} ${literal(lit)}`)).toEqual(expected);
        expect(await t.where(`b ${op} ${literal(lit)}`)).toEqual(expected);
        const odd = Float64Array.from(words.flatMap((w, k) => (k % 2 === 1 && ops[op]!(cmpBytes(bytes(w), bytes(lit))) ? [k] : [])));
        expect(await t.where(`(i % 2 == 1) & (${literal(lit)} ${Object.entries({ "<": ">", ">": "<", "<=": ">=", ">=": "<=" }).find(([k]) => k === op)?.[1] ?? op} s)`)).toEqual(odd);
        const rows = await t.where(`s ${op} ${literal(lit)}`, { as: "rows", columns: ["s", "i"] });
        expect(rows["s"]).toEqual(Array.from(expected, (k) => words[k]));
        await t.close();
      }),
      { numRuns: 60 },
    );
  });

  it("refuses ragged columns and mismatched operands", async () => {
    const { t } = await table();
    await expect(t.where("nums == 1")).rejects.toMatchObject({ code: "INVALID_ARGUMENT" });
    await expect(t.where("sym == 1")).rejects.toMatchObject({ code: "INVALID_ARGUMENT" });
    await expect(t.where("sym == b'ab'")).rejects.toMatchObject({ code: "INVALID_ARGUMENT" });
    expect(await t.where("blob == b'\\x00\\xff'")).toEqual(Float64Array.of(1));
    expect(await t.where({ row: (r) => (r["sym"] as string).length > 1, columns: ["sym"] })).toEqual(Float64Array.of(0, 2));
  });
});

describe("vlarray checks (spec/v2.md §12)", () => {
  it("offsets out of order, invalid UTF-8, missing __attrs__, values past offsets[n]", async () => {
    const store = new MemoryStore();
    await (await createVLArray(store, "v", ["ab", "", "héllo"], { vtype: "utf8", chunklen: 4 })).close();
    // values beyond offsets[n] (an interrupted append): ignored by readers, trimmed by writers.
    const values = await openCarray(store, "v/values", { mode: "a" });
    await values.append(new Uint8Array([1, 2, 3]));
    await values.close();
    expect(await (await openVLArray(store, "v")).read()).toEqual(["ab", "", "héllo"]);
    await (await openVLArray(store, "v", { mode: "a" })).close();
    expect((await openCarray(store, "v/values")).length).toBe(8);
    // Bad offsets.
    const offsets = await openCarray(store, "v/offsets", { mode: "a" });
    await offsets.set(2, 1n);
    await offsets.close();
    const bad = await openVLArray(store, "v");
    await expect(bad.read()).rejects.toMatchObject({ code: "INCONSISTENT", field: "offsets[2]" });
    expect(await bad.get(0)).toBe("ab");
    const fix = await openCarray(store, "v/offsets", { mode: "a" });
    await fix.set(2, 2n);
    await fix.close();
    // Invalid UTF-8 (a lone continuation byte).
    const v = await openCarray(store, "v/values", { mode: "a" });
    await v.set(3, 0x80);
    await v.close();
    await expect((await openVLArray(store, "v")).get(2)).rejects.toMatchObject({ code: "INCONSISTENT", field: "values" });
    await store.delete("v/__attrs__");
    await expect(openVLArray(store, "v")).rejects.toMatchObject({ code: "MISSING_FILE" });
  });

  it("refuses wrong sub-carray dtypes and bad elements", async () => {
    const store = new MemoryStore();
    await (await createVLArray(store, "r", [[1.5]], { vtype: "ragged", dtype: "<f8" })).close();
    const text = new TextDecoder().decode(await store.get("r/meta/storage"));
    await store.put("r/meta/storage", enc.encode(text.replace("ragged", "utf8")));
    await expect(openVLArray(store, "r")).rejects.toMatchObject({ code: "INCONSISTENT", field: "/dtype" });
    await expect(createVLArray(store, "x", ["\uD800"], { vtype: "utf8" })).rejects.toMatchObject({ code: "INVALID_ARGUMENT" });
    await expect(createVLArray(store, "x", "abc" as never, { vtype: "utf8" })).rejects.toMatchObject({ code: "INVALID_ARGUMENT" });
    await expect(createVLArray(store, "x", [1] as never, { vtype: "bytes" })).rejects.toMatchObject({ code: "INVALID_ARGUMENT" });
    expect(await store.get("x/meta/storage")).toBeUndefined();
    const w = await createVLArray(store, "y", ["a"], { vtype: "utf8" });
    await expect(openVLArray(store, "y", { mode: "a" })).rejects.toMatchObject({ code: "LOCKED" });
    await w.close();
    await expect((await openVLArray(store, "y")).append(["b"])).rejects.toMatchObject({ code: "READ_ONLY" });
  });
});
