// Row-bound checks shared by where queries and @fmt/store, so both read `start`/`stop` with the
// same Python slice rules and report bad bounds with the same errors.
import { UsageError } from "@fmt/errors";

/**
 * Checks a row index or bound: a safe integer, else `UsageError` `INVALID_ARGUMENT` naming
 * `field`.
 *
 * @example
 * ```ts
 * checkInteger(5, "start");   // 5
 * checkInteger(1.5, "start"); // throws UsageError INVALID_ARGUMENT
 * ```
 * @internal
 */
export function checkInteger(value: unknown, field: string): number {
  if (typeof value !== "number" || !Number.isSafeInteger(value)) {
    throw new UsageError("INVALID_ARGUMENT", "expected an integer", { field, expected: "safe integer", actual: value });
  }
  return value;
}

/**
 * Python slice semantics (positive step): normalised `[start, stop)` clamped to `[0, length]`.
 *
 * @example
 * ```ts
 * normalizeSlice(10, -3, undefined, undefined); // { start: 7, stop: 10, step: 1 }
 * ```
 * @internal
 */
export function normalizeSlice(length: number, start: number | undefined, stop: number | undefined, step: number | undefined): { start: number; stop: number; step: number } {
  const s = step === undefined ? 1 : checkInteger(step, "step");
  if (s < 1) throw new UsageError("INVALID_ARGUMENT", "step must be a positive integer", { field: "step", expected: ">= 1", actual: s });
  const clamp = (value: number | undefined, fallback: number, field: string): number => {
    if (value === undefined) return fallback;
    const v = checkInteger(value, field);
    const absolute = v < 0 ? v + length : v;
    return Math.min(Math.max(absolute, 0), length);
  };
  const a = clamp(start, 0, "start");
  const b = clamp(stop, length, "stop");
  return { start: a, stop: Math.max(a, b), step: s };
}
