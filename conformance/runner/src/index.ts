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
export { judgeCase, judgeAll, formatTable, runAdapter, sameJson } from "./run.js";
export type { CaseResult } from "./run.js";
export { buildWriteCase, fileSetExemption, judgeWriteAll, judgeWriteCase } from "./write.js";
