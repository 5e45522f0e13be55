#!/usr/bin/env node
// Package lint, run from a package directory: the promises a package makes, checked like code.
// - core sources are browser-safe: no `node:` imports, no Buffer/process globals
//   (files named node.ts or *-node.ts, bin/adapter entry points and tests are exempt);
// - every relative import ends in ".js" (NodeNext ESM);
// - package.json has ESM type, an exports map with types, and sideEffects false for libraries.
import { readFileSync, readdirSync, statSync } from "node:fs";
import { join, relative } from "node:path";

const pkg = JSON.parse(readFileSync("package.json", "utf8"));
const problems = [];
const nodeAllowed = pkg.name === "@fmt/cli" || pkg.name === "@fmt/duckdb" || pkg.name === "@fmt/conformance" || pkg.name === "@fmt/bench" || pkg.name === "@fmt/fuzz";
const exempt = (file) => /(^|\/)(node|[\w-]+-node)\.ts$/.test(file) || /\.test\.ts$/.test(file) || /(^|\/)test\//.test(file);

function walk(dir) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) walk(path);
    else if (path.endsWith(".ts")) check(path);
  }
}
function check(path) {
  const text = readFileSync(path, "utf8");
  const file = relative(".", path);
  for (const m of text.matchAll(/(?:import|export)\s[^;]*?from\s+["']([^"']+)["']/g)) {
    const spec = m[1];
    if (spec.startsWith(".") && !spec.endsWith(".js") && !spec.endsWith(".json")) problems.push(`${file}: relative import "${spec}" must end in .js`);
    if (!nodeAllowed && !exempt(file) && spec.startsWith("node:")) problems.push(`${file}: imports ${spec} in browser-safe code`);
  }
  if (!nodeAllowed && !exempt(file) && /\b(Buffer|process)\./.test(text.replace(/\/\/.*$/gm, "").replace(/\/\*[\s\S]*?\*\//g, "")))
    problems.push(`${file}: uses a Node global (Buffer/process) in browser-safe code`);
}
walk("src");
if (pkg.type !== "module") problems.push("package.json: type must be module");
if (!pkg.exports || !pkg.exports["."]) problems.push("package.json: exports['.'] missing");
for (const [sub, entry] of Object.entries(pkg.exports ?? {})) {
  if (typeof entry !== "object" || !entry.types) problems.push(`package.json: exports['${sub}'] lacks types`);
}
if (!nodeAllowed && pkg.sideEffects !== false) problems.push("package.json: sideEffects must be false");
if (problems.length) {
  console.error(problems.join("\n"));
  process.exit(1);
}
console.log(`${pkg.name}: lint ok`);
