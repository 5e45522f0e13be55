/**
 * The directory walk behind `FileSystemStore.list`, on the thread pool ({@link walk}) or on the
 * calling thread ({@link walkSync}), with the same rules.
 *
 * Entry types come from the directory itself (lstat semantics): a link is never descended, so a
 * link to "/" or a link cycle costs one entry, and deleting what list returned removes links,
 * never what they point to. Temporary files of unfinished puts are skipped.
 *
 * @packageDocumentation
 */
import { readdirSync } from "node:fs";
import type { Dirent } from "node:fs";
import { readdir } from "node:fs/promises";
import * as nodePath from "node:path";
import { isMissing, storageFailure, TEMP_PATTERN } from "./file-safety-node.js";

/**
 * Appends to `out` the key of every file and link under `dir` (whose key is `dirKey`) that
 * starts with `prefix`; a missing directory adds nothing.
 *
 * @example
 * ```ts
 * const keys: string[] = [];
 * await walk("/data/ds.bcolz/data", "data", "data/", keys); // keys: ["data/__0.blp", …] unsorted
 * ```
 */
export async function walk(dir: string, dirKey: string, prefix: string, out: string[]): Promise<void> {
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch (error) {
    return refuseUnlessMissing(error, dirKey);
  }
  for (const [subdirectory, key] of splitEntries(entries, dir, dirKey, prefix, out)) await walk(subdirectory, key, prefix, out);
}

/**
 * {@link walk} in the call: the stores with `io: "sync"` list this way, so a put called after
 * `list` cannot run between the call and the reading of the directories.
 *
 * @example
 * ```ts
 * const keys: string[] = [];
 * walkSync("/data/ds.bcolz", "", "", keys);
 * ```
 */
export function walkSync(dir: string, dirKey: string, prefix: string, out: string[]): void {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch (error) {
    return refuseUnlessMissing(error, dirKey);
  }
  for (const [subdirectory, key] of splitEntries(entries, dir, dirKey, prefix, out)) walkSync(subdirectory, key, prefix, out);
}

// A directory that cannot be read: nothing when it is missing, else the store's error.
function refuseUnlessMissing(error: unknown, dirKey: string): void {
  if (isMissing(error)) return;
  throw storageFailure(error, dirKey === "" ? "." : dirKey, "list the directory");
}

// Appends the matching files and links of one directory's entries to `out`, and returns the
// subdirectories still to walk (path and key).
function splitEntries(entries: Dirent[], dir: string, dirKey: string, prefix: string, out: string[]): [string, string][] {
  const subdirectories: [string, string][] = [];
  for (const entry of entries) {
    const key = listedKey(entry.name, dirKey, prefix);
    if (key === undefined) continue;
    if (entry.isDirectory()) subdirectories.push([nodePath.join(dir, entry.name), key]);
    else if (key.startsWith(prefix)) out.push(key);
  }
  return subdirectories;
}

// The key of a directory entry, or undefined when the walk skips it: a temporary file of an
// unfinished put, or a subtree that cannot hold a match (the key must extend the prefix or the
// prefix extend it).
function listedKey(name: string, dirKey: string, prefix: string): string | undefined {
  if (TEMP_PATTERN.test(name)) return undefined;
  const key = dirKey === "" ? name : `${dirKey}/${name}`;
  return key.startsWith(prefix) || prefix.startsWith(`${key}/`) ? key : undefined;
}
