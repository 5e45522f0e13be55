/**
 * One conformance run: ask the adapter what it implements, choose the cases, judge them in
 * parallel, and apply the known-failures list.
 */
import { readdir } from "node:fs/promises";

import { loadCorpus } from "./manifest.js";
import type { AdapterInfo } from "./report.js";
import { adapterCaller, type AdapterCaller } from "./adapter-process.js";
import { judgeAll, runAdapter, runPool, type CaseResult } from "./run.js";
import { applyKnownFailures, globMatcher, type KnownFailure } from "./select.js";
import { judgeWhereCase, loadWhereCases } from "./where.js";
import { judgeWriteCase, loadWriteCases, WRITE_FORMATS } from "./write.js";

/** The choices of one run (the checked form of the command line). */
export interface SuiteOptions {
  adapter: string;
  corpus: string;
  /** Format versions to run; `undefined` = every `v<N>/` directory of the corpus. */
  formats?: number[] | undefined;
  /** `set/case` globs (see {@link globMatcher}); a case runs when it matches any; all run when empty. */
  filters?: string[];
  jobs?: number;
  timeoutMs?: number;
  only?: "read" | "write" | "where" | undefined;
  knownFailures?: KnownFailure[];
  /**
   * One adapter process per call even when the adapter offers `serve` (spec/conformance.md §1.5);
   * by default a `serve` adapter answers through `jobs` long-lived processes.
   */
  isolated?: boolean;
}

/** The outcome of a run. */
export interface SuiteReport {
  info: AdapterInfo;
  /** Read cases (by format, set, manifest order), then write cases, then query cases (likewise). */
  results: CaseResult[];
  /** Known-failures entries that matched no case that ran. */
  unmatchedKnown: KnownFailure[];
}

/** `adapter info` failed or did not answer as spec/conformance.md §1.1 says. */
export class AdapterInfoError extends Error {}

/**
 * Run `adapter info` and check its answer.
 *
 * @example
 * ```ts
 * const info = await readAdapterInfo("conformance/adapters/reference/adapter");
 * info.operations.includes("write");
 * ```
 */
export async function readAdapterInfo(adapter: string, timeoutMs = 30_000): Promise<AdapterInfo> {
  const exec = await runAdapter(adapter, ["info"], timeoutMs);
  if (exec.timedOut) throw new AdapterInfoError(`adapter info did not finish within ${timeoutMs} ms`);
  if (exec.code !== 0) throw new AdapterInfoError(`adapter info failed (exit ${exec.code ?? exec.signal}): ${exec.stderr.trim().slice(0, 300)}`);
  let parsed: Partial<AdapterInfo>;
  try {
    parsed = JSON.parse(exec.stdout) as Partial<AdapterInfo>;
  } catch {
    throw new AdapterInfoError(`adapter info did not print one JSON object: ${JSON.stringify(exec.stdout.slice(0, 200))}`);
  }
  const ok =
    typeof parsed.name === "string" &&
    typeof parsed.version === "string" &&
    Array.isArray(parsed.formats) &&
    parsed.formats.every((f) => Number.isInteger(f)) &&
    Array.isArray(parsed.operations) &&
    parsed.operations.every((o) => typeof o === "string");
  if (!ok) throw new AdapterInfoError(`adapter info lacks name, version, formats (integers) or operations (strings): ${exec.stdout.trim().slice(0, 200)}`);
  return parsed as AdapterInfo;
}

/** Format versions the corpus holds (its `v<N>/` directories), ascending. */
async function corpusFormats(corpus: string): Promise<number[]> {
  const names = await readdir(corpus).catch(() => [] as string[]);
  return names
    .map((n) => /^v(\d+)$/.exec(n))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => Number(m[1]))
    .sort((a, b) => a - b);
}

/**
 * Run the suite: the read cases of every chosen format, then the write check of every chosen
 * format that has one (1 and 2).
 * Cases the adapter cannot take part in (a format or operation its `info` does not list) are
 * reported as SKIP with the reason.
 *
 * @example
 * ```ts
 * const { results } = await runSuite({ adapter: "./adapter", corpus: "conformance/corpus", jobs: 2 });
 * console.log(totalsLine(results));
 * ```
 */
export async function runSuite(options: SuiteOptions): Promise<SuiteReport> {
  const info = await readAdapterInfo(options.adapter);
  const jobs = options.jobs ?? 2;
  const caller = adapterCaller(options.adapter, { serve: info.operations.includes("serve") && options.isolated !== true, processes: jobs });
  try {
    return await runCases(options, info, caller, jobs);
  } finally {
    await caller.close();
  }
}

async function runCases(options: SuiteOptions, info: AdapterInfo, caller: AdapterCaller, jobs: number): Promise<SuiteReport> {
  const timeoutMs = options.timeoutMs ?? 60_000;
  const matchers = (options.filters ?? []).map(globMatcher);
  const selected = (id: string): boolean => matchers.length === 0 || matchers.some((m) => m(id));
  const formats = options.formats ?? (await corpusFormats(options.corpus));
  const results: CaseResult[] = [];
  const skip = (set: string, name: string, category: CaseResult["category"], operation: "read" | "write" | "where", why: string): CaseResult => ({
    set,
    name,
    category,
    operation,
    status: "SKIP",
    detail: why,
    ms: 0,
  });
  if (options.only === undefined || options.only === "read") {
    for (const format of formats) {
      const cases = (await loadCorpus(options.corpus, format)).filter((c) => selected(`${c.set}/${c.name}`));
      if (!info.formats.includes(format) || !info.operations.includes("read")) {
        const why = info.formats.includes(format) ? "adapter info does not list the read operation" : `adapter info does not list format ${format}`;
        results.push(...cases.map((c) => skip(c.set, c.name, c.category, "read", why)));
        continue;
      }
      results.push(...(await judgeAll(caller, cases, jobs, timeoutMs)));
    }
  }
  // The write check exists for formats 1 and 2 (spec/conformance.md §1.3, §4.1).
  if (options.only === undefined || options.only === "write") {
    for (const format of formats.filter((f) => WRITE_FORMATS.includes(f))) {
      const cases = (await loadWriteCases(options.corpus, format)).filter((c) => selected(`${c.set}/${c.raw.name as string}`));
      const why = !info.formats.includes(format)
        ? `adapter info does not list format ${format}`
        : !info.operations.includes("write")
          ? "adapter info does not list the write operation"
          : undefined;
      if (why !== undefined) {
        results.push(...cases.map((c) => skip(c.set, c.raw.name as string, "valid", "write", why)));
      } else {
        results.push(...(await runPool(cases, jobs, (c) => judgeWriteCase(caller, c.raw, c.setDir, c.set, timeoutMs, c.format))));
      }
    }
  }
  // Query cases (spec/conformance.md §1.4): run when info lists the format and "where".
  if (options.only === undefined || options.only === "where") {
    for (const format of formats) {
      const cases = (await loadWhereCases(options.corpus, format)).filter((c) => selected(`${c.set}/${c.name}`));
      const why = !info.formats.includes(format)
        ? `adapter info does not list format ${format}`
        : !info.operations.includes("where")
          ? "adapter info does not list the where operation"
          : undefined;
      if (why !== undefined) results.push(...cases.map((c) => skip(c.set, c.name, c.expectError === undefined ? "valid" : "invalid", "where", why)));
      else results.push(...(await runPool(cases, jobs, (c) => judgeWhereCase(caller, c, timeoutMs))));
    }
  }
  const known = applyKnownFailures(results, options.knownFailures ?? []);
  return { info, results: known.results, unmatchedKnown: known.unmatched };
}


