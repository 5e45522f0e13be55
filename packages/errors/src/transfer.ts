/**
 * Errors as plain data, to cross a thread boundary (`postMessage`) and come back as the same
 * class with the same code, path and field: what worker pools and helper threads answer with.
 *
 * @example
 * ```ts
 * import { FormatError, reviveError, serializeError } from "@fmt/errors";
 * const again = reviveError(serializeError(new FormatError("TRUNCATED", "short", { path: "data/__0.blp" })));
 * again instanceof FormatError; // true, code "TRUNCATED", path "data/__0.blp"
 * ```
 * @module
 */
import { BcolzError, ConflictError, FormatError, StorageError, UsageError } from "./index.js";
import type { ErrorCode } from "./index.js";

/**
 * An error as it crosses the thread boundary.
 *
 * @example
 * ```ts
 * const e: SerializedError = { name: "FormatError", code: "TRUNCATED", reason: "short", message: "short" };
 * ```
 */
export interface SerializedError {
  /** Class name: FormatError, UsageError, ConflictError, StorageError, BcolzError, or any other Error's name. */
  name: string;
  /** The full message. */
  message: string;
  /** Stable code of a BcolzError. */
  code?: string | undefined;
  /** Message without decorations, of a BcolzError. */
  reason?: string | undefined;
  /** Path of a BcolzError. */
  path?: string | undefined;
  /** Field of a BcolzError. */
  field?: string | undefined;
  /** Expected value of a BcolzError. */
  expected?: unknown;
  /** Actual value of a BcolzError. */
  actual?: unknown;
}

function cloneable(value: unknown): unknown {
  // Details are numbers, strings and small plain objects; anything exotic travels as text.
  if (value === undefined || value === null) return value;
  const t = typeof value;
  if (t === "number" || t === "string" || t === "boolean" || t === "bigint") return value;
  try {
    return structuredClone(value);
  } catch {
    // eslint-disable-next-line @typescript-eslint/no-base-to-string -- deliberate: whatever cannot be cloned travels as its own text
    return String(value);
  }
}

/**
 * Turn a thrown value into plain data for `postMessage`.
 *
 * @example
 * ```ts
 * port.postMessage({ ok: false, error: serializeError(e) });
 * ```
 */
export function serializeError(error: unknown): SerializedError {
  if (error instanceof BcolzError) {
    return {
      name: error.name, message: error.message, code: error.code, reason: error.reason,
      path: error.path, field: error.field, expected: cloneable(error.expected), actual: cloneable(error.actual),
    };
  }
  if (error instanceof Error) return { name: error.name, message: error.message };
  return { name: "Error", message: String(error) };
}

/**
 * Rebuild the error a worker threw: the same BcolzError subclass, code, path, field, expected and
 * actual; other errors come back as an `Error` with the same name and message.
 *
 * @example
 * ```ts
 * throw reviveError(result.error);
 * ```
 */
export function reviveError(data: SerializedError): Error {
  if (data.code !== undefined) {
    const details = { path: data.path, field: data.field, expected: data.expected, actual: data.actual };
    const code = data.code as ErrorCode;
    const reason = data.reason ?? data.message;
    switch (data.name) {
      case "FormatError": return new FormatError(code, reason, details);
      case "UsageError": return new UsageError(code, reason, details);
      case "ConflictError": return new ConflictError(code, reason, details);
      case "StorageError": return new StorageError(code, reason, details);
      default: return new BcolzError(code, reason, details);
    }
  }
  const error = new Error(data.message);
  error.name = data.name;
  return error;
}
