/**
 * Typed errors shared by every bcolz-ts package.
 *
 * Every error thrown on purpose by this project is a {@link BcolzError} with a stable
 * {@link ErrorCode} taken from the specification (`spec/errors.md`), the path of the file or key
 * it concerns, the field that was wrong and what was expected. Callers branch on `code`, never on
 * the message text.
 *
 * @example
 * ```ts
 * import { isBcolzError } from "@fmt/errors";
 * try {
 *   await openArray(store, "prices");
 * } catch (e) {
 *   if (isBcolzError(e, "BAD_MAGIC")) console.error(`${e.path}: not a blpk file`);
 *   else throw e;
 * }
 * ```
 * @packageDocumentation
 */

/**
 * The normative error codes of the specification, with a one-line meaning each.
 * The same table is printed in `spec/errors.md`; a test keeps the two in step.
 *
 * @example
 * ```ts
 * import { ERROR_CODES } from "@fmt/errors";
 * console.log(ERROR_CODES.TRUNCATED); // "input ends before a field or payload it announces"
 * ```
 */
export const ERROR_CODES = {
  TRUNCATED: "input ends before a field or payload it announces",
  BAD_MAGIC: "a file does not start with the expected magic bytes",
  UNSUPPORTED_VERSION: "a format version byte has a value this reader does not implement",
  BAD_HEADER: "a header field holds a value outside its allowed range or contradicts another field",
  UNKNOWN_CODEC: "a Blosc chunk names a codec format code this reader does not know",
  CORRUPT_STREAM: "a compressed stream does not decode to exactly the size its container announces",
  SIZE_LIMIT: "a declared size exceeds a hard limit or the caller's allowance (decompression bomb guard)",
  CHECKSUM_MISMATCH: "stored checksum differs from the checksum of the stored bytes",
  BAD_JSON: "a metadata file is not parseable JSON in the accepted dialect",
  BAD_METADATA: "a metadata file parses but breaks its JSON Schema or a cross-field rule",
  UNSUPPORTED_DTYPE: "a dtype string is malformed or names a type bcolz cannot store",
  MISSING_FILE: "a file the layout requires is absent",
  INCONSISTENT: "files of one dataset disagree with each other (e.g. chunk size vs chunklen)",
  UNSAFE_NAME: "a column name or dataset path would leave the dataset root or is not a valid name",
  OUT_OF_RANGE: "an index, slice or item range lies outside the array",
  INVALID_ARGUMENT: "an API argument has the wrong type or value",
  READ_ONLY: "a write was attempted on a dataset opened read-only",
  LOCKED: "another writer holds the dataset's lock",
  ALREADY_EXISTS: "a dataset already exists where one was to be created",
  IO_ERROR: "the storage failed or refused an operation (permission, device error, link loop, not a regular file)",
} as const;

/**
 * A stable error code; see {@link ERROR_CODES}.
 *
 * @example
 * ```ts
 * const code: ErrorCode = "TRUNCATED";
 * ```
 */
export type ErrorCode = keyof typeof ERROR_CODES;

/**
 * What an error is about: the file or store key, the field inside it, and what was expected and
 * found. All optional, but a reader error should always fill `path` and `field`.
 *
 * @example
 * ```ts
 * const where: ErrorDetails = { path: "data/__0.blp", field: "magic", expected: "blpk", actual: "blpx" };
 * ```
 */
export interface ErrorDetails {
  /** File path or store key the error concerns. */
  path?: string | undefined;
  /** Field inside that file (e.g. `blosc.cbytes`, `cparams.clevel`). */
  field?: string | undefined;
  /** What the field should have held, in words or as a value. */
  expected?: unknown;
  /** What it held. */
  actual?: unknown;
  /** Underlying error, if any. */
  cause?: unknown;
}

function describe(message: string, details: ErrorDetails): string {
  const parts: string[] = [];
  // An empty path is the dataset at the store root: no "" segment in the message (": field …").
  if (details.path !== undefined && details.path !== "") parts.push(details.path);
  if (details.field !== undefined && details.field !== "") parts.push(`field ${details.field}`);
  let text = parts.length > 0 ? `${parts.join(": ")}: ${message}` : message;
  if (details.expected !== undefined) text += ` (expected ${show(details.expected)}`;
  if (details.actual !== undefined) text += `${details.expected !== undefined ? ", " : " ("}got ${show(details.actual)}`;
  if (details.expected !== undefined || details.actual !== undefined) text += ")";
  return text;
}

