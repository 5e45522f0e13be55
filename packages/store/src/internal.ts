import { BcolzError, FormatError } from "@fmt/errors";
import type { ReadableStore } from "@fmt/fs-adapters";
import { validateKey } from "@fmt/fs-adapters";
import { storageFormatVersion } from "@fmt/meta";
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
    throw pathed(error, key);
  }
}

/**
 * `error` given the store key `key` when it is a path-less BcolzError, for a catch clause to
 * rethrow: what {@link withPath} does, without a closure. Per-chunk code calls it in place of
 * `withPath(key, () => …)`, whose closure (made anew for every chunk) V8 optimized again after
 * each garbage collection (`--trace-opt`; tools/bench/README.md, "Issue 16, step by step
 * (2026-12-01, night session)").
 *
 * @example
 * ```ts
 * try { readBlpkV1Header(file, key); } catch (error) { throw pathed(error, "data/__3.blp"); }
 * ```
 */
export function pathed(error: unknown, key: string): unknown {
  return error instanceof BcolzError ? error.withPath(key) : error;
}

// ignoreBOM keeps a leading byte-order mark in the text, where the JSON reader refuses it
// (spec/v1.md §9.1); by default TextDecoder would drop it silently.
const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

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

/**
 * The format version of a dataset nested in a format-2 one (a table column, a vlarray part),
 * which must be 2: any other announced version, unknown ones included, is `INCONSISTENT`
 * (spec/v2.md §11, §15.1 item 2) rather than the `UNSUPPORTED_VERSION` of a dataset's root.
 * @internal
 *
 * @example
 * ```ts
 * requireNestedFormat2(text, "t/a/meta/storage", "a format-2 table holds a format-{v} column");
 * ```
 */
export function requireNestedFormat2(text: string, key: string, message: string): void {
  let version: unknown;
  try {
    version = withPath(key, () => storageFormatVersion(text, key));
  } catch (error) {
    if (!(error instanceof FormatError) || error.code !== "UNSUPPORTED_VERSION") throw error;
    version = error.actual;
  }
  if (version !== 2) throw new FormatError("INCONSISTENT", message.replace("{v}", String(version)), { path: key, field: "/format_version", expected: 2, actual: version as never });
}
