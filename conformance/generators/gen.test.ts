// The generated corpus sets (gen-valid, gen-invalid, gen-malformed of v1 and v2) are reproducible:
// fast-check redraws every case description from the seeds recorded in the manifests, and the
// Python builder (c-blosc via python3-blosc, numpy; tools/setup.sh installs them) rebuilds every
// byte from those descriptions; and the independent Python reader of format 2 (v2lib/check.py)
// agrees with every synth case of format 2. Nothing here runs the implementation under test.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { categoryOf, COUNTS, describeSets, type SetDescription } from "./gen/describe.js";

const here = import.meta.dirname;
const corpus = resolve(here, "../corpus");

interface ManifestCase {
  name: string;
  seed?: number;
  rules?: string[];
  write_rules?: string[];
  expect?: { error: string };
  category?: string;
  derived_from?: string;
  gen?: Record<string, unknown>;
}

function manifestOf(s: SetDescription): { seed: number; cases: ManifestCase[] } {
  return JSON.parse(readFileSync(join(corpus, `v${s.format}`, s.set, "manifest.json"), "utf8")) as { seed: number; cases: ManifestCase[] };
}

function filesUnder(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string): void => {
    for (const name of readdirSync(d).sort()) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else out.push(relative(dir, p));
    }
  };
  walk(dir);
  return out.sort();
}

const sets = describeSets();

describe("generated corpus sets", () => {
  it("have the promised sizes: at least 150 valid, 50 invalid and 50 malformed cases per format", () => {
    for (const format of [1, 2] as const) {
      const count = (set: string): number => sets.find((s) => s.format === format && s.set === set)?.cases.length ?? 0;
      expect(count("gen-valid")).toBeGreaterThanOrEqual(150);
      expect(count("gen-invalid")).toBeGreaterThanOrEqual(50);
      expect(count("gen-malformed")).toBeGreaterThanOrEqual(50);
    }
    expect(COUNTS.valid).toBeGreaterThanOrEqual(150);
  });

  it("must-fail descriptions name a code of their set's class and at least one rule", () => {
    for (const s of sets.filter((x) => x.set !== "gen-valid")) {
      for (const c of s.cases) {
        expect(c.expect, c.name).toBeDefined();
        expect(categoryOf(c.expect ?? ""), c.name).toBe(s.set.slice("gen-".length));
        expect(c.rules.length, c.name).toBeGreaterThan(0);
      }
    }
  });

  it("redraws, from the recorded seeds, exactly the descriptions the manifests hold", () => {
    for (const s of sets) {
      const m = manifestOf(s);
      expect(m.seed, s.set).toBe(s.seed);
      expect(m.cases.map((c) => c.name)).toEqual(s.cases.map((c) => c.name));
      s.cases.forEach((c, i) => {
        const mc = m.cases[i] as ManifestCase;
        expect(mc.seed, c.name).toBe(c.seed);
        expect(mc.rules, c.name).toEqual(c.rules);
        expect(mc.write_rules, c.name).toEqual(c.lenient === undefined ? c.write_rules : undefined);
        expect(mc.expect?.error, c.name).toBe(c.expect);
        const gen: Record<string, unknown> = { dataset: c.dataset };
        if (c.damage !== undefined) gen.damage = c.damage;
        if (c.lenient !== undefined) gen.lenient = c.lenient;
        // JSON round trip: the manifest holds the description as JSON
        expect(mc.gen, c.name).toEqual(JSON.parse(JSON.stringify(gen)));
      });
    }
  });

  describe("rebuilt by the Python builder", () => {
    let tmp = "";
    beforeAll(() => {
      tmp = mkdtempSync(join(tmpdir(), "gen-corpus-test-"));
      const desc = join(tmp, "descriptions.json");
      writeFileSync(desc, JSON.stringify({ sets }));
      execFileSync("python3", [join(here, "gen_corpus.py"), desc, tmp], { stdio: ["ignore", "ignore", "inherit"] });
    }, 120_000);
    afterAll(() => rmSync(tmp, { recursive: true, force: true }));

    for (const s of sets) {
      it(`reproduces v${s.format}/${s.set} byte for byte`, () => {
        const built = join(tmp, `v${s.format}`, s.set);
        const committed = join(corpus, `v${s.format}`, s.set);
        const files = filesUnder(committed);
        expect(filesUnder(built)).toEqual(files);
        const differing = files.filter((f) => !readFileSync(join(built, f)).equals(readFileSync(join(committed, f))));
        expect(differing).toEqual([]);
      });
    }
  });
});

describe("the format-2 synth sets against the independent Python reader", () => {
  // v2lib/check.py reads every case of v2/synth-valid and v2/synth-broken as the spec says (written
  // from spec/ alone, like the builder) and compares with the manifests: what a valid case holds,
  // which error code a broken one must raise. A rule the spec adds or changes must reach both.
  it("finds no case whose outcome differs from its manifest", () => {
    let output: string;
    try {
      output = execFileSync("python3", [join(here, "v2_corpus.py"), "--check"], { encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] });
    } catch (error) {
      output = String((error as { stdout?: unknown }).stdout ?? error);
    }
    for (const set of ["synth-valid", "synth-broken"]) {
      const line = new RegExp(`^${set}: (\\d+) cases, (\\d+) problems$`, "m").exec(output);
      expect(line, output).not.toBeNull();
      expect(Number(line![1])).toBeGreaterThan(0);
      expect(Number(line![2]), output).toBe(0);
    }
  });
});
