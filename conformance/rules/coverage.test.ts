// Every MUST / MUST NOT of spec/v1.md, spec/v2.md and spec/errors.md carries a rule id
// (spec/conformance.md §2.3), every rule id is pinned by a corpus case (read or write check) or a
// named test, every rule a manifest names exists, and conformance/COVERAGE.md is up to date.
import { readdirSync, readFileSync } from "node:fs";
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

describe("query cases", () => {
  it("every query case of every manifest names expressions.md rule ids that exist (spec/conformance.md §2.1)", () => {
    const anchors = new Set([...readFileSync(join(root, "spec/expressions.md"), "utf8").matchAll(/<a id="(expr-[\w.-]+)">/g)].map((m) => m[1]!));
    expect(anchors.size).toBeGreaterThan(5);
    const problems: string[] = [];
    let queries = 0;
    const corpus = join(root, "conformance/corpus");
    for (const version of readdirSync(corpus).filter((d) => /^v\d+$/.test(d))) {
      for (const set of readdirSync(join(corpus, version))) {
        let manifest: { queries?: { name: string; rules?: unknown }[] };
        try {
          manifest = JSON.parse(readFileSync(join(corpus, version, set, "manifest.json"), "utf8")) as typeof manifest;
        } catch {
          continue;
        }
        for (const q of manifest.queries ?? []) {
          queries++;
          const rules = Array.isArray(q.rules) ? (q.rules as unknown[]) : [];
          if (rules.length === 0) problems.push(`${version}/${set}/${q.name}: no rules`);
          for (const id of rules) if (!anchors.has(String(id))) problems.push(`${version}/${set}/${q.name}: unknown rule ${String(id)}`);
        }
      }
    }
    expect(queries).toBeGreaterThan(30);
    expect(problems).toEqual([]);
  });
});
