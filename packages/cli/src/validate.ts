/**
 * `bcolz-ts validate`: checks a dataset's metadata against the format rules, decodes every
 * chunk and compares the sizes, collecting every problem instead of stopping at the first.
 */
import { isBcolzError } from "@fmt/errors";
import type { ReadableStore } from "@fmt/fs-adapters";
import { parsePythonJson, parseRootdirs } from "@fmt/meta";
import { open, openCarray } from "@fmt/store";
import type { CArray } from "@fmt/store";

/**
 * One problem that `validate` found.
 *
 * @example
 * ```ts
 * const p: Problem = { code: "BAD_MAGIC", path: "data/__2.blp", message: "not a blpk file" };
 * ```
 */
export interface Problem {
  /** Error code (see spec/errors.md), e.g. `BAD_MAGIC`. */
  code: string;
  /** Store key the problem is about, relative to the dataset directory (may be empty). */
  path: string;
  /** One-line explanation. */
  message: string;
}

/**
 * What `validate` reports.
 *
 * @example
 * ```ts
 * const report: ValidationReport = await validateDataset(store);
 * ```
 */
export interface ValidationReport {
  /** True when no problem was found. */
  ok: boolean;
  /** `"carray"`, `"ctable"` or `"unknown"` when the root could not be read. */
  kind: "carray" | "ctable" | "unknown";
  /** Arrays opened (the carray, or each readable column). */
  arrays: number;
  /** Chunks decoded successfully. */
  chunksOk: number;
  /** Every problem found, in the order found. */
  problems: Problem[];
}

/**
 * Progress callbacks (a progress bar, when the CLI runs in a terminal).
 *
 * @example
 * ```ts
 * const progress: ValidateProgress = { start: (n) => console.log(n, "chunks"), tick: () => {} };
 * ```
 */
export interface ValidateProgress {
  /** Called once the total number of chunks is known. */
  start(total: number): void;
  /** Called after each chunk. */
  tick(): void;
}

function toProblem(err: unknown, fallbackPath: string): Problem {
  if (isBcolzError(err)) return { code: err.code, path: err.path ?? fallbackPath, message: err.message };
  return { code: "INTERNAL", path: fallbackPath, message: err instanceof Error ? err.message : String(err) };
}

async function checkSizes(store: ReadableStore, a: CArray, problems: Problem[]): Promise<void> {
  const key = a.path === "" ? "meta/sizes" : `${a.path}/meta/sizes`;
  const bytes = await store.get(key);
  if (bytes === undefined) return;
  const doc = parsePythonJson(new TextDecoder().decode(bytes)) as { nbytes?: unknown };
  const recorded = typeof doc.nbytes === "bigint" ? Number(doc.nbytes) : doc.nbytes;
  if (typeof recorded === "number" && recorded !== a.nbytes) {
    problems.push({ code: "INCONSISTENT", path: key, message: `nbytes is ${recorded}, but shape × row size is ${a.nbytes}` });
  }
}

