#!/usr/bin/env node
// `pnpm pack:public [--out DIR] [PACKAGE...]`: packs the publishable packages (all of them, or the
// ones named and the workspace packages they depend on) into one directory, default `packs/`, so
// that they install from a clone before they are published:
//
//   pnpm pack:public @fmt/store @fmt/fs-adapters
//   cd ../my-app && npm install ../bcolz-ts/packs/*.tgz
//
// Private packages (tools/*: benchmarks, fuzzers, test harnesses) are never packed. Earlier
// tarballs in the output directory are removed first, so `packs/*.tgz` is always one consistent
// set. Needs the build (`pnpm pack:public` builds first; `node tools/pack-public.mjs` does not).
import { readdirSync, rmSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { packPublic } from "./pack-check/pack.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const args = process.argv.slice(2);
let out = join(root, "packs");
const wanted = [];
for (let i = 0; i < args.length; i++) {
  const a = args[i];
  if (a === "--out") {
    if (args[i + 1] === undefined) fail("--out needs a directory");
    out = resolve(args[++i]);
  } else if (a.startsWith("--out=")) out = resolve(a.slice("--out=".length));
  else if (a === "--help" || a === "-h") {
    console.log("usage: pnpm pack:public [--out DIR] [PACKAGE...]\npacks the publishable packages (default all; else those named and their workspace dependencies) into DIR (default packs/)");
    process.exit(0);
  } else if (a === "--") continue;
  else if (a.startsWith("-")) fail(`unknown option ${a}`);
  else wanted.push(a);
}

function fail(message) {
  console.error(`error: ${message}`);
  process.exit(2);
}

try {
  for (const f of readdirSync(out, { withFileTypes: true })) if (f.isFile() && f.name.endsWith(".tgz")) rmSync(join(out, f.name));
} catch (e) {
  if (e?.code !== "ENOENT") throw e;
}
let packed;
try {
  packed = packPublic(root, wanted, out);
} catch (e) {
  fail(e instanceof Error ? e.message : String(e));
}
const show = (path) => {
  const rel = relative(process.cwd(), path);
  return rel === "" ? "." : rel.startsWith("..") ? path : rel;
};
for (const p of packed) console.log(`${p.name.padEnd(20)} ${show(p.tarball)}`);
const shown = show(out);
console.log(`\n${packed.length} tarball(s) in ${shown}. Install them together into a project:\n  npm install ${resolve(out)}/*.tgz`);
