/**
 * The file-system checks behind {@link FileSystemStore}: turning operating-system errors into
 * typed errors that name the key, refusing writes that would pass through a symbolic link,
 * sweeping up temporary files of killed writers, and the key of a path below the root
 * (`keyOfPath`). Node-only; not part of the package's public entry points.
 *
 * @internal
 * @packageDocumentation
 */

import { randomBytes } from "node:crypto";
import { lstatSync } from "node:fs";
import type { Stats } from "node:fs";
import { lstat, readdir, unlink } from "node:fs/promises";
import * as nodePath from "node:path";
import { BcolzError, ConflictError, StorageError, UsageError } from "@fmt/errors";

/**
 * Temporary files written by `put` end with this marker plus 16 hex digits; `list` hides them so
 * that a crash between write and rename never makes a half-written file look like a key.
 *
 * @example
 * ```ts
 * const temp = `${file}${TEMP_MARKER}0123456789abcdef`;
 * ```
 */
export const TEMP_MARKER = ".fmt-tmp-";

/**
 * A fresh temporary path next to `file` for `put` to write before renaming: `file`, the marker,
 * 16 random hex digits.
 *
 * @example
 * ```ts
 * const temp = temporaryPathFor("/data/t.bcolz/meta/sizes"); // …/meta/sizes.fmt-tmp-3f9c…
 * ```
 */
export function temporaryPathFor(file: string): string {
  return `${file}${TEMP_MARKER}${randomBytes(8).toString("hex")}`;
}

/**
 * Matches the name of a temporary file of `put` (see {@link TEMP_MARKER}).
 *
 * @example
 * ```ts
 * TEMP_PATTERN.test("__0.blp.fmt-tmp-0123456789abcdef"); // true
 * ```
 */
export const TEMP_PATTERN = /\.fmt-tmp-[0-9a-f]{16}$/;

/**
 * The store key of `path`, a path at or below `root` (both absolute): its relative path with
 * `/` separators, `""` for the root itself. The inverse of `FileSystemStore.pathOf`.
 *
 * @example
 * ```ts
 * keyOfPath("/data/t.bcolz", "/data/t.bcolz/data/__0.blp"); // "data/__0.blp"
 * ```
 */
export function keyOfPath(root: string, path: string): string {
  return nodePath.relative(root, path).split(nodePath.sep).join("/");
}

/**
 * The `code` of a Node system error (`"ENOENT"`, `"ELOOP"`, …), or `undefined` for anything else.
 *
 * @example
 * ```ts
 * systemErrorCode(Object.assign(new Error("x"), { code: "EIO" })); // "EIO"
 * ```
 */
export function systemErrorCode(error: unknown): string | undefined {
  if (typeof error === "object" && error !== null && "code" in error) {
    const code = error.code;
    return typeof code === "string" ? code : undefined;
  }
  return undefined;
}

/**
 * Whether `error` means "there is no file at this key": the file is absent, a parent is not a
 * directory, or the key names a directory.
 *
 * @example
 * ```ts
 * if (isMissing(error)) return undefined;
 * ```
 */
export function isMissing(error: unknown): boolean {
  const code = systemErrorCode(error);
  return code === "ENOENT" || code === "ENOTDIR" || code === "EISDIR";
}

// Only Node's system errors (from a syscall) are the storage's fault; a TypeError or one of
// Node's own ERR_* argument errors is a bug in this package and must surface as such.
function isSystemError(error: unknown): boolean {
  const code = systemErrorCode(error);
  return code !== undefined && /^E[A-Z0-9]+$/.test(code);
}

/**
 * The typed error for a failed `operation` on `key`: a {@link BcolzError} is returned unchanged,
 * a name too long for the file system becomes `UsageError` `UNSAFE_NAME`, and every other system
 * error (`ELOOP`, `EACCES`, `EIO`, `ENOSPC`, …) a `StorageError` `IO_ERROR` whose `actual` is
 * the system code. Errors that did not come from the operating system are returned unchanged.
 *
 * @example
 * ```ts
 * try { await open(file, "r"); } catch (error) { throw storageFailure(error, "meta/sizes", "open"); }
 * ```
 */
export function storageFailure(error: unknown, key: string, operation: string): unknown {
  if (error instanceof BcolzError || !isSystemError(error)) return error;
  const code = systemErrorCode(error);
  if (code === "ENAMETOOLONG") {
    return new UsageError("UNSAFE_NAME", `cannot ${operation}: a name in the key is longer than the file system allows`, {
      path: key,
      field: "key",
      expected: "names the file system accepts",
      actual: code,
      cause: error,
    });
  }
  const what = code === "ELOOP" ? "too many symbolic links (a link loop)" : code === "EACCES" || code === "EPERM" ? "permission denied" : "the file system failed";
  return new StorageError("IO_ERROR", `cannot ${operation}: ${what}`, { path: key, field: "key", actual: code, cause: error });
}

/**
 * Throws `UsageError` `UNSAFE_NAME` if one of the existing directories between `root` and the
 * file of `key` is a symbolic link (and, with `includeTarget`, if the target itself is one), so
 * that a write can never be redirected outside the root by a planted link. `root` itself may be a
 * link: it is the caller's choice. Resolves to `true` when every checked component exists and is
 * a real directory, and to `false` as soon as one is missing or is not a directory (the caller's
 * `mkdir` then creates or reports it). One `lstat` per existing component.
 *
 * The check and the write that follows are separate system calls: this guards against links
 * found in a dataset, not against a concurrent attacker racing the writer.
 *
 * @example
 * ```ts
 * const parentsExist = await refuseLinksBetween("/data/t.bcolz", "price/data/__0.blp", false);
 * ```
 */
