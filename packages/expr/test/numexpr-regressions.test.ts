// Regression cases with numexpr's recorded answers (numexpr-regressions.json, recorded once from
// python3-numexpr; see its "note"): the rules of spec/expressions.md that differ from plain
// float64 or numpy semantics, and the failures numexpr-oracle.test.ts has found. Runs without
// Python.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parseExpression } from "@fmt/expr";
import { ourAnswer, pythonText } from "./numexpr-cases.js";
import type { OracleAnswer, RegressionCase } from "./numexpr-cases.js";

const file = JSON.parse(readFileSync(new URL("./numexpr-regressions.json", import.meta.url), "utf8")) as { cases: RegressionCase[]; recorded_with: { numexpr: string } };

describe("where expressions: regressions recorded from numexpr", () => {
  it("were recorded from numexpr 2.8", () => {
    expect(file.recorded_with.numexpr).toMatch(/^2\.8\./);
    expect(file.cases.length).toBeGreaterThanOrEqual(40);
  });

  it.each(file.cases.map((c) => [c.why, c] as const))("%s", (_why, c) => {
    // The two texts are the same tree: ours, written out fully parenthesised, is numexpr's text.
    expect(pythonText(parseExpression(c.expression)).replace(/[()\s]/g, "")).toBe(c.python.replace(/[()\s]/g, ""));
    const ours: OracleAnswer = ourAnswer(c.expression, c.rows, c.columns);
    if ("mask" in c.expect) expect(ours).toEqual(c.expect);
    else expect("error" in ours, `numexpr answered ${JSON.stringify(c.expect)}, we answered ${JSON.stringify(ours)}`).toBe(true);
  });
});
