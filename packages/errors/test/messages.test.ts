// Messages are worded for the person who reads them (issue 18 item 7): the path, the field, the
// reason, then what was expected and what was found; an empty path (the dataset at the store
// root) or an empty field adds no empty segment.
import { describe, expect, it } from "vitest";
import { FormatError, UsageError } from "../src/index.js";

describe("error messages", () => {
  it("path, field, reason, expected and actual", () => {
    expect(new FormatError("BAD_HEADER", "bad value", { path: "data/__1__.bin", field: "blpk.options", expected: "0x03", actual: 1 }).message)
      .toBe("data/__1__.bin: field blpk.options: bad value (expected 0x03, got 1)");
  });
  it("no empty segment for an empty path or field", () => {
    expect(new UsageError("INVALID_ARGUMENT", "name is taken", { path: "", field: "name" }).message).toBe("field name: name is taken");
    expect(new UsageError("INVALID_ARGUMENT", "bad", { path: "", field: "" }).message).toBe("bad");
    expect(new UsageError("INVALID_ARGUMENT", "bad", { path: "x", field: "" }).message).toBe("x: bad");
  });
});
