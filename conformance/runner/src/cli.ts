#!/usr/bin/env node
/**
 * `fmt-conformance --adapter CMD [options]` (see `--help` and spec/conformance.md §4).
 *
 * Exit status 0 when every case passed, 1 when a case failed or `adapter info` failed, 2 on bad
 * arguments. The last line printed is always the totals line.
 */
import { writeFileSync } from "node:fs";
import { HELP, PROGRAM, parseCommandLine, runnerVersion } from "./args.js";
import { formatJson, formatJunit, formatTable, totalsLine, countResults } from "./report.js";
import type { CaseResult } from "./run.js";
import { AdapterInfoError, runSuite } from "./suite.js";

const parsed = parseCommandLine(process.argv.slice(2));
if (parsed.kind === "help") {
  process.stdout.write(HELP);
  process.exit(0);
}
if (parsed.kind === "version") {
  console.log(runnerVersion());
  process.exit(0);
}
if (parsed.kind === "error") {
  console.error(`${PROGRAM}: ${parsed.message}\nRun "${PROGRAM} --help" for usage.`);
  process.exit(2);
}
const options = parsed.options;
let report;
try {
  report = await runSuite(options);
} catch (err) {
  // An adapter that cannot describe itself, or a corpus that cannot be read: one line, not a trace.
  const what = err instanceof AdapterInfoError ? "" : "cannot run the suite: ";
  console.error(`${PROGRAM}: ${what}${(err as Error).message}`);
  process.exit(1);
}
const { info, results, unmatchedKnown } = report;

// With json or junit on standard output, the document stays alone there (so it can be piped to
// a parser) and the human lines go to standard error.
const documentOnStdout = options.reporter !== "table" && options.output === undefined;
const say = (line: string): void => {
  if (documentOnStdout) console.error(line);
  else console.log(line);
};

function tableReport(): string {
  const sections: string[] = [];
  for (const operation of ["read", "write", "where"] as const) {
    const mine = results.filter((r: CaseResult) => (r.operation ?? "read") === operation);
    if (mine.length > 0) sections.push(`## ${operation}\n\n${formatTable(mine)}`);
  }
  return sections.join("\n\n");
}

const document = options.reporter === "json" ? formatJson(info, results) : options.reporter === "junit" ? formatJunit(info, results) : tableReport();
say(`adapter: ${info.name} ${info.version} (formats ${info.formats.join(",")}; operations ${info.operations.join(",")})`);
say(`corpus: ${options.corpus}`);
say(info.operations.includes("serve") && !options.isolated ? `calls: answered by ${options.jobs} adapter serve process(es) (spec/conformance.md §1.5; --isolated for one process per call)` : "calls: one adapter process per call");
if (options.output !== undefined) {
  writeFileSync(options.output, `${document}\n`);
  say(`report (${options.reporter}) written to ${options.output}`);
} else if (documentOnStdout) {
  console.log(document);
} else {
  console.log(`\n${document}\n`);
}
for (const entry of unmatchedKnown)
  console.error(`warning: ${options.knownFailuresFile}: ${entry.operation} ${entry.id} matched no case that ran (filtered out, skipped or not in the corpus)`);
const totals = countResults(results);
// An empty run is most likely a mistyped filter; passing it would let CI go green on nothing.
if (results.length === 0) say(`no case matched ${options.filters.length > 0 ? `the filters ${options.filters.join(", ")}` : "the chosen formats and operations"}: nothing was checked`);
if (totals.known > 0) say(`${totals.known} known failure(s) listed in ${options.knownFailuresFile}, not counted as failed`);
if (totals.crashed > 0) say(`${totals.crashed} of the failures are crashes (exit status, signal or timeout)`);
say(totalsLine(results));
process.exit(totals.failed === 0 && results.length > 0 ? 0 : 1);
