// Which compiled expressions a table may answer from a column's stored bytes (storedComparison,
// what runWhere hands WhereTable.compareColumn): exactly one comparison of a bare column with a
// constant, made in the column's own kind or in float64 for int32 and float32 columns; the
// operator mirrored when the constant is on the left, the constant as the comparison converts it.
import { describe, expect, it } from "vitest";
import { parseDtype } from "@fmt/meta";
import { compileExpression, storedComparison } from "../src/expression.js";

const schema = Object.fromEntries(
  [
    ["f8", "<f8"],
    ["f4", "<f4"],
    ["i4", "<i4"],
    ["i1", "|i1"],
    ["u4", "<u4"],
    ["i8", "<i8"],
    ["b", "|b1"],
    ["ts", "<M8[ns]"],
    ["s", "|S3"],
  ].map(([name, dtype]) => [name!, { dtype: parseDtype(dtype!) }]),
);
const stored = (text: string): ReturnType<typeof storedComparison> => storedComparison(compileExpression(text, schema));

describe("storedComparison", () => {
  it("names the column, the operator with the column on its left, and the converted constant", () => {
    expect(stored("f8 > 2.5")).toEqual({ column: "f8", op: ">", value: 2.5 });
    expect(stored("2.5 < f8")).toEqual({ column: "f8", op: ">", value: 2.5 });
    expect(stored("-3 >= i1")).toEqual({ column: "i1", op: "<=", value: -3 });
    expect(stored("i4 != 7")).toEqual({ column: "i4", op: "!=", value: 7 });
    expect(stored("i4 > 2.0")).toEqual({ column: "i4", op: ">", value: 2 }); // in float64, exact for int32
    expect(stored("f4 > 0.5")).toEqual({ column: "f4", op: ">", value: 0.5 });
    expect(stored("i8 == 9007199254740993")).toEqual({ column: "i8", op: "==", value: 9007199254740993n });
    expect(stored("u4 < 7")).toEqual({ column: "u4", op: "<", value: 7n }); // uint32 compares as int64
    expect(stored("ts > 5")).toEqual({ column: "ts", op: ">", value: 5n }); // the table declines datetimes
    expect(Object.is(stored("f8 > -0.0")?.value, -0)).toBe(true); // the table declines zeros
  });

  it("is undefined for anything else", () => {
    for (const text of [
      "f8 + 1 > 2",
      "(f8 > 1) & (f8 < 3)",
      "(f8 > 1) | (i4 < 3)",
      "~(f8 > 1)",
      "f8 > i4",
      "i8 > 2.0", // int64 in float64 loses values past 2**53
      "u4 > 2.5",
      "b == 1",
      "b",
      's == "ab"',
      "1 < 2",
    ]) {
      expect(stored(text), text).toBeUndefined();
    }
  });
});
