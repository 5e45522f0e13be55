// vlarrays (spec/v2.md §12): the spec's example byte for byte, element reads, writes, and the checks of §12.
import { describe, expect, it } from "vitest";
import { MemoryStore } from "@fmt/fs-adapters";
import { createVLArray, openVLArray, openCarray, open } from "@fmt/store";

describe("vlarray basics", () => {
  it("stores the spec example as offsets [0, 2, 2, 8] and the 8 UTF-8 bytes", async () => {
    const store = new MemoryStore();
    const a = await createVLArray(store, "v", ["ab", "", "héllo"], { vtype: "utf8", chunklen: 4 });
    await a.close();
    expect(new TextDecoder().decode(await store.get("v/meta/storage"))).toBe('{"format_version": 2, "kind": "vlarray", "vtype": "utf8"}\n');
    const offsets = await openCarray(store, "v/offsets");
    expect(Array.from((await offsets.read()) as BigInt64Array)).toEqual([0n, 2n, 2n, 8n]);
    const values = await openCarray(store, "v/values");
    expect(Array.from(await values.readBytes())).toEqual([0x61, 0x62, 0x68, 0xc3, 0xa9, 0x6c, 0x6c, 0x6f]);
    const r = await openVLArray(store, "v");
    expect(r.length).toBe(3);
    expect(await r.read()).toEqual(["ab", "", "héllo"]);
    expect(await r.get(2)).toBe("héllo");
    expect(await r.get(-3)).toBe("ab");
    expect(await r.take([2, 0, 2, 1])).toEqual(["héllo", "ab", "héllo", ""]);
    expect(await r.read(0, 3, 2)).toEqual(["ab", "héllo"]);
    const d = await open(store, "v");
    expect(d.kind).toBe("vlarray");
  });

  it("appends, sets, trims and reopens", async () => {
    const store = new MemoryStore();
    const a = await createVLArray(store, "b", [new Uint8Array([1, 2]), new Uint8Array([])], { vtype: "bytes", chunklen: 3 });
    await a.append([new Uint8Array([3, 4, 5]), new Uint8Array([6])]);
    expect((await a.read()).map((x) => Array.from(x as Uint8Array))).toEqual([[1, 2], [], [3, 4, 5], [6]]);
    await a.set(2, new Uint8Array([9, 9, 9]));
    await expect(a.set(2, new Uint8Array([9]))).rejects.toMatchObject({ code: "INVALID_ARGUMENT" });
    await a.trim(1);
    await a.close();
    const r = await openVLArray(store, "b");
    expect((await r.read()).map((x) => Array.from(x as Uint8Array))).toEqual([[1, 2], [], [9, 9, 9]]);
    const values = await openCarray(store, "b/values");
    expect(values.length).toBe(5);
  });

  it("ragged arrays keep their dtype", async () => {
    const store = new MemoryStore();
    const a = await createVLArray(store, "r", [new Int32Array([1, 2, 3]), [], [-7]], { vtype: "ragged", dtype: ">i4", chunklen: 2 });
    await a.close();
    const r = await openVLArray(store, "r");
    expect((await r.read()).map((x) => Array.from(x as Int32Array))).toEqual([[1, 2, 3], [], [-7]]);
    expect(r.dtype.str).toBe(">i4");
  });
});
