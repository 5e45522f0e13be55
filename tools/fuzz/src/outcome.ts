/**
 * The outcome classes of one fuzz input and the classifier of a thrown value.
 *
 * @example
 * ```ts
 * const outcome = classifyError(new Error("boom")); // { kind: "untyped", ... }
 * ```
 * @packageDocumentation
 */
import { ERROR_CODES, isBcolzError } from "@fmt/errors";

/**
 * - `ok`: the target returned;
 * - `typed`: it threw a BcolzError with a code of spec/errors.md (the expected refusal);
 * - `untyped`: it threw anything else — a finding;
 * - `hang`: it ran past the per-input time limit — a finding;
 * - `memory`: it went past the memory limit — a finding.
 *
 * @example
 * ```ts
 * const isFinding = (k: OutcomeKind) => k === "untyped" || k === "hang" || k === "memory";
 * ```
 */
export type OutcomeKind = "ok" | "typed" | "untyped" | "hang" | "memory";

/**
 * What one input did.
 *
 * @example
 * ```ts
 * const outcome: Outcome = { kind: "typed", code: "TRUNCATED" };
 * ```
 */
export interface Outcome {
  kind: OutcomeKind;
  /** The error code, for `typed`. */
  code?: string;
  /** Error name and message, for `untyped`, `hang` and `memory`. */
  message?: string;
  /** Stack of an untyped error. */
  stack?: string;
}

/**
 * True for the classes that make a run fail.
 *
 * @example
 * ```ts
 * isFinding({ kind: "hang" }); // true
 * ```
 */
export function isFinding(outcome: Outcome): boolean {
  return outcome.kind === "untyped" || outcome.kind === "hang" || outcome.kind === "memory";
}

/**
 * Classifies a thrown value. A V8 allocation failure of a typed array or ArrayBuffer counts as
 * `memory`: the input made the library ask for more memory than the process may have.
 *
 * @example
 * ```ts
 * classifyError(new RangeError("Array buffer allocation failed")).kind; // "memory"
 * ```
 */
export function classifyError(error: unknown): Outcome {
  if (isBcolzError(error) && Object.prototype.hasOwnProperty.call(ERROR_CODES, error.code)) return { kind: "typed", code: error.code };
  const name = error instanceof Error ? error.name : typeof error;
  const message = error instanceof Error ? error.message : String(error);
  if (error instanceof RangeError && /allocation failed|out of memory/i.test(message)) return { kind: "memory", message: `${name}: ${message}` };
  const outcome: Outcome = { kind: "untyped", message: `${name}: ${message}` };
  if (error instanceof Error && error.stack !== undefined) outcome.stack = error.stack;
  return outcome;
}

/**
 * A key that groups findings of the same bug: class plus the error's first message line without
 * numbers (so "offset 17" and "offset 93" are one bug).
 *
 * @example
 * ```ts
 * signature({ kind: "untyped", message: "TypeError: x at 12" }); // "untyped TypeError: x at #"
 * ```
 */
export function signature(outcome: Outcome): string {
  const first = (outcome.message ?? "").split("\n")[0]!.replace(/\d+/g, "#");
  return outcome.kind === "untyped" ? `untyped ${first}` : outcome.kind;
}
