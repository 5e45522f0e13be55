// Values for the input-buffer tests: a rounded random walk (compresses like the bench's data),
// and an exact comparison that is fast on large arrays (the matcher's diff is not).

/**
 * `length` values of a random walk from `seed`, rounded to three decimals.
 *
 * @example
 * ```ts
 * const values = randomWalk(8192 * 30 + 321, 11);
 * ```
 */
export function randomWalk(length: number, seed: number): Float64Array {
  const values = new Float64Array(length);
  let state = seed;
  let level = 0;
  for (let i = 0; i < length; i++) {
    state = (state * 1103515245 + 12345) >>> 0;
    level += state / 2 ** 32 - 0.5;
    values[i] = Math.round(level * 1000) / 1000;
  }
  return values;
}

/**
 * Whether `got` holds exactly `want`'s values (`Object.is` each).
 *
 * @example
 * ```ts
 * expect(sameValues(await a.read() as Float64Array, values)).toBe(true);
 * ```
 */
export function sameValues(got: ArrayLike<number>, want: ArrayLike<number>): boolean {
  if (got.length !== want.length) return false;
  for (let i = 0; i < want.length; i++) if (!Object.is(got[i], want[i])) return false;
  return true;
}
