// Every MUST / MUST NOT of spec/v1.md, spec/v2.md and spec/errors.md carries a rule id
// (spec/conformance.md §2.3), every rule id is pinned by a corpus case (read or write check) or a
// named test, every rule a manifest names exists, and conformance/COVERAGE.md is up to date.
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { coverage } from "./coverage.js";

const root = resolve(import.meta.dirname, "../..");
const result = coverage(root);

describe("rule coverage", () => {
  it("finds the rules of the three documents, each MUST tagged once", () => {
    expect(result.spec.problems).toEqual([]);
    for (const prefix of ["v1-", "v2-", "err-"]) expect(result.spec.rules.some((r) => r.id.startsWith(prefix))).toBe(true);
    expect(new Set(result.spec.rules.map((r) => r.id)).size).toBe(result.spec.rules.length);
  });

  it("knows every rule the manifests and pinned-elsewhere.json name, and every named test exists", () => {
    expect(result.pins.problems).toEqual([]);
  });

  it("pins every rule by a case or a named test", () => {
    expect(result.unpinned.map((r) => `${r.id} (spec/${r.file}:${r.line})`)).toEqual([]);
  });

  it("has an up-to-date conformance/COVERAGE.md (node conformance/rules/generate.mjs)", () => {
    expect(readFileSync(join(root, "conformance/COVERAGE.md"), "utf8")).toBe(result.markdown);
  });
});
