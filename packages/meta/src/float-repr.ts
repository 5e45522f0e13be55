/**
 * Python's `repr()` of a float, the spelling `json.dumps` gives every float it writes.
 *
 * @example
 * ```ts
 * import { pythonFloatRepr } from "@fmt/meta";
 * pythonFloatRepr(1e-5); // "1e-05"
 * ```
 * @module
 */

/**
 * Python's `repr()` of a float: the shortest digits that round-trip, in positional notation when
 * the decimal exponent is in [−4, 16), else in scientific notation with a signed, at least
 * two-digit exponent (`1e-05`, `1e+16`, `1.2345678901234568e+17`); positional values always carry a
 * fraction (`1.0`). Non-finite values are spelled the way `json.dumps` does: `NaN`, `Infinity`,
 * `-Infinity`.
 *
 * @example
 * ```ts
 * pythonFloatRepr(1e16);   // "1e+16"
 * pythonFloatRepr(1e15);   // "1000000000000000.0"
 * pythonFloatRepr(0.0001); // "0.0001"
 * pythonFloatRepr(-0);     // "-0.0"
 * ```
 */
export function pythonFloatRepr(x: number): string {
  if (Number.isNaN(x)) return "NaN";
  if (x === Number.POSITIVE_INFINITY) return "Infinity";
  if (x === Number.NEGATIVE_INFINITY) return "-Infinity";
  if (x === 0) return Object.is(x, -0) ? "-0.0" : "0.0";
  const sign = x < 0 ? "-" : "";
  // toExponential() without an argument gives the shortest round-tripping digits, like repr.
  const sci = Math.abs(x).toExponential();
  const eAt = sci.indexOf("e");
  const digits = sci.slice(0, eAt).replace(".", "");
  const exp = Number(sci.slice(eAt + 1));
  if (exp < -4 || exp >= 16) {
    const mantissa = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    return `${sign}${mantissa}e${exp < 0 ? "-" : "+"}${String(Math.abs(exp)).padStart(2, "0")}`;
  }
  if (exp >= 0) {
    if (digits.length <= exp + 1) return `${sign}${digits}${"0".repeat(exp + 1 - digits.length)}.0`;
    return `${sign}${digits.slice(0, exp + 1)}.${digits.slice(exp + 1)}`;
  }
  return `${sign}0.${"0".repeat(-exp - 1)}${digits}`;
}
