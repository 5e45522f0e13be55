/**
 * Running an adapter over corpus cases and judging each result.
 */
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { CorpusCase } from "./manifest.js";

/** The verdict on one case. */
export interface CaseResult {
  set: string;
  name: string;
  category: CorpusCase["category"];
  status: "PASS" | "FAIL" | "CRASH";
  detail: string;
  ms: number;
}

interface Exec {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
}

/** Run `adapter args…` with a time limit, collecting output. */
export function runAdapter(adapter: string, args: string[], timeoutMs = 60_000): Promise<Exec> {
  return new Promise((resolve) => {
    const child = spawn(adapter, args, { stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill("SIGKILL");
    }, timeoutMs);
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.on("error", (err) => {
      clearTimeout(timer);
      resolve({ code: null, signal: null, stdout, stderr: stderr + String(err), timedOut });
    });
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr, timedOut });
    });
  });
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
export async function judgeCase(adapter: string, c: CorpusCase, timeoutMs = 60_000): Promise<CaseResult> {
  const started = Date.now();
  const out = await mkdtemp(join(tmpdir(), "bcolz-conf-"));
  const base = { set: c.set, name: c.name, category: c.category };
  const done = (status: CaseResult["status"], detail: string): CaseResult => ({ ...base, status, detail, ms: Date.now() - started });
  try {
    const exec = await runAdapter(adapter, ["read", c.datasetDir, out], timeoutMs);
    if (exec.timedOut) return done("CRASH", `timed out after ${timeoutMs} ms`);
    if (exec.code !== 0 && exec.code !== 3) {
      const tail = (exec.stderr || exec.stdout).trim().split("\n").slice(0, 2).join(" | ");
      return done("CRASH", `exit ${exec.code ?? exec.signal}: ${tail}`.slice(0, 300));
    }
    if (exec.code === 3) {
      let reported: { code?: string; message?: string } = {};
      try {
        reported = JSON.parse(exec.stdout.trim().split("\n").pop() ?? "{}") as typeof reported;
      } catch {
        return done("FAIL", `exit 3 without a JSON error line: ${exec.stdout.slice(0, 200)}`);
      }
      if (c.expectError === undefined) return done("FAIL", `rejected a valid dataset: ${reported.code}: ${reported.message}`.slice(0, 300));
      if (reported.code !== c.expectError) return done("FAIL", `error code ${reported.code}, expected ${c.expectError}`);
      return done("PASS", `rejected with ${reported.code}`);
    }
    if (c.expectError !== undefined) return done("FAIL", `accepted a dataset that must fail with ${c.expectError}`);
    const result = JSON.parse(await readFile(join(out, "result.json"), "utf8")) as Record<string, unknown>;
    const problems: (string | undefined)[] = [
      field("kind", result.kind, c.kind),
      field("dtype", result.dtype, c.dtype),
      field("shape", result.shape, c.shape),
      field("attrs", result.attrs, c.attrs),
    ];
    if (c.kind === "carray") {
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
    const failed = problems.filter((p): p is string => p !== undefined);
    return failed.length === 0 ? done("PASS", "values and metadata match") : done("FAIL", failed.join("; ").slice(0, 400));
  } catch (err) {
    return done("FAIL", `could not judge: ${String(err)}`.slice(0, 300));
  } finally {
    await rm(out, { recursive: true, force: true });
  }
}

/**
 * Judge many cases, `parallel` at a time, keeping the input order in the result.
 *
 * @example
 * ```ts
 * const results = await judgeAll(adapter, cases, 2);
 * ```
 */
export async function judgeAll(adapter: string, cases: CorpusCase[], parallel = 2, timeoutMs = 60_000): Promise<CaseResult[]> {
  const results: CaseResult[] = new Array(cases.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < cases.length) {
      const i = next++;
      results[i] = await judgeCase(adapter, cases[i]!, timeoutMs);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, parallel) }, worker));
  return results;
}

/**
 * Render results as the table spec/conformance.md describes, ending with the totals line.
 *
 * @example
 * ```ts
 * console.log(formatTable(results));
 * ```
 */
export function formatTable(results: CaseResult[]): string {
  const rows = results.map((r) => [`${r.set}/${r.name}`, r.category, r.status, `${r.ms}`, r.detail]);
  const header = ["case", "category", "result", "ms", "detail"];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => Math.min(r[i]!.length, i === 4 ? 60 : 80))));
  const line = (cells: string[]): string => `| ${cells.map((c, i) => (i === 4 ? c : c.padEnd(widths[i]!))).join(" | ")} |`;
  const out = [line(header), `|${widths.map((w) => "-".repeat(w + 2)).join("|")}|`, ...rows.map(line)];
  const passed = results.filter((r) => r.status === "PASS").length;
  const crashed = results.filter((r) => r.status === "CRASH").length;
  out.push("");
  out.push(`${passed} passed, ${results.length - passed} failed${crashed > 0 ? ` (${crashed} crashed)` : ""}`);
  return out.join("\n");
}
