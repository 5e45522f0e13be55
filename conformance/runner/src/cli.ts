#!/usr/bin/env node
/**
 * `bcolz-conformance --adapter PATH [--corpus DIR] [--filter TEXT] [--jobs N] [--timeout MS] [--only read|write]`
 *
 * Runs the read cases and, when the adapter lists "write" among its operations, the write check
 * (spec/conformance.md) on every valid case; `--only` restricts the run to one of them.
 *
 * Prints one table per operation and a closing "N passed, M failed" line; exits 1 if any case failed.
 */
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { loadCorpus } from "./manifest.js";
import { formatTable, judgeAll, runAdapter, type CaseResult } from "./run.js";
import { judgeWriteAll } from "./write.js";

const { values } = parseArgs({
  options: {
    adapter: { type: "string" },
    corpus: { type: "string", default: "conformance/corpus" },
    filter: { type: "string" },
    jobs: { type: "string", default: "2" },
    timeout: { type: "string", default: "60000" },
    only: { type: "string" },
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
const wanted = values.only === undefined ? ["read", "write"] : [values.only];
const all: CaseResult[] = [];
if (wanted.includes("read")) {
  let cases = await loadCorpus(resolve(values.corpus!), 1);
  if (values.filter) cases = cases.filter((c) => `${c.set}/${c.name}`.includes(values.filter!));
  const results = await judgeAll(adapter, cases, Number(values.jobs), Number(values.timeout));
  console.log(`\n## read\n\n${formatTable(results)}`);
  all.push(...results);
}
if (wanted.includes("write")) {
  if (described.operations.includes("write")) {
    const results = await judgeWriteAll(adapter, resolve(values.corpus!), values.filter, Number(values.timeout));
    console.log(`\n## write\n\n${formatTable(results)}`);
    all.push(...results);
  } else if (values.only === "write") {
    console.error("the adapter does not implement write");
    process.exit(1);
  } else {
    console.log("\n## write\n\nnot run: the adapter does not list the write operation");
  }
}
const passed = all.filter((r) => r.status === "PASS").length;
console.log(`\nall operations: ${passed} passed, ${all.length - passed} failed`);
process.exit(passed === all.length ? 0 : 1);
