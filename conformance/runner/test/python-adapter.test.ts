// The second, independent implementation: a Python reader written from spec/ alone
// (conformance/adapters/python), run as a separate process exactly like any third-party adapter,
// must pass every v1 and v2 read case except the ones listed, by case name, in its KNOWN-FAILURES
// files.
// Needs /usr/bin/python3 with Debian's python3-numpy and python3-blosc (tools/setup.sh installs
// them); the runner itself is used from source, so no build is needed.
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { applyKnownFailures, formatTable, judgeAll, judgeWhereCase, loadCorpus, loadWhereCases, parseKnownFailures, adapterCaller, runAdapter, runPool } from "../src/index.js";

const root = resolve(import.meta.dirname, "../../..");
const adapterDir = join(root, "conformance/adapters/python");
const adapter = join(adapterDir, "adapter");
const corpus = join(root, "conformance/corpus");
// The whole corpus goes through `adapter serve` (spec/conformance.md §1.5), a process per call
// would take minutes; broken-adapters.test.ts shows both ways give the same verdicts.
const caller = adapterCaller(adapter, { serve: true, processes: 2 });
afterAll(() => caller.close());

const knownFile = join(adapterDir, "KNOWN-FAILURES.md");

describe("python adapter (independent implementation)", () => {
  it("describes itself as a reader of format 1 (and possibly 2)", async () => {
    const info = await runAdapter(adapter, ["info"]);
    expect(info.code, info.stderr).toBe(0);
    const parsed = JSON.parse(info.stdout) as { formats: number[]; operations: string[] };
    expect(parsed.formats).toContain(1);
    expect(parsed.formats.every((f: number) => f === 1 || f === 2)).toBe(true);
    expect(parsed.operations).toEqual(["read", "where", "serve"]);
  });

  it("passes every v1 read case except its listed known failures", async () => {
    const cases = await loadCorpus(corpus, 1);
    expect(cases.length).toBeGreaterThanOrEqual(113);
    // The runner's own known-failures handling (what `--known-failures KNOWN-FAILURES.md` does):
    // listed failures become KNOWN, a listed case that passes again becomes a FAIL (stale entry).
    const known = parseKnownFailures(readFileSync(knownFile, "utf8"), knownFile);
    const { results, unmatched } = applyKnownFailures(await judgeAll(caller, cases, 2), known);
    const failed = results.filter((r) => r.status === "FAIL" || r.status === "CRASH");
    if (failed.length > 0) console.log(formatTable(failed));
    expect(failed.map((r) => `${r.set}/${r.name}: ${r.status} ${r.detail}`)).toEqual([]);
    expect(unmatched).toEqual([]);
  }, 600_000);

  it("passes every v2 read case (written from spec/v2.md alone, like the corpus) except its listed known failures", async () => {
    const cases = await loadCorpus(corpus, 2);
    expect(cases.length).toBeGreaterThanOrEqual(233);
    const file = join(adapterDir, "KNOWN-FAILURES-v2.md");
    const { results, unmatched } = applyKnownFailures(await judgeAll(caller, cases, 2), parseKnownFailures(readFileSync(file, "utf8"), file));
    const failed = results.filter((r) => r.status === "FAIL" || r.status === "CRASH");
    if (failed.length > 0) console.log(formatTable(failed));
    expect(failed.map((r) => `${r.set}/${r.name}: ${r.status} ${r.detail}`)).toEqual([]);
    expect(unmatched).toEqual([]);
  }, 600_000);

  it("answers every where query case (spec/conformance.md §1.4) with numexpr itself", async () => {
    const cases = await loadWhereCases(corpus, 1);
    expect(cases.length).toBeGreaterThanOrEqual(20);
    const results = await runPool(cases, 2, (c) => judgeWhereCase(caller, c));
    const failed = results.filter((r) => r.status !== "PASS");
    if (failed.length > 0) console.log(formatTable(failed));
    expect(failed.map((r) => `${r.set}/${r.name}: ${r.status} ${r.detail}`)).toEqual([]);
  }, 600_000);
});
