#!/usr/bin/env node
// Where one store operation spends its time: runs tools/bench/profile.mjs OP under `node
// --cpu-prof` and prints the self time of the profile by kind (WebAssembly kernels, file system
// calls, memory copies, garbage collection, our JavaScript, other) and its top functions. The
// tables of tools/bench/README.md "Where the remaining time goes" come from it.
//
//   node tools/bench/profile-summary.mjs OP [RUNS] [--v2] [--fsync] [--top N]
//
// The profile covers the whole process (start-up and dataset opening included; they are small
// against RUNS repetitions); the percentages are of the sampled time outside idle.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const HERE = dirname(fileURLToPath(import.meta.url));
const argv = process.argv.slice(2);
const topIndex = argv.indexOf("--top");
const top = topIndex >= 0 ? Number(argv[topIndex + 1]) : 12;
const passOn = argv.filter((_, i) => topIndex < 0 || (i !== topIndex && i !== topIndex + 1));
const dir = mkdtempSync(join(tmpdir(), "bcolz-prof-"));
const run = spawnSync(process.execPath, [...(passOn.includes("--gc") ? ["--expose-gc"] : []), "--cpu-prof", "--cpu-prof-dir", dir, "--cpu-prof-interval", "100", join(HERE, "profile.mjs"), ...passOn], {
  encoding: "utf8",
  env: { ...process.env, GLIBC_TUNABLES: process.env.GLIBC_TUNABLES ?? "glibc.malloc.hugetlb=1" },
});
if (run.status !== 0) {
  process.stderr.write(run.stderr);
  process.exit(run.status ?? 1);
}
process.stdout.write(run.stdout);
const file = readdirSync(dir).find((f) => f.endsWith(".cpuprofile"));
if (file === undefined) throw new Error("node wrote no .cpuprofile");
const profile = JSON.parse(readFileSync(join(dir, file), "utf8"));
rmSync(dir, { recursive: true, force: true });

// Self time per node: the samples' time deltas attributed to the sampled node.
const selfMicros = new Map();
for (let i = 0; i < profile.samples.length; i++) selfMicros.set(profile.samples[i], (selfMicros.get(profile.samples[i]) ?? 0) + (profile.timeDeltas[i] ?? 0));

/** The kind of a profile node, from its function name and script. */
function kindOf(frame) {
  const name = frame.functionName;
  const url = frame.url ?? "";
  if (name === "(idle)") return "idle";
  if (name === "(garbage collector)") return "garbage collection";
  if (name === "(program)") return "V8 and native code outside JS (program)";
  if (url.startsWith("wasm://") || /^\$?[\w.]*wasm-function/.test(name) || /^\$/.test(name)) return "WebAssembly kernels";
  if (/^(readSync|read|openSync|open|closeSync|close|fstatSync|fstat|writeSync|write|renameSync|rename|fsyncSync|fsync|mkdirSync|mkdir|rmSync|unlinkSync|statSync|lstatSync|readdirSync)$/.test(name) && (url.startsWith("node:") || url === "")) return "file system calls";
  if (name === "set" || name === "slice" || name === "subarray" || name === "copyWithin" || name === "fill") return "typed-array copies (set, slice)";
  if (url.startsWith("node:") || url.startsWith("internal") || url === "") return "Node internals";
  return "our JavaScript";
}

const byKind = new Map();
const byFunction = new Map();
let total = 0;
for (const node of profile.nodes) {
  const micros = selfMicros.get(node.id) ?? 0;
  if (micros === 0) continue;
  const kind = kindOf(node.callFrame);
  if (kind === "idle") continue;
  total += micros;
  byKind.set(kind, (byKind.get(kind) ?? 0) + micros);
  const where = node.callFrame.url ? `${basename(node.callFrame.url)}:${node.callFrame.lineNumber + 1}` : "";
  const key = `${node.callFrame.functionName || "(anonymous)"} ${where}`.trim();
  byFunction.set(key, (byFunction.get(key) ?? 0) + micros);
}
const pct = (micros) => `${((100 * micros) / total).toFixed(1).padStart(5)} %`;
console.log(`\nself time by kind (${(total / 1000).toFixed(0)} ms sampled, idle excluded):`);
for (const [kind, micros] of [...byKind].sort((a, b) => b[1] - a[1])) console.log(`  ${pct(micros)}  ${kind}`);
console.log(`top ${top} functions by self time:`);
for (const [key, micros] of [...byFunction].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`  ${pct(micros)}  ${key}`);
