/**
 * File-tree helpers for the checks that an adapter wrote only where the protocol lets it
 * (spec/conformance.md §1): listings, and snapshots that reveal a modified input directory.
 */
import { readdir, stat } from "node:fs/promises";
import { join, relative, sep } from "node:path";

/**
 * Every regular file and symlink under `dir`, as sorted `/`-separated relative paths; `[]` when
 * `dir` does not exist.
 *
 * @example
 * ```ts
 * await listFiles("conformance/corpus/v1/bcolz-real/trim_f4/data.bcolz"); // ["__attrs__", "data/__0.blp", …]
 * ```
 */
export async function listFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (d: string): Promise<void> => {
    let entries;
    try {
      entries = await readdir(d, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      const full = join(d, entry.name);
      if (entry.isDirectory()) await walk(full);
      else out.push(relative(dir, full).split(sep).join("/"));
    }
  };
  await walk(dir);
  return out.sort();
}

/**
 * Size and modification time of every file under `dir`, keyed by relative path: two snapshots
 * that differ mean something wrote into the directory.
 *
 * @example
 * ```ts
 * const before = await snapshotTree(datasetDir);
 * // … run the adapter …
 * describeTreeChanges(before, await snapshotTree(datasetDir)); // undefined when untouched
 * ```
 */
export async function snapshotTree(dir: string): Promise<Map<string, string>> {
  const snapshot = new Map<string, string>();
  for (const path of await listFiles(dir)) {
    const info = await stat(join(dir, path)).catch(() => undefined);
    snapshot.set(path, info === undefined ? "dangling" : `${info.size}:${info.mtimeMs}`);
  }
  return snapshot;
}

/**
 * A short description of what changed between two snapshots, or `undefined` when nothing did.
 *
 * @example
 * ```ts
 * describeTreeChanges(new Map([["a", "1:0"]]), new Map([["a", "1:0"], ["b.lock", "0:5"]])); // "added b.lock"
 * ```
 */
export function describeTreeChanges(before: Map<string, string>, after: Map<string, string>): string | undefined {
  const added = [...after.keys()].filter((p) => !before.has(p));
  const removed = [...before.keys()].filter((p) => !after.has(p));
  const changed = [...after.keys()].filter((p) => before.has(p) && before.get(p) !== after.get(p));
  const parts = [
    added.length > 0 ? `added ${added.slice(0, 3).join(", ")}` : "",
    removed.length > 0 ? `removed ${removed.slice(0, 3).join(", ")}` : "",
    changed.length > 0 ? `modified ${changed.slice(0, 3).join(", ")}` : "",
  ].filter((p) => p !== "");
  return parts.length === 0 ? undefined : parts.join("; ");
}
