/**
 * Running an adapter over corpus cases and judging each result.
 */
import { createHash } from "node:crypto";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { CorpusCase } from "./manifest.js";
import { describeTreeChanges, listFiles, snapshotTree } from "./files.js";
import { callerOf, type AdapterExec, type AdapterLike } from "./adapter-process.js";

export { runAdapter, type AdapterExec } from "./adapter-process.js";

/** The verdict on one case. */
export interface CaseResult {
  set: string;
  name: string;
  category: CorpusCase["category"];
  /** Which protocol call the case exercises; read when absent. */
  operation?: "read" | "write" | "where";
  /**
   * PASS; FAIL (wrong answer); CRASH (other exit status, signal or timeout); SKIP (not run: the
   * adapter lacks the capability, the detail says which); KNOWN (failed, and listed in the
   * known-failures file, so it does not fail the run).
   */
  status: "PASS" | "FAIL" | "CRASH" | "SKIP" | "KNOWN";
  detail: string;
  ms: number;
}

/**
 * The crash line of a report: the exit status or signal and the line of the adapter's output that
 * names the error (a stack trace's first lines are usually a source location, not the reason).
 *
 * @example
 * ```ts
 * crashDetail({ code: 1, signal: null, stdout: "", stderr: "file.js:3\nTypeError: x is undefined\n    at f", timedOut: false });
 * // "exit 1: TypeError: x is undefined"
 * ```
 */
export function crashDetail(exec: AdapterExec, call = ""): string {
  const lines = `${exec.stderr}\n${exec.stdout}`.split("\n").map((l) => l.trim()).filter((l) => l !== "");
  const reason = lines.find((l) => /(^\w*(Error|Exception)\b)|Traceback|panic|error:/i.test(l)) ?? lines[0] ?? "no output";
  const status = exec.code !== null ? `exit ${exec.code}` : `killed by ${exec.signal ?? "an unknown cause"}`;
  return `${call}${status}: ${reason}`.slice(0, 300);
}

/**
 * The error line of a call that exited 3 (spec/conformance.md §1.2): the last line of its standard
 * output as JSON, or `undefined` when that line is not JSON.
 *
 * @example
 * ```ts
 * errorLine({ code: 3, signal: null, stdout: '{"code": "BAD_MAGIC", "message": "…"}\n', stderr: "", timedOut: false })?.code; // "BAD_MAGIC"
 * ```
 */
export function errorLine(exec: AdapterExec): { code?: string; message?: string } | undefined {
  try {
    return JSON.parse(exec.stdout.trim().split("\n").pop() ?? "{}") as { code?: string; message?: string };
  } catch {
    return undefined;
  }
}

function sha256(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}

