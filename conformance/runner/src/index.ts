/**
 * The conformance runner: checks any implementation of the bcolz format through the adapter
 * protocol of `spec/conformance.md`.
 *
 * @example
 * ```ts
 * import { loadCorpus, judgeAll, formatTable } from "@fmt/conformance";
 * const results = await judgeAll("path/to/adapter", await loadCorpus("conformance/corpus"));
 * console.log(formatTable(results));
 * ```
 * @packageDocumentation
 */
export { loadCorpus } from "./manifest.js";
export type { CorpusCase, ColumnExpectation } from "./manifest.js";
export { judgeCase, judgeAll, runAdapter, runPool, crashDetail, errorLine, sameJson } from "./run.js";
export type { AdapterExec } from "./run.js";
export { adapterCaller, callerOf } from "./adapter-process.js";
export type { AdapterCaller, AdapterCallerOptions, AdapterLike } from "./adapter-process.js";
export { formatTable, formatJson, formatJunit, totalsLine, countResults, REPORTERS } from "./report.js";
export type { AdapterInfo, ReporterName, Totals } from "./report.js";
export { globMatcher, parseKnownFailures, applyKnownFailures } from "./select.js";
export type { KnownFailure } from "./select.js";
export { runSuite, readAdapterInfo, AdapterInfoError } from "./suite.js";
export type { SuiteOptions, SuiteReport } from "./suite.js";
export { parseCommandLine, defaultCorpusDir, runnerVersion, HELP, PROGRAM } from "./args.js";
export type { ParsedCommand, RunnerOptions } from "./args.js";
export { listFiles, snapshotTree, describeTreeChanges } from "./files.js";
export type { CaseResult } from "./run.js";
export { buildWriteCase, fileSetExemption, judgeWriteAll, judgeWriteCase, loadWriteCases, strayFiles, WRITE_FORMATS } from "./write.js";
export { columnDir, isVlarray } from "./write-case.js";
export { compareDatasetV2, strayFilesV2, superchunkDifference } from "./write-v2.js";
export type { ColumnLayout } from "./write-v2.js";
export type { WriteCase } from "./write.js";
export { judgeWhereCase, loadWhereCases } from "./where.js";
export type { WhereCase } from "./where.js";
