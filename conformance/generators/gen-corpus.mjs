#!/usr/bin/env node
// Generates the sets gen-valid, gen-invalid and gen-malformed of conformance/corpus/v1 and v2.
//
//   node conformance/generators/gen-corpus.mjs            rewrite the six sets
//   node conformance/generators/gen-corpus.mjs --check    rebuild them in a temporary folder and
//                                                          compare byte for byte (exit 1 on a difference)
//
// fast-check draws every case description from the seeds in gen/describe.ts (recorded in each
// manifest); the Python builder gen_corpus.py (c-blosc via python3-blosc, numpy; written from
// spec/ alone) writes the bytes. Nothing here imports the implementation under test.
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { importTs } from "./load-ts.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const corpus = resolve(here, "../corpus");

/** Loads gen/describe.ts (transpiled in memory by the TypeScript compiler; no build step). */
export function loadDescribe() {
  return importTs(join(here, "gen/describe.ts"));
}

/** Runs the Python builder over `sets` into `outRoot` (v1/…, v2/…). */
export function buildSets(sets, outRoot) {
  const descFile = join(outRoot, "descriptions.json");
  writeFileSync(descFile, JSON.stringify({ sets }));
  execFileSync("python3", [join(here, "gen_corpus.py"), descFile, outRoot], { stdio: ["ignore", "inherit", "inherit"] });
  rmSync(descFile);
}

async function main() {
  const check = process.argv.includes("--check");
  const { describeSets } = await loadDescribe();
  const sets = describeSets();
  const tmp = mkdtempSync(join(tmpdir(), "gen-corpus-"));
  try {
    buildSets(sets, tmp);
    if (check) {
      let bad = 0;
      for (const s of sets) {
        try {
          execFileSync("diff", ["-r", "--brief", join(tmp, `v${s.format}`, s.set), join(corpus, `v${s.format}`, s.set)], { stdio: "inherit" });
        } catch {
          bad += 1;
        }
      }
      console.log(bad === 0 ? "generated sets reproduce the committed bytes" : `${bad} set(s) differ`);
      process.exitCode = bad === 0 ? 0 : 1;
      return;
    }
    for (const s of sets) {
      const dest = join(corpus, `v${s.format}`, s.set);
      if (existsSync(dest)) rmSync(dest, { recursive: true, force: true });
      renameSync(join(tmp, `v${s.format}`, s.set), dest);
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await main();
