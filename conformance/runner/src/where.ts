/**
 * The `where` operation (spec/conformance.md §1.4): query cases listed in a set manifest's
 * `queries`, each an expression over a dataset of the corpus with the row numbers numexpr
 * selects, or the error code of an expression that must be refused.
 */
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readManifests } from "./manifest.js";
import { describeTreeChanges, listFiles, snapshotTree } from "./files.js";
import { crashDetail, errorLine, type CaseResult } from "./run.js";
import { callerOf, type AdapterLike } from "./adapter-process.js";

/** One query case of a set, normalised from the manifest's `queries`. */
export interface WhereCase {
  set: string;
  name: string;
  /** Dataset directory the expression runs over. */
  datasetDir: string;
  expression: string;
  /** The matching row numbers in increasing order (when the expression is accepted). */
  expectRows?: number[];
  /** The error code the adapter must report (when the expression must be refused). */
  expectError?: string;
}

type Json = Record<string, unknown>;

/**
 * Load the query cases of every set under `corpusRoot/v<version>/` whose manifest has `queries`.
 *
 * @example
 * ```ts
 * const queries = await loadWhereCases("conformance/corpus", 1);
 * ```
 */
export async function loadWhereCases(corpusRoot: string, version = 1): Promise<WhereCase[]> {
  const out: WhereCase[] = [];
  for (const { set, dir, manifest } of await readManifests(corpusRoot, version)) {
    for (const raw of (manifest.queries ?? []) as Json[]) {
      const expect = (raw.expect ?? {}) as Json;
      const c: WhereCase = {
        set,
        name: raw.name as string,
        datasetDir: join(dir, raw.dataset as string),
        expression: raw.expression as string,
      };
      if (typeof expect.error === "string") c.expectError = expect.error;
      else c.expectRows = expect.rows as number[];
      out.push(c);
    }
  }
  return out;
}

/** The category a query case is reported under: a refused expression is a usage error. */
function categoryOf(c: WhereCase): CaseResult["category"] {
  return c.expectError === undefined ? "valid" : "invalid";
}

/**
 * Run `adapter where DATASET_DIR EXPRESSION OUT_DIR` for one query case and judge it: the rows in
 * `OUT_DIR/rows.json` must equal the expected list exactly, or the adapter must exit 3 with the
 * expected code.
 *
 * @example
 * ```ts
 * const result = await judgeWhereCase("conformance/adapters/reference/adapter", queries[0]);
 * ```
 */
export async function judgeWhereCase(adapter: AdapterLike, c: WhereCase, timeoutMs = 60_000): Promise<CaseResult> {
  const started = Date.now();
  const out = await mkdtemp(join(tmpdir(), "bcolz-where-"));
  const base = { set: c.set, name: c.name, category: categoryOf(c), operation: "where" as const };
  const done = (status: CaseResult["status"], detail: string): CaseResult => ({ ...base, status, detail: detail.slice(0, 400), ms: Date.now() - started });
  try {
    const before = await snapshotTree(c.datasetDir);
    const exec = await callerOf(adapter).call(["where", c.datasetDir, c.expression, out], timeoutMs);
    if (exec.timedOut) return done("CRASH", `timed out after ${timeoutMs} ms (hang)`);
    if (exec.code !== 0 && exec.code !== 3) return done("CRASH", crashDetail(exec));
    const touched = describeTreeChanges(before, await snapshotTree(c.datasetDir));
    if (touched !== undefined) return done("FAIL", `wrote into the dataset directory it was asked to query: ${touched}`);
    if (exec.code === 3) {
      const reported = errorLine(exec);
      if (reported === undefined) return done("FAIL", `exit 3 without a JSON error line: ${exec.stdout.slice(0, 200)}`);
      if (c.expectError === undefined) return done("FAIL", `refused an expression numexpr accepts: ${reported.code}: ${reported.message}`);
      if (reported.code !== c.expectError) return done("FAIL", `error code ${reported.code}, expected ${c.expectError}`);
      return done("PASS", `refused with ${reported.code}`);
    }
    if (c.expectError !== undefined) return done("FAIL", `accepted an expression that must be refused with ${c.expectError}`);
    const extra = (await listFiles(out)).filter((f) => f !== "rows.json");
    if (extra.length > 0) return done("FAIL", `output files the protocol does not define: ${extra.slice(0, 5).join(", ")}`);
    let rows: unknown;
    try {
      rows = JSON.parse(await readFile(join(out, "rows.json"), "utf8"));
    } catch (err) {
      return done("FAIL", `rows.json missing or not JSON: ${String(err)}`);
    }
    if (!Array.isArray(rows) || !rows.every((r) => Number.isSafeInteger(r))) return done("FAIL", `rows.json is not a list of integers: ${JSON.stringify(rows).slice(0, 200)}`);
    return sameRows(rows as number[], c.expectRows ?? []);
  } catch (err) {
    return done("FAIL", `could not judge: ${String(err)}`);
  } finally {
    await rm(out, { recursive: true, force: true });
  }

  function sameRows(got: number[], want: number[]): CaseResult {
    if (got.length === want.length && got.every((r, i) => r === want[i])) return done("PASS", `${want.length} row(s) match`);
    const missing = want.filter((r) => !got.includes(r));
    const unexpected = got.filter((r) => !want.includes(r));
    const why = missing.length === 0 && unexpected.length === 0 ? "same rows, wrong order or repeated" : `missing ${JSON.stringify(missing.slice(0, 10))}, unexpected ${JSON.stringify(unexpected.slice(0, 10))}`;
    return done("FAIL", `rows ${JSON.stringify(got.slice(0, 20))}, expected ${JSON.stringify(want.slice(0, 20))} (${why})`);
  }
}
