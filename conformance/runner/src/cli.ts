#!/usr/bin/env node
/**
 * `bcolz-conformance --adapter PATH [--corpus DIR] [--filter TEXT] [--jobs N] [--timeout MS] [--write]`
 *
 * With `--write`, runs the write check instead (spec/conformance.md §4) on every valid case.
 *
 * Prints one row per case and a closing "N passed, M failed" line; exits 1 if any case failed.
 */
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { loadCorpus } from "./manifest.js";
import { formatTable, judgeAll, runAdapter } from "./run.js";
import { judgeWriteAll } from "./write.js";

const { values } = parseArgs({
  options: {
    adapter: { type: "string" },
    corpus: { type: "string", default: "conformance/corpus" },
    filter: { type: "string" },
    jobs: { type: "string", default: "2" },
    timeout: { type: "string", default: "60000" },
    write: { type: "boolean", default: false },
  },
});
if (!values.adapter) {
  console.error("usage: bcolz-conformance --adapter PATH [--corpus DIR] [--filter TEXT] [--jobs N]");
  process.exit(2);
}
const adapter = resolve(values.adapter);
const info = await runAdapter(adapter, ["info"], 30_000);
if (info.code !== 0) {
  console.error(`adapter info failed (exit ${info.code}): ${info.stderr}`);
  process.exit(1);
}
const described = JSON.parse(info.stdout) as { name: string; version: string; formats: number[]; operations: string[] };
console.log(`adapter: ${described.name} ${described.version} — formats ${described.formats.join(",")}; operations ${described.operations.join(",")}`);
if (values.write) {
  if (!described.operations.includes("write")) {
    console.error("the adapter does not implement write");
    process.exit(1);
  }
  const results = await judgeWriteAll(adapter, resolve(values.corpus!), values.filter, Number(values.timeout));
  console.log(formatTable(results));
  process.exit(results.every((r) => r.status === "PASS") ? 0 : 1);
}
let cases = await loadCorpus(resolve(values.corpus!), 1);
if (values.filter) cases = cases.filter((c) => `${c.set}/${c.name}`.includes(values.filter!));
const results = await judgeAll(adapter, cases, Number(values.jobs), Number(values.timeout));
console.log(formatTable(results));
process.exit(results.every((r) => r.status === "PASS") ? 0 : 1);
