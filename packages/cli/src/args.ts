/**
 * Parsing of numeric command-line arguments; a bad value becomes commander's
 * `InvalidArgumentError` (one-line message, exit 2).
 */
import { InvalidArgumentError } from "commander";

/**
 * Parses a decimal integer (optionally negative); anything else is refused.
 *
 * @example
 * ```ts
 * parseInteger("-3"); // -3
 * parseInteger("abc"); // throws InvalidArgumentError
 * ```
 */
export function parseInteger(text: string): number {
  if (!/^-?\d+$/.test(text.trim())) throw new InvalidArgumentError(`expected an integer, got "${text}"`);
  const n = Number(text);
  if (!Number.isSafeInteger(n)) throw new InvalidArgumentError(`integer out of range: ${text}`);
  return n;
}

/**
 * Parses an integer that must be at least 0.
 *
 * @example
 * ```ts
 * parseCount("10"); // 10
 * ```
 */
export function parseCount(text: string): number {
  const n = parseInteger(text);
  if (n < 0) throw new InvalidArgumentError(`expected a non-negative integer, got ${text}`);
  return n;
}

/**
 * Parses an integer that must be at least 1.
 *
 * @example
 * ```ts
 * parsePositive("2"); // 2
 * ```
 */
export function parsePositive(text: string): number {
  const n = parseInteger(text);
  if (n < 1) throw new InvalidArgumentError(`expected an integer >= 1, got ${text}`);
  return n;
}

/**
 * Splits a comma-separated list of column names, dropping empty entries.
 *
 * @example
 * ```ts
 * parseList("a,b"); // ["a", "b"]
 * ```
 */
export function parseList(text: string): string[] {
  const names = text.split(",").map((s) => s.trim()).filter((s) => s !== "");
  if (names.length === 0) throw new InvalidArgumentError("expected a comma-separated list of names");
  return names;
}

/**
 * A row selection resolved against a length, like Python's `slice(start, stop, step).indices(n)`.
 *
 * @example
 * ```ts
 * const s: ResolvedSlice = resolveSlice(100, -10); // { start: 90, stop: 100, step: 1, count: 10 }
 * ```
 */
export interface ResolvedSlice {
  /** First row. */
  start: number;
  /** One past the last row considered. */
  stop: number;
  /** Row step, at least 1. */
  step: number;
  /** Number of selected rows. */
  count: number;
}

/**
 * Resolves `start`/`stop` (negative counts from the end, clamped) and a positive `step`.
 *
 * @example
 * ```ts
 * resolveSlice(10, -3); // { start: 7, stop: 10, step: 1, count: 3 }
 * ```
 */
export function resolveSlice(length: number, start?: number, stop?: number, step = 1): ResolvedSlice {
  const fix = (v: number | undefined, dflt: number): number => {
    if (v === undefined) return dflt;
    const w = v < 0 ? v + length : v;
    return Math.min(Math.max(w, 0), length);
  };
  const a = fix(start, 0);
  const b = Math.max(a, fix(stop, length));
  return { start: a, stop: b, step, count: Math.ceil((b - a) / step) };
}
