#!/usr/bin/env node
// Rewrites conformance/COVERAGE.md from the spec's rule tags and the corpus manifests
// (conformance/rules/coverage.ts); `--check` only reports whether the file is up to date and
// whether every rule is pinned. Exit status 1 on a problem.
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { importTs } from "../generators/load-ts.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, "../..");
const out = join(root, "conformance/COVERAGE.md");
const { coverage } = await importTs(join(here, "coverage.ts"));
const { spec, pins, markdown, unpinned } = coverage(root);
const problems = [...spec.problems.map((p) => `spec/${p.file}:${p.line}: ${p.message}`), ...pins.problems, ...unpinned.map((r) => `${r.id} (spec/${r.file}:${r.line}) is pinned by nothing`)];
for (const p of problems) console.error(p);
if (process.argv.includes("--check")) {
  let current = "";
  try {
    current = readFileSync(out, "utf8");
  } catch {
    // no COVERAGE.md yet: it is out of date
  }
  if (current !== markdown) problems.push("conformance/COVERAGE.md is out of date: run node conformance/rules/generate.mjs");
} else {
  writeFileSync(out, markdown);
}
console.log(`${spec.rules.length} rules, ${spec.rules.length - unpinned.length} pinned, ${unpinned.length} unpinned; ${problems.length} problem(s)`);
process.exitCode = problems.length === 0 ? 0 : 1;
