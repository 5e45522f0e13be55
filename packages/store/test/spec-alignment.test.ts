// Places where the reference once disagreed with spec/ (found by the spec-only Python reader and
// its mutants, issue 17): each dataset is built from a valid one with one rule broken, and the
// error must be the one the spec names.
import { describe, expect, it } from "vitest";
import { isBcolzError } from "@fmt/errors";
import { MemoryStore } from "@fmt/fs-adapters";
import { createCarray, createCtable, openCarray, openCtable } from "@fmt/store";

const text = (s: string): Uint8Array => new TextEncoder().encode(s);
const decode = (b: Uint8Array | undefined): string => new TextDecoder().decode(b);

async function failure(p: Promise<unknown>): Promise<{ code: string; path?: string; field?: string }> {
  try {
    await p;
  } catch (error) {
    if (isBcolzError(error)) return error;
    throw error;
  }
  throw new Error("expected a failure");
}

/** A valid format-1 carray of int64 whose meta/storage dtype is then replaced by `dtype`. */
async function withDtype(dtype: string): Promise<MemoryStore> {
  const store = new MemoryStore();
  await (await createCarray(store, "a", BigInt64Array.from([1n, 2n, 3n]), { dtype: "int64", chunklen: 2 })).close();
  const storage = decode(await store.get("a/meta/storage"));
  await store.put("a/meta/storage", text(storage.replace('"dtype": "int64"', `"dtype": "${dtype}"`)));
  return store;
}

describe("format 1 holds only the dtypes of spec/v1.md §13", () => {
  it.each(["|V8", "datetime64[10s]", "datetime64", "<M8"])("%s is UNSUPPORTED_DTYPE", async (dtype) => {
    const error = await failure(openCarray(await withDtype(dtype), "a"));
    expect(error.code).toBe("UNSUPPORTED_DTYPE");
    expect(error.path).toBe("a/meta/storage");
  });

  it("datetime64[s] (a plain unit, same 8-byte layout) still opens", async () => {
    const a = await openCarray(await withDtype("datetime64[s]"), "a");
    expect(a.dtype.str).toBe("<M8[s]");
  });
});

describe("ctable files of spec/v1.md §8.5 and §12", () => {
  async function table(): Promise<MemoryStore> {
    const store = new MemoryStore();
    await (await createCtable(store, "t", [{ name: "x", data: Int32Array.from([1, 2, 3]) }])).close();
    return store;
  }

  it("a table without its own __attrs__ is MISSING_FILE (bcolz cannot open it)", async () => {
    const store = await table();
    await store.delete("t/__attrs__");
    const error = await failure(openCtable(store, "t"));
    expect(error.code).toBe("MISSING_FILE");
    expect(error.path).toBe("t/__attrs__");
  });

  it.each([["[1]"], ["null"], ['{"length": -1}'], ['{"length": 1.5}']])(".append holding %s is BAD_METADATA", async (content) => {
    const store = await table();
    await store.put("t/.append", text(content));
    const error = await failure(openCtable(store, "t"));
    expect(error.code).toBe("BAD_METADATA");
    expect(error.field).toBe("append.length");
  });

  it('.append holding {"length": 3} opens (the table length)', async () => {
    const store = await table();
    await store.put("t/.append", text('{"format": 1, "length": 3}\n'));
    expect((await openCtable(store, "t")).length).toBe(3);
  });
});