/** Structural equality that treats numbers and their JSON spellings alike. */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a === "number" && typeof b === "number") return Number.isNaN(a) && Number.isNaN(b);
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => sameJson(x, b[i]));
  if (a && b && typeof a === "object" && typeof b === "object" && !Array.isArray(a) && !Array.isArray(b)) {
    const ka = Object.keys(a).sort();
    const kb = Object.keys(b).sort();
    return sameJson(ka, kb) && ka.every((k) => sameJson((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
  }
  return false;
}

function cparamsOf(value: unknown): unknown {
  if (value === null || typeof value !== "object") return value;
  const c = value as Record<string, unknown>;
  return { clevel: c.clevel, shuffle: c.shuffle, cname: c.cname };
}

/** Compare one metadata field, returning a message when it differs. */
function field(name: string, got: unknown, want: unknown): string | undefined {
  return sameJson(got, want) ? undefined : `${name}: got ${JSON.stringify(got)}, expected ${JSON.stringify(want)}`;
}

/**
 * Run `adapter read` on one case and judge it.
 *
 * @example
 * ```ts
 * const result = await judgeCase("conformance/adapters/reference/adapter", cases[0]);
 * ```
 */
export async function judgeCase(adapter: AdapterLike, c: CorpusCase, timeoutMs = 60_000): Promise<CaseResult> {
  const started = Date.now();
  const out = await mkdtemp(join(tmpdir(), "bcolz-conf-"));
  const base = { set: c.set, name: c.name, category: c.category, operation: "read" as const };
  const done = (status: CaseResult["status"], detail: string): CaseResult => ({ ...base, status, detail, ms: Date.now() - started });
  try {
    const before = await snapshotTree(c.datasetDir);
    const exec = await callerOf(adapter).call(["read", c.datasetDir, out], timeoutMs);
    if (exec.timedOut) return done("CRASH", `timed out after ${timeoutMs} ms (hang)`);
    if (exec.code !== 0 && exec.code !== 3) return done("CRASH", crashDetail(exec));
    const touched = describeTreeChanges(before, await snapshotTree(c.datasetDir));
    if (touched !== undefined) return done("FAIL", `wrote into the dataset directory it was asked to read: ${touched}`);
    if (exec.code === 3) {
      const reported = errorLine(exec);
      if (reported === undefined) return done("FAIL", `exit 3 without a JSON error line: ${exec.stdout.slice(0, 200)}`);
      if (c.expectError === undefined) return done("FAIL", `rejected a valid dataset: ${reported.code}: ${reported.message}`.slice(0, 300));
      if (reported.code !== c.expectError) return done("FAIL", `error code ${reported.code}, expected ${c.expectError}`);
      return done("PASS", `rejected with ${reported.code}`);
    }
    if (c.expectError !== undefined) return done("FAIL", `accepted a dataset that must fail with ${c.expectError}`);
    const result = JSON.parse(await readFile(join(out, "result.json"), "utf8")) as Record<string, unknown>;
    // A carray and a vlarray have one value file (spec/conformance.md §1.2), a ctable one per column.
    const single = c.kind !== "ctable";
    const allowed = new Set(["result.json", ...(single ? ["values.bin"] : c.columns!.map((_, i) => `col-${i}.bin`))]);
    const extra = (await listFiles(out)).filter((f) => !allowed.has(f));
    const problems: (string | undefined)[] = [
      field("kind", result.kind, c.kind),
      c.format === undefined ? undefined : field("format", result.format, c.format),
      field("dtype", result.dtype, c.dtype),
      field("shape", result.shape, c.shape),
      field("attrs", result.attrs, c.attrs),
    ];
    if (single) {
      problems.push(field("chunklen", result.chunklen, c.chunklen), field("cparams", cparamsOf(result.cparams), c.cparams));
      const values = await readFile(join(out, "values.bin"));
      if (c.values && (values.length !== c.values.bytes || sha256(values) !== c.values.sha256))
        problems.push(`values.bin: ${values.length} bytes, sha256 differs from expected (${c.values.bytes} bytes)`);
    } else {
      if (c.chunklen !== null) problems.push(field("chunklen", result.chunklen, c.chunklen));
      const cols = (result.columns as Record<string, unknown>[] | undefined) ?? [];
      if (cols.length !== c.columns!.length) problems.push(`columns: got ${cols.length}, expected ${c.columns!.length}`);
      for (const [i, want] of c.columns!.entries()) {
        const got = cols[i] ?? {};
        problems.push(
          field(`columns[${i}].name`, got.name, want.name),
          field(`columns[${i}].dtype`, got.dtype, want.dtype),
          field(`columns[${i}].shape`, got.shape, want.shape),
          field(`columns[${i}].chunklen`, got.chunklen, want.chunklen),
          field(`columns[${i}].cparams`, cparamsOf(got.cparams), want.cparams),
        );
        let bytes: Uint8Array;
        try {
          bytes = await readFile(join(out, `col-${i}.bin`));
        } catch {
          problems.push(`col-${i}.bin missing`);
          continue;
        }
        if (bytes.length !== want.bytes || sha256(bytes) !== want.sha256)
          problems.push(`col-${i}.bin (${want.name}): ${bytes.length} bytes, sha256 differs from expected (${want.bytes} bytes)`);
      }
    }
    if (extra.length > 0) problems.push(`output files the protocol does not define: ${extra.slice(0, 5).join(", ")}`);
    const failed = problems.filter((p): p is string => p !== undefined);
    return failed.length === 0 ? done("PASS", "values and metadata match") : done("FAIL", failed.join("; ").slice(0, 400));
  } catch (err) {
    return done("FAIL", `could not judge: ${String(err)}`.slice(0, 300));
  } finally {
    await rm(out, { recursive: true, force: true });
  }
}

/**
 * Apply `judge` to every item, at most `parallel` at a time, keeping the input order in the result.
 *
 * @example
 * ```ts
 * const lengths = await runPool(["a", "bb"], 2, async (s) => s.length); // [1, 2]
 * ```
 */
export async function runPool<T, R>(items: readonly T[], parallel: number, judge: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++;
      results[i] = await judge(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(parallel, items.length)) }, worker));
  return results;
}

/**
 * Judge many cases, `parallel` at a time, keeping the input order in the result.
 *
 * @example
 * ```ts
 * const results = await judgeAll(adapter, cases, 2);
 * ```
 */
export function judgeAll(adapter: AdapterLike, cases: CorpusCase[], parallel = 2, timeoutMs = 60_000): Promise<CaseResult[]> {
  return runPool(cases, parallel, (c) => judgeCase(adapter, c, timeoutMs));
}
