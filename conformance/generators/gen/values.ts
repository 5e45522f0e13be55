/**
 * Element values of the case descriptions: fast-check arbitraries of one element of a dtype, in the
 * JSON encoding of genlib/values.py, and of strings and compressible runs.
 */
import fc from "fast-check";
import type { Json } from "./types.js";

// ------------------------------------------------------------------------------ values

const SPECIAL_FLOATS = ["NaN", "Infinity", "-Infinity", "-0"] as const;

function floatJson(x: number): Json {
  if (Number.isNaN(x)) return "NaN";
  if (x === Infinity) return "Infinity";
  if (x === -Infinity) return "-Infinity";
  if (Object.is(x, -0)) return "-0";
  return x;
}

export const hex = (b: Uint8Array): string => Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");

/** Code points without surrogates and NUL, mostly ASCII. */
const codePoint = fc.oneof(
  { weight: 3, arbitrary: fc.integer({ min: 0x20, max: 0x7e }) },
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 0x10ffff }).filter((c) => c < 0xd800 || c > 0xdfff) },
);

/** A string of at most `max` code points (no surrogates, no NUL). */
export const text = (max: number): fc.Arbitrary<string> =>
  fc.array(codePoint, { maxLength: max }).map((cps) => String.fromCodePoint(...cps));

/** The element arbitrary of a dtype in the JSON encoding of genlib/values.py. */
export function elementArb(dtype: string): fc.Arbitrary<Json> {
  const kind = dtype.slice(1, 2);
  const size = Number(dtype.slice(2).replace(/\[.*$/, ""));
  switch (kind) {
    case "b":
      return fc.boolean();
    case "i":
      if (size === 8) return fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }).map(String);
      return fc.integer({ min: -(2 ** (8 * size - 1)), max: 2 ** (8 * size - 1) - 1 });
    case "u":
      if (size === 8) return fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }).map(String);
      return fc.integer({ min: 0, max: 2 ** (8 * size) - 1 });
    case "f":
      if (size === 2)
        return fc.oneof(
          { weight: 8, arbitrary: fc.integer({ min: -2047, max: 2047 }).map((k) => k / 8) },
          { weight: 1, arbitrary: fc.constantFrom<Json>(...SPECIAL_FLOATS, 65504, -65504) },
        );
      return (size === 4 ? fc.float() : fc.double()).map(floatJson);
    case "S":
      return fc.uint8Array({ maxLength: size }).map(hex);
    case "U":
      return text(size);
    case "M":
      return fc.oneof(
        { weight: 1, arbitrary: fc.constant(String(-(2n ** 63n))) },
        { weight: 9, arbitrary: fc.bigInt({ min: -(2n ** 62n), max: 2n ** 62n }).map(String) },
      );
    default:
      throw new Error(`no element arbitrary for ${dtype}`);
  }
}

/** Element values that compress well (runs of a few values), so that c-blosc does not memcpy. */
export function runsArb(dtype: string, count: number): fc.Arbitrary<Json[]> {
  return fc.array(elementArb(dtype), { minLength: 1, maxLength: 3 }).chain((pool) =>
    fc.array(fc.nat(pool.length - 1), { minLength: count, maxLength: count }).map((idx) =>
      // runs of 16 equal elements
      Array.from({ length: count }, (_, k) => pool[idx[Math.floor(k / 16) % idx.length] ?? 0] ?? null),
    ),
  );
}
