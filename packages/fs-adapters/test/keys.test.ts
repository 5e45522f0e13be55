import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { isBcolzError } from "@fmt/errors";
import { readRange, resolveRange, validateKey, validatePrefix } from "@fmt/fs-adapters";

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (e) {
    return isBcolzError(e) ? e.code : "not a BcolzError";
  }
  return undefined;
}

describe("validateKey", () => {
  it("accepts ordinary relative keys", () => {
    for (const key of ["meta/sizes", "data/__0.blp", "__attrs__", "price/data/__12.blp", "a", ".hidden", "..x", "x.."]) {
      expect(validateKey(key)).toBe(key);
    }
  });

  it.each([
    [""],
    ["."],
    [".."],
    ["/etc/passwd"],
    ["../up"],
    ["a/../b"],
    ["a/./b"],
    ["a//b"],
    ["a/"],
    ["a\\b"],
    ["C:\\x"],
    ["a\0b"],
  ])("rejects %j with UNSAFE_NAME", (key) => {
    expect(codeOf(() => validateKey(key))).toBe("UNSAFE_NAME");
  });

  it("rejects non-strings with INVALID_ARGUMENT", () => {
    expect(codeOf(() => validateKey(3 as unknown as string))).toBe("INVALID_ARGUMENT");
  });

  it("never accepts a key with a dot-dot segment (property)", () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom("a", "..", ".", "", "b\\c", "x"), { minLength: 1, maxLength: 5 }), (segments) => {
        const key = segments.join("/");
        const bad = segments.some((s) => s === ".." || s === "." || s === "" || s.includes("\\"));
        expect(codeOf(() => validateKey(key)) === "UNSAFE_NAME").toBe(bad);
      }),
    );
  });
});

describe("validatePrefix", () => {
  it("accepts empty, directory and partial prefixes", () => {
    for (const p of ["", "data/", "data/__1", "a/b/", "a", ".."]) expect(validatePrefix(p)).toBe(p);
  });
  it.each([["/x"], ["a/../"], ["../"], ["a//"], ["a\\"], ["a\0"]])("rejects %j", (p) => {
    expect(codeOf(() => validatePrefix(p))).toBe("UNSAFE_NAME");
  });
});

describe("resolveRange", () => {
  it("clips at the end and handles suffixes", () => {
    expect(resolveRange({ offset: 2, length: 3 }, 10)).toEqual({ start: 2, end: 5 });
    expect(resolveRange({ offset: 8, length: 30 }, 10)).toEqual({ start: 8, end: 10 });
    expect(resolveRange({ offset: 12, length: 3 }, 10)).toEqual({ start: 10, end: 10 });
    expect(resolveRange({ suffixLength: 4 }, 10)).toEqual({ start: 6, end: 10 });
    expect(resolveRange({ suffixLength: 40 }, 10)).toEqual({ start: 0, end: 10 });
    expect(resolveRange({ offset: 0, length: Number.MAX_SAFE_INTEGER }, 10)).toEqual({ start: 0, end: 10 });
  });
  it.each([[{ offset: -1, length: 1 }], [{ offset: 0.5, length: 1 }], [{ offset: 0, length: NaN }], [{ suffixLength: -2 }]])(
    "rejects %j with INVALID_ARGUMENT",
    (range) => {
      expect(codeOf(() => resolveRange(range, 10))).toBe("INVALID_ARGUMENT");
    },
  );
});

describe("readRange", () => {
  it("falls back to get + slice for stores without getRange", async () => {
    const store = { get: async (key: string) => (key === "k" ? new Uint8Array([1, 2, 3, 4, 5]) : undefined) };
    expect(await readRange(store, "k", { offset: 1, length: 2 })).toEqual(new Uint8Array([2, 3]));
    expect(await readRange(store, "k", { suffixLength: 2 })).toEqual(new Uint8Array([4, 5]));
    expect(await readRange(store, "missing", { offset: 0, length: 1 })).toBeUndefined();
  });
});