function show(value: unknown): string {
  if (typeof value === "string") return value;
  if (typeof value === "bigint") return value.toString();
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

/**
 * Base class of every error this project throws on purpose.
 *
 * @example
 * ```ts
 * throw new BcolzError("BAD_MAGIC", "not a blpk file", { path: "data/__0.blp", field: "magic", expected: "blpk" });
 * ```
 */
export class BcolzError extends Error {
  /** Stable code from the specification. */
  readonly code: ErrorCode;
  /** File path or store key. */
  readonly path: string | undefined;
  /** Field inside the file. */
  readonly field: string | undefined;
  /** Expected value or description. */
  readonly expected: unknown;
  /** Actual value found. */
  readonly actual: unknown;
  /** The message without the path, field and expected/actual decorations. */
  readonly reason: string;

  constructor(code: ErrorCode, reason: string, details: ErrorDetails = {}) {
    super(describe(reason, details), details.cause === undefined ? undefined : { cause: details.cause });
    this.name = new.target.name;
    this.code = code;
    this.reason = reason;
    this.path = details.path;
    this.field = details.field;
    this.expected = details.expected;
    this.actual = details.actual;
  }

  /**
   * The same error with a path filled in, for layers that learn the file name only after a
   * lower layer (which saw only bytes) threw. An error that already has a path is returned as is.
   *
   * @example
   * ```ts
   * try { readChunkHeader(bytes); } catch (e) { if (e instanceof BcolzError) throw e.withPath("data/__3.blp"); throw e; }
   * ```
   */
  withPath(path: string): BcolzError {
    if (this.path !== undefined) return this;
    const Ctor = this.constructor as new (code: ErrorCode, reason: string, details: ErrorDetails) => BcolzError;
    return new Ctor(this.code, this.reason, {
      path,
      field: this.field,
      expected: this.expected,
      actual: this.actual,
      cause: this.cause,
    });
  }

  /** A plain object for logs and for the conformance adapter's `{code, message}` output. */
  toJSON(): { code: ErrorCode; message: string; path?: string; field?: string } {
    const out: { code: ErrorCode; message: string; path?: string; field?: string } = { code: this.code, message: this.message };
    if (this.path !== undefined) out.path = this.path;
    if (this.field !== undefined) out.field = this.field;
    return out;
  }
}

/**
 * The input (a file, a chunk, a metadata document) is not valid: malformed bytes, broken rules,
 * sizes that lie. Never retryable without different input.
 *
 * @example
 * ```ts
 * throw new FormatError("TRUNCATED", "chunk ends inside its header", { path: "data/__0.blp", field: "blosc.header", expected: 16, actual: 9 });
 * ```
 */
export class FormatError extends BcolzError {}

/**
 * The caller asked for something impossible: an index out of range, a write in read-only mode,
 * an unsafe name, a bad option.
 *
 * @example
 * ```ts
 * throw new UsageError("OUT_OF_RANGE", "index past the end", { field: "index", expected: "< 10", actual: 12 });
 * ```
 */
export class UsageError extends BcolzError {}

/**
 * Another party holds the dataset (a lock file), or the dataset already exists.
 *
 * @example
 * ```ts
 * throw new ConflictError("LOCKED", "dataset is locked by another writer", { path: "prices/.lock" });
 * ```
 */
export class ConflictError extends BcolzError {}

/**
 * The storage under a dataset failed or refused: permission denied, a device error, a loop of
 * symbolic links, a key that names a FIFO or a device instead of a regular file. Says nothing
 * certain about the dataset's bytes; retrying may help once the storage is repaired.
 *
 * @example
 * ```ts
 * throw new StorageError("IO_ERROR", "permission denied", { path: "data/__0.blp", field: "key", actual: "EACCES" });
 * ```
 */
export class StorageError extends BcolzError {}

/**
 * Type guard: is `value` a {@link BcolzError}, optionally with the given code?
 *
 * @example
 * ```ts
 * if (isBcolzError(err, "MISSING_FILE")) return undefined;
 * ```
 */
export function isBcolzError(value: unknown, code?: ErrorCode): value is BcolzError {
  return value instanceof BcolzError && (code === undefined || value.code === code);
}

export { reviveError, serializeError } from "./transfer.js";
export type { SerializedError } from "./transfer.js";
