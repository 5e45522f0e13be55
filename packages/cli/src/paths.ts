/**
 * The command line's checks of the paths a user names, so that a wrong path is reported as what
 * it is (no such directory, a file where a dataset directory was expected, a directory that is
 * no dataset, a source file that cannot be read) instead of as a metadata file the format misses.
 *
 * @example
 * ```ts
 * await requireDatasetDir("/data/prices.bcolz"); // throws FormatError MISSING_FILE naming the path
 * const bytes = await readSourceFile("prices.csv");
 * ```
 */
import { stat, readFile } from "node:fs/promises";
import { join } from "node:path";
import { FormatError, UsageError } from "@fmt/errors";

/**
 * Checks that `dir` is a directory holding a dataset root (`meta/storage`, or `__rootdirs__` for
 * a format-1 ctable). Errors are `FormatError` `MISSING_FILE` with `path` = `dir` as given.
 *
 * @example
 * ```ts
 * await requireDatasetDir("README.md"); // MISSING_FILE: README.md is a file, not a dataset directory
 * ```
 */
export async function requireDatasetDir(dir: string): Promise<void> {
  const info = await stat(dir).catch(() => undefined);
  if (info === undefined) throw new FormatError("MISSING_FILE", "no such directory", { path: dir, field: "dir" });
  if (!info.isDirectory()) throw new FormatError("MISSING_FILE", "a file, not a dataset directory (a bcolz dataset is a directory)", { path: dir, field: "dir" });
  const has = async (name: string): Promise<boolean> => (await stat(join(dir, name)).catch(() => undefined)) !== undefined;
  if (!(await has("meta/storage")) && !(await has("__rootdirs__"))) {
    throw new FormatError("MISSING_FILE", "a directory, but not a bcolz dataset: it holds neither meta/storage nor __rootdirs__", { path: dir, field: "meta/storage" });
  }
}

/**
 * The bytes of a source file the user named (`import`), or `UsageError` `INVALID_ARGUMENT`
 * naming it when it cannot be read.
 *
 * @example
 * ```ts
 * const text = await readSourceFile("prices.csv", "utf8");
 * ```
 */
export async function readSourceFile(path: string): Promise<Buffer>;
export async function readSourceFile(path: string, encoding: "utf8"): Promise<string>;
export async function readSourceFile(path: string, encoding?: "utf8"): Promise<Buffer | string> {
  try {
    return encoding === undefined ? await readFile(path) : await readFile(path, encoding);
  } catch (cause) {
    const code = (cause as { code?: string }).code;
    const why = code === "ENOENT" ? "no such file" : code === "EISDIR" ? "a directory, not a file" : code === "EACCES" ? "not readable (permission denied)" : `cannot be read (${code ?? String(cause)})`;
    throw new UsageError("INVALID_ARGUMENT", `the source file: ${why}`, { path, field: "source", cause });
  }
}
