/**
 * The write check (spec/conformance.md §1.3, §4): for every valid case of a format-1 or
 * format-2 set, describe the dataset as a write case, let the adapter write it, and compare the
 * result with the corpus's: file set, chunk-file or superchunk headers, metadata bytes where the
 * writer is deterministic, the layout, and the values read back through the adapter's own `read`.
 * Building the case is in write-case.ts, the format-2 comparisons in write-v2.ts.
 */
import { mkdtemp, readFile, readdir, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { listFiles } from "./files.js";
import type { CaseResult } from "./run.js";
import { crashDetail, runPool } from "./run.js";
import { callerOf, type AdapterLike } from "./adapter-process.js";
import { buildWriteCase, readText, sha256 } from "./write-case.js";
import { compareDatasetV2, strayFilesOfCaseV2 } from "./write-v2.js";

export { buildWriteCase } from "./write-case.js";

type Json = Record<string, unknown>;

/** Operations after which bcolz may leave stale files, so the file set is not compared. */
const DERIVING_OPS = /append|reopen|resize|trim|addcol|c\[|setitem/;

/**
 * Why the file set of a case is not compared (its files come from later operations), or
 * `undefined` when it is.
 *
 * @example
 * ```ts
 * fileSetExemption({ ops: ["create len 5000 chunklen 1000", "trim(1700)", "flush"] }); // "produced by trim(1700)…"
 * ```
 */
export function fileSetExemption(raw: Json): string | undefined {
  const ops = (raw.ops as string[] | undefined) ?? [];
  const deriving = ops.filter((op) => DERIVING_OPS.test(op));
  return deriving.length === 0 ? undefined : `produced by ${deriving.join(", ")}: bcolz may keep stale chunk files, so only values and metadata are compared`;
}

function keysOf(text: string | undefined): string | undefined {
  if (text === undefined) return undefined;
  return [...text.matchAll(/"([^"\\]+)": /g)].map((m) => m[1]).join(",");
}

/** Compares the metadata files of one carray directory (written vs bcolz's). */
async function compareArrayMeta(written: string, real: string, label: string, problems: string[]): Promise<void> {
  for (const file of ["meta/storage", "__attrs__"]) {
    const w = await readText(join(written, file));
    const r = await readText(join(real, file));
    if (w !== r) problems.push(`${label}${file} differs: ${JSON.stringify(w)?.slice(0, 160)} vs bcolz ${JSON.stringify(r)?.slice(0, 160)}`);
  }
  const ws = await readText(join(written, "meta/sizes"));
  const rs = await readText(join(real, "meta/sizes"));
  if (keysOf(ws) !== keysOf(rs)) problems.push(`${label}meta/sizes keys ${keysOf(ws)} vs bcolz ${keysOf(rs)}`);
  const strip = (t: string | undefined) => t?.replace(/"cbytes": \d+/, '"cbytes": _');
  if (strip(ws) !== strip(rs)) problems.push(`${label}meta/sizes differs outside cbytes: ${ws?.trim()} vs bcolz ${rs?.trim()}`);
  const realData = await readdir(join(real, "data")).catch(() => [] as string[]);
  for (const f of realData) {
    const w = await readFile(join(written, "data", f)).catch(() => undefined);
    const r = await readFile(join(real, "data", f));
    if (w === undefined) continue; // a stale bcolz file; the file-set check reports it where it matters
    if (sha256(w.subarray(0, 16)) !== sha256(r.subarray(0, 16))) problems.push(`${label}data/${f}: blpk header differs`);
  }
}

/** Files of a written carray directory that a bcolz reader knows (v1.md §3.1, §4.1, §14). */
const CARRAY_FILE = /^(meta\/storage|meta\/sizes|__attrs__|data\/__\d+\.blp)$/;

/**
 * Files of a written dataset that v1.md §14 does not allow: leftover `.lock`/`.journal` files,
 * temporaries, or anything else outside the carray/ctable layout.
 *
 * @example
 * ```ts
 * strayFiles(["meta/storage", "meta/sizes", "__attrs__", "data/__0.blp", "data/__0.blp.tmp"], "carray", []); // ["data/__0.blp.tmp"]
 * ```
 */
export function strayFiles(files: string[], kind: "carray" | "ctable", columnNames: string[]): string[] {
  if (kind === "carray") return files.filter((f) => !CARRAY_FILE.test(f));
  return files.filter((f) => {
    if (f === "__rootdirs__" || f === "__attrs__") return false;
    const slash = f.indexOf("/");
    return slash < 0 || !columnNames.includes(f.slice(0, slash)) || !CARRAY_FILE.test(f.slice(slash + 1));
  });
}

/** Checks 2 and 3 of the write check for a format-1 case (v1.md §14). */
async function compareDatasetV1(out: string, real: string, raw: Json, problems: string[]): Promise<void> {
  if (raw.kind !== "ctable") return compareArrayMeta(out, real, "", problems);
  for (const file of ["__rootdirs__", "__attrs__"]) {
    const w = await readText(join(out, file));
    const r = await readText(join(real, file));
    if (w !== r) problems.push(`${file} differs: ${w?.trim()} vs bcolz ${r?.trim()}`);
  }
  for (const col of raw.columns as Json[]) await compareArrayMeta(join(out, col.name as string), join(real, col.name as string), `${col.name as string}/`, problems);
}

/** What differs between the two formats' write checks: the layout, and checks 2 and 3. */
interface FormatRules {
  stray(files: string[], raw: Json): string[];
  /** How the layout check's message names the rule. */
  layout: string;
  /** Who wrote the corpus datasets, in messages. */
  reference: string;
  compare(out: string, real: string, raw: Json, problems: string[]): Promise<void>;
}

const RULES: Record<1 | 2, FormatRules> = {
  1: {
    stray: (files, raw) => strayFiles(files, raw.kind as "carray" | "ctable", ((raw.columns as Json[] | undefined) ?? []).map((col) => col.name as string)),
    layout: "files a bcolz reader does not expect (v1.md §14)",
    reference: "bcolz",
    compare: compareDatasetV1,
  },
  2: { stray: strayFilesOfCaseV2, layout: "files outside the format-2 layout (v2.md §10.5, §11, §12)", reference: "the corpus", compare: compareDatasetV2 },
};

/** Format versions that have a write check (spec/conformance.md §1.3). */
export const WRITE_FORMATS: readonly number[] = [1, 2];

/**
 * Runs the write check of one valid case: `adapter write`, then layout, file set, headers,
 * metadata and values (through `adapter read`). `format` is the corpus format of the case's set
 * (its `v<N>/` folder), 1 or 2.
 *
 * @example
 * ```ts
 * const result = await judgeWriteCase(adapter, raw, "conformance/corpus/v1/bcolz-real", "bcolz-real");
 * const v2 = await judgeWriteCase(adapter, raw2, "conformance/corpus/v2/synth", "synth", 60_000, 2);
 * ```
 */
export async function judgeWriteCase(adapter: AdapterLike, raw: Json, setDir: string, set: string, timeoutMs = 60_000, format = 1): Promise<CaseResult> {
  const started = Date.now();
  const work = await mkdtemp(join(tmpdir(), "bcolz-write-"));
  const base = { set, name: raw.name as string, category: "valid" as const, operation: "write" as const };
  const done = (status: CaseResult["status"], detail: string): CaseResult => ({ ...base, status, detail, ms: Date.now() - started });
  try {
    const rules = RULES[format as 1 | 2];
    if (rules === undefined) return done("FAIL", `could not judge: format ${format} has no write check`);
    const caseJson = await buildWriteCase(raw, setDir, join(work, "case"), format);
    const out = join(work, "out.bcolz");
    const exec = await callerOf(adapter).call(["write", caseJson, out], timeoutMs);
    if (exec.timedOut) return done("CRASH", `write timed out after ${timeoutMs} ms (hang)`);
    if (exec.code === 3) return done("FAIL", `write refused a valid case: ${exec.stdout.trim().split("\n").pop() ?? ""}`.slice(0, 300));
    if (exec.code !== 0) return done("CRASH", crashDetail(exec, "write "));
    const problems: string[] = [];
    const outside = (await listFiles(work)).filter((f) => !f.startsWith("case/") && !f.startsWith("out.bcolz/"));
    if (outside.length > 0) problems.push(`wrote outside DATASET_DIR: ${outside.slice(0, 3).join(", ")}`);
    const real = join(setDir, raw.name as string, (raw.rootdir as string | undefined) ?? "data.bcolz");
    const files = await listFiles(out);
    if (files.length === 0) return done("FAIL", "exit 0 but DATASET_DIR holds no files");
    const stray = rules.stray(files, raw);
    if (stray.length > 0) problems.push(`${rules.layout}: ${stray.slice(0, 5).join(", ")}`);
    const exemption =
      fileSetExemption(raw) ?? (raw.files === undefined ? "the set records no reference file list, so only values and metadata are compared" : undefined);
    const expectedFiles = [...((raw.files as string[]) ?? [])].sort();
    if (exemption === undefined && JSON.stringify(files) !== JSON.stringify(expectedFiles)) {
      problems.push(`files ${JSON.stringify(files)} vs ${rules.reference} ${JSON.stringify(expectedFiles)}`);
    }
    await rules.compare(out, real, raw, problems);
    const readOut = join(work, "read");
    const back = await callerOf(adapter).call(["read", out, readOut], timeoutMs);
    if (back.timedOut || back.code !== 0) {
      const why = back.code === 3 ? back.stdout.trim().split("\n").pop() ?? "" : crashDetail(back);
      problems.push(`the written dataset does not read back (adapter read, exit ${back.code ?? "timeout"}): ${why}`.slice(0, 300));
    } else if (raw.kind !== "ctable") {
      const want = (raw.expected as Record<string, { sha256: string; bytes: number }>)["values.bin"]!;
      const got = await readFile(join(readOut, "values.bin")).catch(() => undefined);
      if (got === undefined || got.length !== want.bytes || sha256(got) !== want.sha256) problems.push(`values read back differ from ${rules.reference}'s`);
    } else {
      for (const [i, col] of (raw.columns as Json[]).entries()) {
        const got = await readFile(join(readOut, `col-${i}.bin`)).catch(() => undefined);
        if (got === undefined || got.length !== col.bytes || sha256(got) !== col.sha256) problems.push(`column ${col.name as string} read back differs`);
      }
    }
    if (problems.length > 0) return done("FAIL", problems.join("; ").slice(0, 600));
    return done("PASS", exemption === undefined ? "files, headers, metadata and values match" : `metadata and values match (${exemption})`);
  } catch (err) {
    return done("FAIL", `could not judge: ${String(err)}`.slice(0, 300));
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

/** One write case of the corpus: the manifest entry, where its set lives and its format version. */
export interface WriteCase {
  set: string;
  setDir: string;
  raw: Record<string, unknown>;
  format: number;
}

/**
 * The write cases of `corpusRoot/v<version>`: every valid case of every set, in set and manifest
 * order.
 *
 * @example
 * ```ts
 * const cases = await loadWriteCases("conformance/corpus");
 * const v2 = await loadWriteCases("conformance/corpus", 2);
 * console.log(cases.map((c) => `${c.set}/${c.raw.name}`));
 * ```
 */
export async function loadWriteCases(corpusRoot: string, version = 1): Promise<WriteCase[]> {
  const base = join(corpusRoot, `v${version}`);
  const cases: WriteCase[] = [];
  for (const set of (await readdir(base)).sort()) {
    const manifestPath = join(base, set, "manifest.json");
    if (!(await stat(manifestPath).catch(() => undefined))) continue;
    const manifest = JSON.parse(await readFile(manifestPath, "utf8")) as { cases: Json[] };
    for (const raw of manifest.cases) {
      // Cases that must be refused have nothing to write; cases derived from another case by a
      // mutation that keeps their content (bcolz-broken's leniency cases) would only repeat
      // their source's write check.
      if (raw.expect !== undefined || raw.derived_from !== undefined) continue;
      cases.push({ set, setDir: join(base, set), raw, format: version });
    }
  }
  return cases;
}

/**
 * The write check over every valid case of every set under `corpusRoot/v<version>` (those whose
 * `set/case` name contains `filter`, when given), `parallel` at a time.
 *
 * @example
 * ```ts
 * console.log(formatTable(await judgeWriteAll(adapter, "conformance/corpus")));
 * ```
 */
export async function judgeWriteAll(adapter: AdapterLike, corpusRoot: string, filter?: string, timeoutMs = 60_000, parallel = 2, version = 1): Promise<CaseResult[]> {
  const cases = (await loadWriteCases(corpusRoot, version)).filter((c) => filter === undefined || `${c.set}/${c.raw.name as string}`.includes(filter));
  return runPool(cases, parallel, (c) => judgeWriteCase(adapter, c.raw, c.setDir, c.set, timeoutMs, c.format));
}