async function checkChunks(a: CArray, problems: Problem[], progress: ValidateProgress | undefined): Promise<number> {
  let ok = 0;
  // Consecutive missing chunk files are one problem: a length claim far past the files (a
  // damaged meta/sizes) would otherwise print a line per file, hundreds of thousands of them.
  let missingFrom = -1;
  let missingProblem = -1;
  const endMissingRun = (end: number): void => {
    if (missingFrom < 0) return;
    if (end - missingFrom > 1) {
      const first = a.chunkKey(missingFrom);
      problems[missingProblem] = { code: "MISSING_FILE", path: first, message: `the files of chunks ${missingFrom} to ${end - 1} are missing (${(end - missingFrom).toLocaleString("en-US")} chunks, ${first} to ${a.chunkKey(end - 1)})` };
    }
    missingFrom = -1;
  };
  // The chunk files that exist, listed once when the first one turns out missing, so that a run
  // of missing files is skipped over without asking the store for each.
  let present: Set<string> | undefined;
  for (let i = 0; i < a.chunkCount; i++) {
    if (missingFrom >= 0 && present !== undefined && !present.has(a.chunkKey(i))) {
      progress?.tick();
      continue;
    }
    const start = i * a.chunklen;
    try {
      await a.readBytes(start, Math.min(a.length, start + a.chunklen));
      endMissingRun(i);
      ok++;
    } catch (err) {
      const problem = toProblem(err, a.chunkKey(i));
      if (problem.code === "MISSING_FILE" && problem.path.endsWith(a.chunkKey(i))) {
        if (missingFrom < 0) {
          missingFrom = i;
          missingProblem = problems.push(problem) - 1;
          if (present === undefined && a.store.list !== undefined) {
            const dir = a.chunkKey(i).slice(0, a.chunkKey(i).lastIndexOf("/") + 1);
            present = new Set(await a.store.list(dir));
          }
        }
      } else {
        endMissingRun(i);
        problems.push(problem);
      }
    }
    progress?.tick();
  }
  endMissingRun(a.chunkCount);
  return ok;
}

/**
 * Validates the dataset in `store` (a carray or ctable at the store's root).
 *
 * @example
 * ```ts
 * const report = await validateDataset(new FileSystemStore("/data/prices.bcolz"));
 * for (const p of report.problems) console.log(p.code, p.path, p.message);
 * ```
 */
export async function validateDataset(store: ReadableStore, progress?: ValidateProgress): Promise<ValidationReport> {
  const problems: Problem[] = [];
  const arrays: CArray[] = [];
  let kind: ValidationReport["kind"] = "unknown";
  const rootdirs = await store.get("__rootdirs__");
  if (rootdirs !== undefined) {
    kind = "ctable";
    let names: readonly string[] = [];
    try {
      names = parseRootdirs(new TextDecoder().decode(rootdirs), "__rootdirs__").names;
    } catch (err) {
      problems.push(toProblem(err, "__rootdirs__"));
    }
    for (const name of names) {
      try {
        arrays.push(await openCarray(store, name));
      } catch (err) {
        problems.push(toProblem(err, name));
      }
    }
    const lengths = new Set(arrays.map((a) => a.length));
    if (lengths.size > 1) {
      problems.push({ code: "INCONSISTENT", path: "__rootdirs__", message: `columns differ in length: ${arrays.map((a) => `${a.path}=${a.length}`).join(", ")}` });
    }
  } else {
    try {
      arrays.push(await openCarray(store, ""));
      kind = "carray";
    } catch (err) {
      problems.push(toProblem(err, ""));
    }
  }
  // The whole-dataset open applies the table-level rules too; report what it adds.
  if (problems.length === 0) {
    try {
      await open(store, "");
    } catch (err) {
      problems.push(toProblem(err, ""));
    }
  }
  progress?.start(arrays.reduce((n, a) => n + a.chunkCount, 0));
  let chunksOk = 0;
  for (const a of arrays) {
    try {
      await checkSizes(store, a, problems);
    } catch (err) {
      problems.push(toProblem(err, a.path));
    }
    chunksOk += await checkChunks(a, problems, progress);
  }
  return { ok: problems.length === 0, kind, arrays: arrays.length, chunksOk, problems };
}

/**
 * Renders a {@link ValidationReport} for people: one line per problem, then a summary line.
 *
 * @example
 * ```ts
 * process.stdout.write(renderReport(report));
 * ```
 */
export function renderReport(report: ValidationReport): string {
  const lines = report.problems.map((p) => `problem ${p.code}${p.path === "" || p.message.includes(p.path) ? "" : ` at ${p.path}`}: ${p.message}`);
  const what = `${report.kind}, ${report.arrays} array(s), ${report.chunksOk} chunk(s) decoded`;
  lines.push(report.ok ? `ok: ${what}` : `invalid: ${report.problems.length} problem(s); ${what}`);
  return `${lines.join("\n")}\n`;
}
