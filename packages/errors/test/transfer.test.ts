import { describe, expect, it } from "vitest";
import { BcolzError, ConflictError, FormatError, StorageError, UsageError, reviveError, serializeError } from "../src/index.js";

// What crosses a thread boundary is what structuredClone (postMessage's algorithm) keeps.
const acrossThreads = (error: unknown): Error => reviveError(structuredClone(serializeError(error)));

describe("serializeError / reviveError", () => {
  it("bring every error class back with its code, path, field, expected and actual", () => {
    const made = [
      new FormatError("TRUNCATED", "chunk ends early", { path: "data/__3.blp", field: "cbytes", expected: 4096, actual: 100 }),
      new UsageError("INVALID_ARGUMENT", "bad start", { field: "start", actual: -3n }),
      new ConflictError("LOCKED", "held by another writer", { path: ".lock" }),
      new StorageError("IO_ERROR", "read failed", { path: "meta/sizes", actual: "EIO" }),
      new BcolzError("CHECKSUM_MISMATCH", "sum differs", { path: "data/__1__.bin", field: "checksum[2]", expected: 1, actual: 2 }),
    ];
    for (const error of made) {
      const again = acrossThreads(error);
      expect(again.constructor).toBe(error.constructor);
      expect(again).toMatchObject({ code: error.code, path: error.path, field: error.field, expected: error.expected, actual: error.actual, message: error.message });
    }
  });

  it("bring other errors back as an Error with the same name and message", () => {
    const again = acrossThreads(new RangeError("out of range"));
    expect(again).toBeInstanceOf(Error);
    expect(again).not.toBeInstanceOf(BcolzError);
    expect([again.name, again.message]).toEqual(["RangeError", "out of range"]);
    expect(acrossThreads("a thrown string").message).toBe("a thrown string");
  });

  it("send details that cannot be cloned as their text", () => {
    const detail = { toString: () => "a function-bearing detail", f: () => 1 };
    const again = acrossThreads(new FormatError("BAD_HEADER", "odd", { actual: detail }));
    expect((again as FormatError).actual).toBe("a function-bearing detail");
  });
});
