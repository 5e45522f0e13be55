/**
 * The reporters (spec/conformance.md §4): a Markdown table for people, JSON for programs, JUnit
 * XML for CI systems, and the totals line every run ends with.
 */
import type { CaseResult } from "./run.js";

/** The reporter names `--reporter` accepts. */
export const REPORTERS = ["table", "json", "junit"] as const;

/** One of {@link REPORTERS}. */
export type ReporterName = (typeof REPORTERS)[number];

/** What an adapter says about itself in `adapter info` (spec/conformance.md §1.1). */
export interface AdapterInfo {
  name: string;
  version: string;
  formats: number[];
  operations: string[];
}

/** Counts of a run; `failed` counts FAIL and CRASH (KNOWN and SKIP are counted apart). */
export interface Totals {
  passed: number;
  failed: number;
  crashed: number;
  known: number;
  skipped: number;
}

/**
 * Count the results by status.
 *
 * @example
 * ```ts
 * countResults(results).failed === 0; // the run passes
 * ```
 */
export function countResults(results: readonly CaseResult[]): Totals {
  const count = (...statuses: CaseResult["status"][]): number => results.filter((r) => statuses.includes(r.status)).length;
  return { passed: count("PASS"), failed: count("FAIL", "CRASH"), crashed: count("CRASH"), known: count("KNOWN"), skipped: count("SKIP") };
}

/**
 * The closing line of every run: `N passed, M failed`, then `, K skipped` when cases were skipped.
 *
 * @example
 * ```ts
 * totalsLine(results); // "110 passed, 2 failed, 1 skipped"
 * ```
 */
export function totalsLine(results: readonly CaseResult[]): string {
  const t = countResults(results);
  return `${t.passed} passed, ${t.failed} failed${t.skipped > 0 ? `, ${t.skipped} skipped` : ""}`;
}

/** `set/case`, the name a case goes by in reports, filters and known-failures files. */
function caseId(r: CaseResult): string {
  return `${r.set}/${r.name}`;
}

/**
 * Render results as a Markdown table, one row per case in the given order, followed by a blank
 * line and the table's own {@link totalsLine}.
 *
 * @example
 * ```ts
 * console.log(formatTable(results));
 * ```
 */
export function formatTable(results: readonly CaseResult[]): string {
  const rows = results.map((r) => [caseId(r), r.category, r.status, `${r.ms}`, r.detail]);
  const header = ["case", "category", "result", "ms", "detail"];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => Math.min(r[i]!.length, i === 4 ? 60 : 80))));
  const line = (cells: string[]): string => `| ${cells.map((c, i) => (i === 4 ? c.replace(/\|/g, "\\|") : c.padEnd(widths[i]!))).join(" | ")} |`;
  const out = [line(header), `|${widths.map((w) => "-".repeat(w + 2)).join("|")}|`, ...rows.map(line)];
  out.push("", totalsLine(results));
  return out.join("\n");
}

/**
 * The JSON report: one object with the adapter's info, the totals and one entry per case.
 *
 * @example
 * ```ts
 * const report = JSON.parse(formatJson(info, results));
 * report.results[0]; // { id: "bcolz-real/trim_f4", operation: "read", status: "PASS", … }
 * ```
 */
export function formatJson(info: AdapterInfo, results: readonly CaseResult[]): string {
  const entries = results.map((r) => ({
    id: caseId(r),
    set: r.set,
    case: r.name,
    operation: r.operation ?? "read",
    category: r.category,
    status: r.status,
    detail: r.detail,
    ms: r.ms,
  }));
  return JSON.stringify({ adapter: info, totals: countResults(results), results: entries }, null, 2);
}

function xml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&${{ "&": "amp", "<": "lt", ">": "gt", '"': "quot", "'": "apos" }[c]!};`);
}

/**
 * The JUnit XML report: one `<testsuite>` per operation, one `<testcase>` per case; FAIL is a
 * `<failure>`, CRASH an `<error>`, SKIP and KNOWN are `<skipped>` (with the reason).
 *
 * @example
 * ```ts
 * await writeFile("conformance.xml", formatJunit(info, results));
 * ```
 */
export function formatJunit(info: AdapterInfo, results: readonly CaseResult[]): string {
  const suites: string[] = [];
  for (const operation of ["read", "write", "where"] as const) {
    const mine = results.filter((r) => (r.operation ?? "read") === operation);
    if (mine.length === 0) continue;
    const t = countResults(mine);
    const seconds = (ms: number): string => (ms / 1000).toFixed(3);
    const cases = mine.map((r) => {
      const open = `    <testcase classname="${xml(`${operation}.${r.set}`)}" name="${xml(r.name)}" time="${seconds(r.ms)}"`;
      const message = xml(r.detail);
      if (r.status === "PASS") return `${open}/>`;
      const body =
        r.status === "FAIL"
          ? `<failure message="${message}" type="FAIL">${message}</failure>`
          : r.status === "CRASH"
            ? `<error message="${message}" type="CRASH">${message}</error>`
            : `<skipped message="${r.status === "KNOWN" ? "known failure: " : ""}${message}"/>`;
      return `${open}>\n      ${body}\n    </testcase>`;
    });
    const total = seconds(mine.reduce((sum, r) => sum + r.ms, 0));
    suites.push(
      `  <testsuite name="${operation}" tests="${mine.length}" failures="${t.failed - t.crashed}" errors="${t.crashed}" skipped="${t.skipped + t.known}" time="${total}">\n${cases.join("\n")}\n  </testsuite>`,
    );
  }
  const t = countResults(results);
  const name = xml(`bcolz conformance: ${info.name} ${info.version}`);
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="${name}" tests="${results.length}" failures="${t.failed - t.crashed}" errors="${t.crashed}" skipped="${t.skipped + t.known}">\n${suites.join("\n")}\n</testsuites>`;
}
