/**
 * `bcolz-ts verify`, `compact` and `convert`: whole-dataset maintenance in either format version
 * (spec/v2.md §13.6, §14, §15), on top of `verify`, `CArray.compact` and `convert` of
 * `@fmt/store`.
 *
 * @example
 * ```ts
 * const report = await verifyDirectory("/data/prices.bcolz", progress);
 * process.stdout.write(renderVerifyReport(report));
 * ```
 */
import { UsageError } from "@fmt/errors";
import { FileSystemStore } from "@fmt/fs-adapters/node";
import { carraysOf, convert, open, verify } from "@fmt/store";
import type { ConvertOptions, ConvertResult, VerifyReport } from "@fmt/store";
import type { Progress } from "./progress.js";

/**
 * Verifies the dataset in directory `dir`, ticking `progress` once per chunk.
 *
 * @example
 * ```ts
 * const report = await verifyDirectory("/data/prices.bcolz");
 * ```
 */
export async function verifyDirectory(dir: string, progress?: Progress): Promise<VerifyReport> {
  return verify(new FileSystemStore(dir), "", { onStart: (n) => progress?.start(n), onChunk: () => progress?.tick() });
}

/**
 * A {@link VerifyReport} for people: one line per problem (file, chunk, code, message), then a
 * summary line.
 *
 * @example
 * ```ts
 * process.stdout.write(renderVerifyReport(report));
 * ```
 */
export function renderVerifyReport(report: VerifyReport): string {
  const lines = report.problems.map((p) => {
    const where = p.chunk === undefined ? p.path : `${p.path} chunk ${p.chunk}${p.local === undefined ? "" : ` (local ${p.local})`}`;
    return `problem ${p.code} at ${where}${p.field === undefined ? "" : `, ${p.field}`}: ${p.message}`;
  });
  const what = `${report.kind}${report.formatVersion === undefined ? "" : `, format ${report.formatVersion}`}, ${report.chunks} chunk(s) checked`;
  lines.push(report.ok ? `ok: ${what}` : `invalid: ${report.problems.length} problem(s); ${what}`);
  return `${lines.join("\n")}\n`;
}

/**
 * Compacts every carray of the dataset in `dir` (a carray, or each column of a ctable) and
 * resolves to the bytes reclaimed; format-1 datasets have nothing to reclaim (0).
 *
 * @example
 * ```ts
 * const reclaimed = await compactDirectory("/data/prices.bcolz");
 * ```
 */
export async function compactDirectory(dir: string): Promise<{ formatVersion: 1 | 2; reclaimed: number }> {
  const dataset = await open(new FileSystemStore(dir), "", { mode: "a" });
  let reclaimed = 0;
  try {
    const arrays = carraysOf(dataset);
    for (const a of arrays) reclaimed += await a.compact();
  } finally {
    await dataset.close();
  }
  return { formatVersion: dataset.formatVersion, reclaimed };
}

/**
 * Converts the dataset in `src` to format `options.formatVersion` in the new directory `dst`.
 *
 * @example
 * ```ts
 * await convertDirectory("/data/prices.bcolz", "/data/prices-v2.bcolz", { formatVersion: 2 });
 * ```
 */
export async function convertDirectory(src: string, dst: string, options: ConvertOptions): Promise<ConvertResult> {
  if (options.formatVersion !== 1 && options.formatVersion !== 2) {
    throw new UsageError("INVALID_ARGUMENT", "--format must be 1 or 2", { field: "format", expected: "1 or 2", actual: options.formatVersion });
  }
  return convert(new FileSystemStore(src), "", new FileSystemStore(dst), "", options);
}
