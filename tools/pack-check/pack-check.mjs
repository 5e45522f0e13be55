#!/usr/bin/env node
// The pack-and-install test: what a user gets from npm, checked from outside the workspace.
//
//  1. `pnpm pack` every publishable (non-private) workspace package into a temporary directory
//     (pack.mjs, the same packing as `pnpm pack:public`);
//  2. check each tarball: no tests, sources, maps or build info; README.md, LICENSE and complete
//     package.json metadata; no `workspace:` ranges left;
//  3. publint (strict; suggestions count too) and arethetypeswrong (profile esm-only) on each tarball;
//  4. `npm install` all tarballs into a fresh npm project in the temporary directory (third-party
//     dependencies come from the npm registry or npm's cache), with the optional peer dependencies
//     (the AWS SDK for `@fmt/fs-adapters/s3`) added as a user of every entry point would;
//  5. Node ESM: import every entry point, read a corpus dataset shipped in @fmt/conformance, run
//     the `bcolz-ts` conformance adapter and `fmt-conformance --help` from node_modules/.bin;
//  6. tsc (strict, skipLibCheck off) on a small program under moduleResolution node16 and bundler;
//  7. esbuild (format esm, platform browser) over every browser-safe entry point: no Node
//     built-ins in the bundle, and the bundle runs (a MemoryStore write/read round trip).
//
// Needs the packages built (`pnpm build`). Usage: node tools/pack-check/pack-check.mjs [--keep]
// (--keep leaves the temporary directory for inspection). Exit 0 when everything is clean.
import { spawnSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { packPublic } from "./pack.mjs";
import { attwProblems, browserEntryPoints, jsEntryPoints, manifestProblems, nodeEntryPoints, nodeImportsIn, readmeExample, tarballFileProblems } from "./lib.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, "..", "..");
const require = createRequire(import.meta.url);
const keep = process.argv.includes("--keep");
const work = mkdtempSync(join(tmpdir(), "bcolz-ts-pack-check-"));
const problems = [];
const started = Date.now();

function step(title) {
  console.log(`\n== ${title} (${((Date.now() - started) / 1000).toFixed(1)} s)`);
}
function run(command, args, options = {}) {
  const r = spawnSync(command, args, { encoding: "utf8", maxBuffer: 64 * 1024 * 1024, ...options });
  if (r.error) throw r.error;
  return r;
}
function mustRun(command, args, options = {}) {
  const r = run(command, args, options);
  if (r.status !== 0) throw new Error(`${command} ${args.join(" ")} exited ${r.status}\n${r.stdout}\n${r.stderr}`);
  return r;
}
const sameBytes = (a, b) => a.length === b.length && a.every((x, i) => x === b[i]);

try {
  // 1. pack
  step("pnpm pack every publishable package");
  const tarballDir = join(work, "tarballs");
  const packages = packPublic(root, [], tarballDir);
  if (packages.length === 0) throw new Error("no publishable package found");
  for (const p of packages) {
    const files = mustRun("tar", ["-tzf", p.tarball]).stdout.split("\n").filter((l) => l && !l.endsWith("/")).map((l) => l.replace(/^package\//, ""));
    p.manifest = JSON.parse(mustRun("tar", ["-xzOf", p.tarball, "package/package.json"]).stdout);
    // 2. contents and metadata
    problems.push(...tarballFileProblems(p.name, files), ...manifestProblems(p.dir, p.manifest));
    console.log(`${p.name}: ${relative(tarballDir, p.tarball)}, ${files.length} files`);
  }

  // 3. publint and arethetypeswrong
  step("publint (strict) and arethetypeswrong (esm-only) on each tarball");
  const { publint } = await import("publint");
  const { formatMessage } = await import("publint/utils");
  const attw = join(dirname(require.resolve("@arethetypeswrong/cli/package.json")), "dist", "index.js");
  for (const p of packages) {
    const tarball = readFileSync(p.tarball);
    const { messages, pkg } = await publint({ pack: { tarball: tarball.buffer.slice(tarball.byteOffset, tarball.byteOffset + tarball.byteLength) }, strict: true, level: "suggestion" });
    for (const m of messages) problems.push(`${p.name}: publint ${m.type}: ${formatMessage(m, pkg) ?? m.code}`);
    if (jsEntryPoints(p.manifest).length === 0) {
      console.log(`${p.name}: publint ${messages.length === 0 ? "clean" : "PROBLEMS"}; attw not applicable (no JavaScript or types)`);
      continue;
    }
    const r = run(process.execPath, [attw, p.tarball, "--profile", "esm-only", "--format", "json"]);
    let found;
    try {
      found = attwProblems(JSON.parse(r.stdout));
    } catch {
      found = [`attw output is not JSON: ${r.stdout.slice(0, 300)} ${r.stderr.slice(0, 300)}`];
    }
    if (r.status !== 0 && found.length === 0) found.push(`attw exited ${r.status}: ${r.stderr.slice(0, 300)}`);
    for (const f of found) problems.push(`${p.name}: arethetypeswrong: ${f}`);
    console.log(`${p.name}: publint ${messages.length === 0 ? "clean" : "PROBLEMS"}, attw ${found.length === 0 ? "clean" : "PROBLEMS"}`);
  }

  // 4. a fresh npm project outside the workspace
  step("npm install the tarballs into a fresh project");
  const consumer = join(work, "consumer");
  cpSync(join(here, "consumer"), consumer, { recursive: true });
  writeFileSync(join(consumer, "package.json"), `${JSON.stringify({ name: "pack-check-consumer", private: true, type: "module" }, null, 2)}\n`);
  const typesNode = `@types/node@${require(join(root, "node_modules/@types/node/package.json")).version}`;
  // Optional peers (the AWS SDK of @fmt/fs-adapters/s3) are not installed by npm: a user of every
  // entry point adds them, at the version the workspace tests with.
  const optionalPeers = packages.flatMap((p) =>
    Object.keys(p.manifest.peerDependenciesMeta ?? {})
      .filter((dep) => p.manifest.peerDependenciesMeta[dep]?.optional === true && !packages.some((q) => q.name === dep))
      .map((dep) => `${dep}@${require(join(p.path, "node_modules", dep, "package.json")).version}`),
  );
  mustRun("npm", ["install", "--no-audit", "--no-fund", "--prefer-offline", "--loglevel=error", ...packages.map((p) => p.tarball), typesNode, ...optionalPeers], { cwd: consumer });
  for (const p of packages) {
    const installed = JSON.parse(readFileSync(join(consumer, "node_modules", p.name, "package.json"), "utf8"));
    if (installed.version !== p.manifest.version) problems.push(`${p.name}: npm installed ${installed.version}, not the packed ${p.manifest.version}`);
  }

  // 5. Node ESM
  step("Node ESM: import every entry point, read the installed corpus, run the bins");
  const entryPoints = packages.flatMap((p) => jsEntryPoints(p.manifest));
  const smoke = run(process.execPath, ["smoke.mjs", JSON.stringify(entryPoints)], { cwd: consumer });
  process.stdout.write(smoke.stdout);
  if (smoke.status !== 0) problems.push(`Node ESM smoke test failed:\n${smoke.stderr}`);
  const bin = (name) => join(consumer, "node_modules", ".bin", name);
  if (packages.some((p) => p.name === "@fmt/cli")) {
    const caseDir = join(consumer, "node_modules/@fmt/conformance/corpus/v1/bcolz-real/carray_f8_n6000_cl1600");
    const out = join(work, "adapter-out");
    mkdirSync(out);
    const r = run(bin("bcolz-ts"), ["adapter", "read", join(caseDir, "data.bcolz"), out]);
    if (r.status !== 0) problems.push(`bcolz-ts adapter read exited ${r.status}: ${r.stdout}${r.stderr}`);
    else if (!sameBytes(readFileSync(join(out, "values.bin")), readFileSync(join(caseDir, "expected/values.bin")))) problems.push("bcolz-ts adapter read: values.bin differs from the corpus's expected values");
    else console.log("bcolz-ts adapter read carray_f8_n6000_cl1600: values equal the corpus's");
  }
  if (packages.some((p) => p.name === "@fmt/conformance")) {
    const r = run(bin("fmt-conformance"), ["--help"]);
    if (r.status !== 0 || !r.stdout.includes("--adapter")) problems.push(`fmt-conformance --help exited ${r.status}: ${r.stderr}`);
    else console.log("fmt-conformance --help: ok");
  }

  for (const p of packages) {
    if (jsEntryPoints(p.manifest).length === 0) continue;
    const example = readmeExample(readFileSync(join(consumer, "node_modules", p.name, "README.md"), "utf8"));
    if (example === undefined) {
      problems.push(`${p.name}: README.md has no runnable example (a \`\`\`js block under "## Example")`);
      continue;
    }
    const file = `readme-${p.name.replace(/\W+/g, "-")}.mjs`;
    writeFileSync(join(consumer, file), example);
    const r = run(process.execPath, [file], { cwd: consumer });
    if (r.status !== 0) problems.push(`${p.name}: the README example failed:\n${r.stderr}`);
    else console.log(`${p.name}: README example runs`);
  }

  // 6. tsc under node16 and bundler
  step("tsc: moduleResolution node16 and bundler");
  // node16: a Node program (no DOM types) imports every entry but the browser-only ones;
  // bundler: a browser program (DOM types, no Node types) imports the browser-safe entries.
  const entriesFor = {
    node16: packages.flatMap((p) => nodeEntryPoints(p.manifest)),
    bundler: packages.flatMap((p) => browserEntryPoints(p.manifest)),
  };
  const tsc = join(root, "node_modules", "typescript", "bin", "tsc");
  const common = { strict: true, noEmit: true, skipLibCheck: false, target: "ES2022", noUncheckedIndexedAccess: true, exactOptionalPropertyTypes: true, verbatimModuleSyntax: true };
  const configs = {
    node16: { ...common, module: "node16", moduleResolution: "node16", lib: ["ES2022"], types: ["node"] },
    bundler: { ...common, module: "esnext", moduleResolution: "bundler", lib: ["ES2022", "DOM"], types: [] },
  };
  for (const [mode, compilerOptions] of Object.entries(configs)) {
    const file = `tsconfig.${mode}.json`;
    const entries = `all-entries-${mode}.ts`;
    writeFileSync(join(consumer, entries), entriesFor[mode].map((s, i) => `import * as m${i} from "${s}";\nexport { m${i} };\n`).join(""));
    writeFileSync(join(consumer, file), JSON.stringify({ compilerOptions, files: ["program.ts", entries] }, null, 2));
    const r = run(process.execPath, [tsc, "-p", file, "--pretty", "false"], { cwd: consumer });
    // Diagnostics inside third-party declarations (e.g. @aws-sdk's, which need @types/node even in
    // a browser program) are not ours to judge; ours, the program's and any other output are.
    const lines = `${r.stdout}${r.stderr}`.split("\n").filter((l) => l.trim() !== "");
    const thirdParty = (l) => /^node_modules\//.test(l) && !/^node_modules\/@fmt\//.test(l);
    const ours = lines.filter((l) => !thirdParty(l) && !/^\s/.test(l));
    const ignored = lines.filter((l) => thirdParty(l)).length;
    if (ours.length > 0 || (r.status !== 0 && ignored === 0)) problems.push(`tsc (${mode}) failed:\n${ours.join("\n") || r.stdout}`);
    else console.log(`tsc --moduleResolution ${mode}: clean (${entriesFor[mode].length} entry points${ignored ? `; ${ignored} diagnostics in third-party declarations ignored` : ""})`);
  }

  // 7. esbuild browser bundle
  step("esbuild: browser bundle of every browser-safe entry point");
  const browserEntries = packages.flatMap((p) => browserEntryPoints(p.manifest));
  console.log(`browser-safe entry points: ${browserEntries.join(", ")}`);
  writeFileSync(
    join(consumer, "browser-modules.js"),
    browserEntries.map((s, i) => `import * as m${i} from "${s}";\n`).join("") + `export const modules = [${browserEntries.map((_, i) => `m${i}`).join(", ")}];\n`,
  );
  const esbuild = await import("esbuild");
  const outfile = join(consumer, "out", "bundle.js");
  const result = await esbuild.build({
    entryPoints: [join(consumer, "browser-entry.js")],
    absWorkingDir: consumer,
    bundle: true,
    format: "esm",
    platform: "browser",
    outfile,
    metafile: true,
    logLevel: "silent",
  }).catch((e) => ({ failure: e }));
  if ("failure" in result) {
    problems.push(`esbuild failed:\n${(result.failure.errors ?? []).map((e) => `${e.location?.file ?? ""}: ${e.text}`).join("\n") || result.failure.message}`);
  } else {
    const text = readFileSync(outfile, "utf8");
    const builtins = nodeImportsIn(text);
    const external = Object.values(result.metafile.outputs).flatMap((o) => o.imports.filter((i) => i.external).map((i) => i.path));
    if (builtins.length > 0) problems.push(`browser bundle imports Node built-ins: ${builtins.join(", ")}`);
    if (external.length > 0) problems.push(`browser bundle has unresolved imports: ${external.join(", ")}`);
    const { roundTrip, modules } = await import(pathToFileURL(outfile).href);
    if (modules.length !== browserEntries.length) problems.push(`browser bundle holds ${modules.length} modules, not ${browserEntries.length}`);
    if ((await roundTrip()) !== true) problems.push("browser bundle: the MemoryStore write/read round trip returned wrong values");
    console.log(`bundle: ${(text.length / 1024).toFixed(0)} KiB, ${builtins.length} Node built-ins, round trip ok`);
  }
} catch (e) {
  problems.push(`pack-check stopped: ${e instanceof Error ? e.message : String(e)}`);
} finally {
  if (keep) console.log(`\nkept ${work}`);
  else rmSync(work, { recursive: true, force: true });
}

console.log(`\npack-check: ${((Date.now() - started) / 1000).toFixed(1)} s`);
if (problems.length > 0) {
  console.error(`${problems.length} problem(s):\n- ${problems.join("\n- ")}`);
  process.exit(1);
}
console.log("pack-check: every package packs, installs, imports, type-checks and bundles cleanly");
