/**
 * Verification of a whole dataset, either format version: every required chunk is read, its
 * container, checksum (format 2), Blosc layout and size checked and its stream decoded, and
 * every problem is reported by file and chunk (for format 2 also by the chunk's local index in
 * its superchunk) instead of stopping at the first (spec/v2.md §15 "verify"). Format-2
 * superchunks are also checked for overlapping live chunks.
 *
 * @example
 * ```ts
 * const report = await verify(new FileSystemStore("/data/prices.bcolz"));
 * for (const p of report.problems) console.log(p.path, p.local ?? p.chunk, p.code, p.message);
 * ```
 * @module
 */
import { isBcolzError } from "@fmt/errors";
import { readSuperchunkHeader, readSuperchunkMetadataText, verifySuperchunk } from "@fmt/header";
import type { ReadableStore } from "@fmt/fs-adapters";
import { parseSuperchunkMeta } from "@fmt/meta";
import type { CArray } from "./carray.js";
import { carraysOf, open } from "./ctable-open.js";
import { checkDatasetPath } from "./internal.js";

/**
 * One problem found by {@link verify}.
 *
 * @example
 * ```ts
 * const p: VerifyProblem = { path: "data/__2__.bin", chunk: 130, local: 2, code: "CHECKSUM_MISMATCH", field: "chunk[2].checksum", message: "…" };
 * ```
 */
export interface VerifyProblem {
  /** Store key of the file at fault (or of the dataset, for problems found when opening it). */
  path: string;
  /** Global index of the chunk, when the problem is a chunk's. */
  chunk?: number;
  /** Format 2: the chunk's index inside its superchunk. */
  local?: number;
  /** Error code of spec/errors.md. */
  code: string;
  /** The field at fault, as the error names it. */
  field?: string;
  /** A sentence for people. */
  message: string;
}

/**
 * What {@link verify} found.
 *
 * @example
 * ```ts
 * if (!report.ok) console.log(`${report.problems.length} problem(s) in ${report.chunks} chunks`);
 * ```
 */
export interface VerifyReport {
  /** No problem at all. */
  ok: boolean;
  /** `"carray"`, `"ctable"`, or `"unknown"` when the dataset could not be opened. */
  kind: "carray" | "ctable" | "vlarray" | "unknown";
  /** The dataset's format version, when it could be opened. */
  formatVersion?: 1 | 2;
  /** Chunks checked. */
  chunks: number;
  /** Every problem, in the order found. */
  problems: VerifyProblem[];
}

/**
 * Options of {@link verify}.
 *
 * @example
 * ```ts
 * await verify(store, "", { onStart: (n) => bar.start(n), onChunk: () => bar.tick() });
 * ```
 */
export interface VerifyOptions {
  /** Called once with the number of chunks to check. */
  onStart?: (chunks: number) => void;
  /** Called after each chunk. */
  onChunk?: () => void;
}

function problemOf(error: unknown, fallback: string, chunk?: number, local?: number): VerifyProblem {
  if (!isBcolzError(error)) throw error;
  return {
    path: error.path ?? fallback,
    ...(chunk === undefined ? {} : { chunk }),
    ...(local === undefined ? {} : { local }),
    code: error.code,
    ...(error.field === undefined ? {} : { field: error.field }),
    message: error.message,
  };
}

/**
 * Checks every chunk of the dataset at `path` of `store` (a carray or every column of a ctable)
 * and reports every problem. A dataset that does not open at all gives one problem and
 * `kind: "unknown"`. Never throws for a damaged dataset (only for a bad `path`).
 *
 * @example
 * ```ts
 * const { ok, problems } = await verify(store, "trades.bcolz");
 * ```
 */
export async function verify(store: ReadableStore, path = "", options: VerifyOptions = {}): Promise<VerifyReport> {
  const base = checkDatasetPath(path);
  let arrays: CArray[];
  let kind: VerifyReport["kind"];
  let formatVersion: 1 | 2;
  try {
    const dataset = await open(store, base, { cacheBytes: 0 });
    arrays = carraysOf(dataset);
    kind = dataset.kind;
    formatVersion = dataset.formatVersion;
  } catch (error) {
    return { ok: false, kind: "unknown", chunks: 0, problems: [problemOf(error, base)] };
  }
  const problems: VerifyProblem[] = [];
  let chunks = 0;
  options.onStart?.(arrays.reduce((n, a) => n + a.chunkCount, 0));
  for (const a of arrays) {
    const S = a.superchunks?.superchunksize;
    for (let g = 0; g < a.chunkCount; g++) {
      try {
        await a.chunkBytes(g);
      } catch (error) {
        problems.push(problemOf(error, a.chunkKey(g), g, S === undefined ? undefined : g % S));
      }
      chunks++;
      options.onChunk?.();
    }
    if (S !== undefined) problems.push(...(await overlaps(store, a, S)));
  }
  return { ok: problems.length === 0, kind, formatVersion, chunks, problems };
}

/** Live chunks of a format-2 superchunk that share bytes (`BAD_HEADER`, field `offsets[i]`). */
async function overlaps(store: ReadableStore, a: CArray, S: number): Promise<VerifyProblem[]> {
  const out: VerifyProblem[] = [];
  for (let s = 1; (s - 1) * S < a.chunkCount; s++) {
    const key = a.chunkKey((s - 1) * S);
    const file = await store.get(key);
    if (file === undefined) continue; // reported with its chunks
    try {
      const header = readSuperchunkHeader(file, key);
      const meta = parseSuperchunkMeta(readSuperchunkMetadataText(file, header, key) || "{}", key);
      const required = Math.min(S, a.chunkCount - (s - 1) * S);
      // Checksums were compared when the chunks were read above: only the layout is checked here.
      const report = verifySuperchunk(file, { capacity: meta.capacity, path: key, chunks: required, firstChunk: meta.firstChunk, verify: false });
      for (const p of report.problems) {
        if (p.field?.startsWith("offsets[") !== true) continue; // chunk problems are reported above
        const local = Number(/\d+/.exec(p.field)![0]);
        out.push(problemOf(p, key, (s - 1) * S + local, local));
      }
    } catch {
      // An unreadable header or table was already reported by the chunks of this file.
    }
  }
  return out;
}