export async function refuseLinksBetween(root: string, key: string, includeTarget: boolean): Promise<boolean> {
  const walk = linkWalk(root, key, includeTarget);
  for (let step = walk.next(); ; ) {
    if (step.done === true) return step.value;
    let info: Stats | undefined;
    try {
      info = await lstat(step.value);
    } catch (error) {
      if (!isMissing(error)) throw storageFailure(error, key, "check the path");
    }
    step = walk.next(info);
  }
}

/**
 * {@link refuseLinksBetween} with `lstatSync`, for the stores that do their file system work on
 * the calling thread.
 *
 * @example
 * ```ts
 * const parentsExist = refuseLinksBetweenSync("/data/t.bcolz", "price/data/__0.blp", false);
 * ```
 */
export function refuseLinksBetweenSync(root: string, key: string, includeTarget: boolean): boolean {
  const walk = linkWalk(root, key, includeTarget);
  for (let step = walk.next(); ; ) {
    if (step.done === true) return step.value;
    let info: Stats | undefined;
    try {
      info = lstatSync(step.value);
    } catch (error) {
      if (!isMissing(error)) throw storageFailure(error, key, "check the path");
    }
    step = walk.next(info);
  }
}

/**
 * The checks of {@link refuseLinksBetween}, written once for both ways of calling `lstat`: yields
 * each path to inspect and receives its `lstat` (`undefined` when missing); returns the answer.
 */
function* linkWalk(root: string, key: string, includeTarget: boolean): Generator<string, boolean, Stats | undefined> {
  const segments = key.split("/");
  const count = includeTarget ? segments.length : segments.length - 1;
  let path = root;
  for (let i = 0; i < count; i++) {
    path = nodePath.join(path, segments[i]!);
    const info = yield path;
    if (info === undefined) return false;
    if (info.isSymbolicLink()) {
      const linkKey = segments.slice(0, i + 1).join("/");
      throw new UsageError("UNSAFE_NAME", "refusing to write through a symbolic link inside the store root", {
        path: key,
        field: "key",
        expected: "real directories between the store root and the target",
        actual: `${linkKey} is a symbolic link`,
      });
    }
    if (!info.isDirectory()) return false;
  }
  return true;
}

/**
 * Deletes every temporary file of `put` (see {@link TEMP_PATTERN}) in the directory `dir` (the
 * directory of `dirKey`) and below, without following symbolic links, and resolves to the keys
 * of the files removed. A missing directory removes nothing.
 *
 * @example
 * ```ts
 * await removeTemporaryFiles("/data/t.bcolz/price", "price"); // ["price/data/__0.blp.fmt-tmp-…"]
 * ```
 */
export async function removeTemporaryFiles(dir: string, dirKey: string): Promise<string[]> {
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch (error) {
    if (isMissing(error)) return [];
    throw storageFailure(error, dirKey === "" ? "." : dirKey, "list the directory");
  }
  const removed: string[] = [];
  for (const entry of entries) {
    const key = dirKey === "" ? entry.name : `${dirKey}/${entry.name}`;
    // Dirent types come from lstat semantics: a link to a directory is a link, never descended.
    if (entry.isDirectory()) {
      removed.push(...(await removeTemporaryFiles(nodePath.join(dir, entry.name), key)));
    } else if (TEMP_PATTERN.test(entry.name)) {
      try {
        await unlink(nodePath.join(dir, entry.name));
        removed.push(key);
      } catch (error) {
        if (!isMissing(error)) throw storageFailure(error, key, "remove a temporary file");
      }
    }
  }
  return removed.sort();
}

/**
 * The error of a failed `mkdir` on the way to a key's file: `ALREADY_EXISTS` when a file stands
 * where a directory is needed, else the storage failure.
 *
 * @example
 * ```ts
 * try { mkdirSync(dir, { recursive: true }); } catch (error) { throw directoryFailure(error, key); }
 * ```
 */
export function directoryFailure(error: unknown, key: string): unknown {
  const code = systemErrorCode(error);
  if (code === "EEXIST" || code === "ENOTDIR") {
    return new ConflictError("ALREADY_EXISTS", "a file stands where a directory of the key is needed", { path: key, field: "key", cause: error });
  }
  return storageFailure(error, key, "create the directories");
}

/**
 * Whether a failed write of a key's file may be explained by a directory standing at its path
 * (then the caller checks the path and reports {@link directoryInTheWay}).
 *
 * @example
 * ```ts
 * if (mayBeDirectoryInTheWay(error) && statSync(file, { throwIfNoEntry: false })?.isDirectory()) throw directoryInTheWay(error, key);
 * ```
 */
export function mayBeDirectoryInTheWay(error: unknown): boolean {
  const code = systemErrorCode(error);
  return code === "EISDIR" || code === "ENOTEMPTY" || code === "EEXIST" || code === "EPERM";
}

/**
 * `ALREADY_EXISTS`: a directory stands where the key's file should go.
 *
 * @example
 * ```ts
 * throw directoryInTheWay(error, "data/__0.blp");
 * ```
 */
export function directoryInTheWay(error: unknown, key: string): ConflictError {
  return new ConflictError("ALREADY_EXISTS", "a directory stands where the key's file should go", { path: key, field: "key", cause: error });
}

