import { BcolzError, FormatError } from "@fmt/errors";
import type { ReadableStore } from "@fmt/fs-adapters";
import { validateKey } from "@fmt/fs-adapters";
import type { OpenOptions } from "./options.js";

/** Store key of `relative` inside the dataset at `base` ("" = store root). */
export function joinKey(base: string, relative: string): string {
  return base === "" ? relative : `${base}/${relative}`;
}

/** Validates a dataset path: "" or a safe store key. */
export function checkDatasetPath(path: string): string {
  if (path === "") return path;
  return validateKey(path);
}

/** Runs `fn`, giving any path-less BcolzError the store key `key`. */
export function withPath<T>(key: string, fn: () => T): T {
  try {
    return fn();
  } catch (error) {
    if (error instanceof BcolzError) throw error.withPath(key);
    throw error;
  }
}

const utf8 = new TextDecoder("utf-8", { fatal: true });

/** The text of a metadata file, or undefined when it is missing. */
export async function readText(store: ReadableStore, key: string): Promise<string | undefined> {
  const bytes = await store.get(key);
  if (bytes === undefined) return undefined;
  try {
    return utf8.decode(bytes);
  } catch (cause) {
    throw new FormatError("BAD_JSON", "metadata file is not valid UTF-8 text", { path: key, field: "text", cause });
  }
}

/** The text of a metadata file the layout requires (MISSING_FILE otherwise). */
export async function requireText(store: ReadableStore, key: string): Promise<string> {
  const text = await readText(store, key);
  if (text === undefined) throw new FormatError("MISSING_FILE", "required file is missing", { path: key, field: "file" });
  return text;
}

// The row-bound rules live with where queries, which read start/stop the same way.
export { checkInteger, normalizeSlice } from "@fmt/expr";

/**
 * The `(path, options)` of an open function called as `(store, path?, options?)` or
 * `(store, options)`: a plain object in the path's place is the options of a dataset at the store
 * root (what a JavaScript caller writes as `open(store, { mode: "a" })`).
 */
export function pathAndOptions(pathOrOptions: string | OpenOptions | undefined, options: OpenOptions | undefined): [string, OpenOptions] {
  if (typeof pathOrOptions === "object" && pathOrOptions !== null && options === undefined) return ["", pathOrOptions];
  return [pathOrOptions as string, options ?? {}];
}
