#!/usr/bin/env node
/**
 * `pnpm fuzz`: runs fuzz targets and prints inputs/s and outcomes by class; exits 1 on any
 * finding (untyped error, hang, over memory), 2 on bad usage.
 *
 * ```
 * pnpm fuzz [--target NAME[,NAME…]] [--inputs N] [--seconds S] [--seed X] [--out DIR] [--jobs J]
 *           [--timeout MS] [--memory MB] [--rss MB] [--corpus DIR] [--json FILE] [--list] [--replay DIR]
 * ```
 *
 * @example
 * ```sh
 * pnpm fuzz --target dtype,expression --inputs 100000 --seed 7
 * ```
 * @packageDocumentation
 */
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { fuzzTarget, type TargetReport } from "./fuzz-node.js";
import { SINGLE, type FuzzInput } from "./input.js";
import { isFinding } from "./outcome.js";
import { findTarget, TARGETS } from "./targets/index.js";
import { WatchedWorker } from "./watched-worker-node.js";

const repoRoot = fileURLToPath(new URL("../../..", import.meta.url));

function usage(message: string): never {
  console.error(`fuzz: ${message}\nusage: pnpm fuzz [--target NAME[,NAME…]] [--inputs N] [--seconds S] [--seed X] [--out DIR] [--jobs J] [--timeout MS] [--memory MB] [--rss MB] [--corpus DIR] [--json FILE] [--list] [--replay DIR]`);
  process.exit(2);
}

function number(text: string | undefined, name: string, fallback: number): number {
  if (text === undefined) return fallback;
  const n = Number(text);
  if (!Number.isFinite(n) || n < 0) usage(`--${name} must be a non-negative number`);
  return n;
}

function readFinding(dir: string): { target: string; input: FuzzInput } {
  const description = JSON.parse(readFileSync(join(dir, "finding.json"), "utf8")) as { target: string };
  const input: FuzzInput = new Map();
  if (existsSync(join(dir, "input.bin"))) input.set(SINGLE, new Uint8Array(readFileSync(join(dir, "input.bin"))));
  const walk = (path: string): void => {
    for (const name of readdirSync(path)) {
      const full = join(path, name);
      if (statSync(full).isDirectory()) walk(full);
      else input.set(relative(join(dir, "files"), full).split("\\").join("/"), new Uint8Array(readFileSync(full)));
    }
  };
  if (existsSync(join(dir, "files"))) walk(join(dir, "files"));
  return { target: description.target, input };
}

function row(cells: (string | number)[]): string {
  return `| ${cells.join(" | ")} |`;
}

function printReport(reports: TargetReport[]): void {
  console.log(row(["target", "inputs", "s", "inputs/s", "ok", "typed", "untyped", "hang", "memory", "top codes"]));
  console.log(row(Array<string>(10).fill("---")));
  for (const r of reports) {
    const top = Object.entries(r.typedByCode).sort((a, b) => b[1] - a[1]).slice(0, 3).map(([c, n]) => `${c} ${n}`).join(", ");
    console.log(row([r.target, r.inputs, r.seconds.toFixed(1), Math.round(r.inputsPerSecond), r.counts.ok, r.counts.typed, r.counts.untyped, r.counts.hang, r.counts.memory, top]));
  }
  for (const r of reports) {
    for (const f of r.findings) {
      console.log(`FINDING ${r.target} ${f.outcome.kind} (${f.occurrences}×) input ${f.index}: ${f.outcome.message ?? ""}\n  reproducer ${f.dir} (${f.originalBytes} → ${f.minimizedBytes} bytes${f.reproduced ? "" : ", did NOT reproduce alone"})`);
    }
  }
}

const { values } = parseArgs({
  options: {
    target: { type: "string", multiple: true },
    inputs: { type: "string" },
    seconds: { type: "string" },
    seed: { type: "string" },
    out: { type: "string" },
    jobs: { type: "string" },
    timeout: { type: "string" },
    memory: { type: "string" },
    rss: { type: "string" },
    corpus: { type: "string" },
    json: { type: "string" },
    list: { type: "boolean" },
    replay: { type: "string" },
  },
  strict: true,
}) as { values: { [k: string]: string | string[] | boolean | undefined } };

const corpusDir = (values.corpus as string | undefined) ?? join(repoRoot, "conformance", "corpus");
const limits = {
  ...(values.timeout !== undefined ? { timeoutMs: number(values.timeout as string, "timeout", 2000) } : {}),
  ...(values.memory !== undefined ? { memoryMb: number(values.memory as string, "memory", 512) } : {}),
  ...(values.rss !== undefined ? { rssMb: number(values.rss as string, "rss", 4096) } : {}),
};

if (values.list === true) {
  for (const t of TARGETS) console.log(`${t.name.padEnd(16)} ${t.description}`);
  process.exit(0);
}

if (typeof values.replay === "string") {
  const { target, input } = readFinding(values.replay);
  const spec = findTarget(target) ?? usage(`unknown target ${target} in finding.json`);
  const worker = new WatchedWorker(target, corpusDir, { timeoutMs: limits.timeoutMs ?? spec.timeoutMs ?? 2000, memoryMb: limits.memoryMb ?? 512, rssMb: limits.rssMb ?? 4096 });
  const outcome = await worker.replay(input);
  await worker.stop();
  console.log(JSON.stringify(outcome, null, 2));
  process.exit(isFinding(outcome) ? 1 : 0);
}

const names = ((values.target as string[] | undefined) ?? []).flatMap((t) => t.split(",")).filter((t) => t !== "");
for (const n of names) if (findTarget(n) === undefined) usage(`unknown target "${n}" (see --list)`);
const seconds = number(values.seconds as string | undefined, "seconds", 0);
const inputs = number(values.inputs as string | undefined, "inputs", seconds > 0 ? 0 : 10_000);
const seed = values.seed !== undefined ? number(values.seed as string, "seed", 1) : Date.now() % 2 ** 31;
const jobs = number(values.jobs as string | undefined, "jobs", 1);
const outDir = (values.out as string | undefined) ?? join(repoRoot, "tools", "fuzz", "findings");
const chosen = names.length > 0 ? names : TARGETS.map((t) => t.name);

console.log(`fuzz: seed ${seed}, ${inputs > 0 ? `${inputs} inputs` : "no input cap"}${seconds > 0 ? `, ${seconds} s` : ""} per target, ${jobs} job(s), ${chosen.length} target(s)`);
const reports: TargetReport[] = [];
for (const name of chosen) {
  const report = await fuzzTarget(name, { seed, inputs, seconds, jobs, corpusDir, outDir, limits });
  reports.push(report);
  const c = report.counts;
  console.log(`  ${name}: ${report.inputs} inputs in ${report.seconds.toFixed(1)} s, ${Math.round(report.inputsPerSecond)}/s; ok ${c.ok}, typed ${c.typed}, untyped ${c.untyped}, hang ${c.hang}, memory ${c.memory}`);
}
printReport(reports);
if (typeof values.json === "string") writeFileSync(values.json, `${JSON.stringify({ seed, inputs, seconds, jobs, date: new Date().toISOString(), reports }, null, 2)}\n`);
const findings = reports.reduce((n, r) => n + r.counts.untyped + r.counts.hang + r.counts.memory, 0);
console.log(findings === 0 ? "fuzz: 0 findings" : `fuzz: ${findings} finding(s), reproducers under ${outDir}`);
process.exit(findings === 0 ? 0 : 1);
