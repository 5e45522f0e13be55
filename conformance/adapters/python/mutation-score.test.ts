// Mutation score of the corpus (issue 17): conformance/adapters/python/mutation_score.py runs the
// unmodified Python reader and every variant of mutants.py (each drops one rule of spec/) over
// every read case, in one Python process, and judges the answers as the runner does. The corpus
// must catch (fail a case the unmodified reader passes) at least 90 % of the scored variants.
// Needs /usr/bin/python3 with Debian's python3-numpy and python3-blosc (tools/setup.sh).
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const here = import.meta.dirname;
const root = resolve(here, "../../..");

interface Report {
  cases: number;
  baseline_passed: number;
  score: number;
  threshold: number;
  variants: { name: string; rule: string; equivalent: string | null; caught_by: string[] }[];
}

describe("mutation score of the corpus against the Python reader", () => {
  it("catches at least 90 % of the reader's variants", () => {
    const dir = mkdtempSync(join(tmpdir(), "bcolz-mutation-"));
    try {
      const out = join(dir, "score.json");
      const run = spawnSync(
        "/usr/bin/python3",
        ["-B", "-E", "-s", join(here, "mutation_score.py"), "--corpus", join(root, "conformance/corpus"), "--threshold", "90", "--json", out, "--quiet"],
        { encoding: "utf8", timeout: 300_000 },
      );
      expect(run.status === 0 || run.status === 1, `exit ${run.status}: ${run.stderr}`).toBe(true);
      const report = JSON.parse(readFileSync(out, "utf8")) as Report;
      console.log(run.stdout.trim());
      expect(report.variants.length).toBeGreaterThanOrEqual(30);
      // the unmodified reader passes every read case (else a variant could hide behind its failures)
      expect(report.baseline_passed).toBe(report.cases);
      const missed = report.variants.filter((v) => v.equivalent === null && v.caught_by.length === 0).map((v) => `${v.name}: ${v.rule}`);
      expect(report.score, `missed variants:\n${missed.join("\n")}`).toBeGreaterThanOrEqual(90);
      expect(run.status).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 300_000);
});
