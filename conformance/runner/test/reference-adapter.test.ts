// The main job as a test: the reference adapter, run as a separate process exactly as any other
// implementation would be, must pass every corpus case. Requires the build (`pnpm test` builds).
import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { formatTable, judgeAll, judgeWhereCase, loadCorpus, loadWhereCases, parseKnownFailures, adapterCaller, runAdapter, runPool, runSuite } from "../src/index.js";

const root = resolve(import.meta.dirname, "../../..");
const adapter = join(root, "conformance/adapters/reference/adapter");
const corpus = join(root, "conformance/corpus");
// The whole corpus goes through `adapter serve` (spec/conformance.md §1.5), a process per call
// would take minutes; broken-adapters.test.ts shows both ways give the same verdicts.
const caller = adapterCaller(adapter, { serve: true, processes: 2 });
afterAll(() => caller.close());

describe("corpus integrity", () => {
  it("every expected file of bcolz-real matches the digest recorded by the generator", () => {
    const manifest = JSON.parse(readFileSync(join(corpus, "v1/bcolz-real/manifest.json"), "utf8")) as { cases: { name: string; expected: Record<string, { sha256: string; bytes: number }> }[] };
    let checked = 0;
    for (const c of manifest.cases) {
      const files: [string, { sha256: string; bytes: number }][] = Object.entries(c.expected);
      for (const [file, want] of files) {
        const bytes = readFileSync(join(corpus, "v1/bcolz-real", c.name, "expected", file));
        expect(bytes.length, `${c.name}/${file}`).toBe(want.bytes);
        expect(createHash("sha256").update(bytes).digest("hex"), `${c.name}/${file}`).toBe(want.sha256);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(60);
  });
});

describe("reference adapter", () => {
  it("is built", () => {
    expect(existsSync(join(root, "packages/cli/dist/adapter-main.js")), "run `pnpm build` first").toBe(true);
  });

  it("describes itself", async () => {
    const info = await runAdapter(adapter, ["info"]);
    expect(info.code).toBe(0);
    const parsed = JSON.parse(info.stdout) as { formats: number[]; operations: string[] };
    expect(parsed.formats).toContain(1);
    expect(parsed.operations).toContain("read");
    expect(parsed.operations).toContain("where");
  });

  it("passes every v1 corpus case except those its KNOWN-FAILURES.md lists (and those still fail)", async () => {
    const cases = await loadCorpus(corpus, 1);
    expect(cases.length).toBeGreaterThanOrEqual(62);
    const known = parseKnownFailures(readFileSync(join(root, "conformance/adapters/reference/KNOWN-FAILURES.md"), "utf8"), "KNOWN-FAILURES.md")
      .filter((k) => k.operation === "read")
      .map((k) => k.id);
    const results = await judgeAll(caller, cases, 2);
    const unexpected = results.filter((r) => (r.status === "PASS") === known.includes(`${r.set}/${r.name}`));
    if (unexpected.length > 0) console.log(formatTable(unexpected));
    expect(unexpected.map((r) => `${r.set}/${r.name}: ${r.status} ${r.detail}`)).toEqual([]);
  }, 600_000);

  it("passes every v2 read case except those its KNOWN-FAILURES.md lists (and those still fail)", async () => {
    const cases = await loadCorpus(corpus, 2);
    expect(cases.length).toBeGreaterThanOrEqual(232);
    const known = parseKnownFailures(readFileSync(join(root, "conformance/adapters/reference/KNOWN-FAILURES.md"), "utf8"), "KNOWN-FAILURES.md")
      .filter((k) => k.operation === "read")
      .map((k) => k.id);
    const results = await judgeAll(caller, cases, 2);
    const unexpected = results.filter((r) => (r.status === "PASS") === known.includes(`${r.set}/${r.name}`));
    if (unexpected.length > 0) console.log(formatTable(unexpected));
    expect(unexpected.map((r) => `${r.set}/${r.name}: ${r.status} ${r.detail}`)).toEqual([]);
  }, 600_000);

  it("answers every where query case (spec/conformance.md §1.4) except those its KNOWN-FAILURES.md lists", async () => {
    const cases = await loadWhereCases(corpus, 1);
    expect(cases.length).toBeGreaterThanOrEqual(20);
    expect(cases.some((c) => c.expectError !== undefined)).toBe(true);
    const known = parseKnownFailures(readFileSync(join(root, "conformance/adapters/reference/KNOWN-FAILURES.md"), "utf8"), "KNOWN-FAILURES.md")
      .filter((k) => k.operation === "where")
      .map((k) => k.id);
    const results = await runPool(cases, 2, (c) => judgeWhereCase(caller, c));
    const unexpected = results.filter((r) => (r.status === "PASS") === known.includes(`${r.set}/${r.name}`));
    if (unexpected.length > 0) console.log(formatTable(unexpected));
    expect(unexpected.map((r) => `${r.set}/${r.name}: ${r.status} ${r.detail}`)).toEqual([]);
  }, 600_000);
});

describe("where operation in a run", () => {
  it("--only where runs the query cases alone, and --filter selects among them", async () => {
    const { results } = await runSuite({ adapter, corpus, only: "where", filters: ["where/i4_*"] });
    expect(results.length).toBeGreaterThanOrEqual(3);
    expect(results.every((r) => r.operation === "where" && r.name.startsWith("i4_"))).toBe(true);
    expect(results.filter((r) => r.status !== "PASS")).toEqual([]);
  }, 120_000);

  it("reports the query cases as SKIP when adapter info does not list where", async () => {
    const python = join(root, "conformance/adapters/python/adapter");
    const dir = mkdtempSync(join(tmpdir(), "where-skip-"));
    const noWhere = join(dir, "adapter");
    writeFileSync(noWhere, `#!/bin/sh\nif [ "$1" = info ]; then echo '{"name":"x","version":"0","formats":[1],"operations":["read"]}'; exit 0; fi\nexec ${JSON.stringify(python)} "$@"\n`, { mode: 0o755 });
    try {
      const { results } = await runSuite({ adapter: noWhere, corpus, only: "where", filters: ["where/cmp_*"] });
      expect(results.length).toBeGreaterThan(0);
      expect(results.every((r) => r.status === "SKIP" && r.detail === "adapter info does not list the where operation")).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
