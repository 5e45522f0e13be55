#!/usr/bin/env node
// Runs around `npm pack`/`pnpm publish` (prepack, postpack): npm ships only files inside the
// package directory, so the corpus (conformance/corpus/v<N>) and the protocol text
// (spec/conformance.md) are copied in before packing and removed after, with `--clean`.
// The corpus's regressions/ folder is left out: it feeds this repository's unit tests, not
// third-party adapters.
import { cpSync, readdirSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const packageRoot = join(dirname(fileURLToPath(import.meta.url)), "..");
const corpusSource = join(packageRoot, "..", "corpus");
const corpusCopy = join(packageRoot, "corpus");
const specCopy = join(packageRoot, "conformance.md");

rmSync(corpusCopy, { recursive: true, force: true });
rmSync(specCopy, { force: true });
if (!process.argv.includes("--clean")) {
  for (const name of readdirSync(corpusSource)) {
    if (/^v\d+$/.test(name)) cpSync(join(corpusSource, name), join(corpusCopy, name), { recursive: true });
  }
  cpSync(join(packageRoot, "..", "..", "spec", "conformance.md"), specCopy);
}
