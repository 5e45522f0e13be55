/**
 * One fuzz input: a set of named files. Single-buffer targets (a header, a chunk, a JSON file)
 * use one file named {@link SINGLE}; whole-dataset targets use store keys.
 *
 * @example
 * ```ts
 * const input: FuzzInput = new Map([[SINGLE, Uint8Array.of(1, 2, 3)]]);
 * ```
 */
export type FuzzInput = Map<string, Uint8Array>;

/**
 * The file name of a single-buffer input.
 *
 * @example
 * ```ts
 * const bytes = input.get(SINGLE);
 * ```
 */
export const SINGLE = "input";

/**
 * Wraps one buffer as an input.
 *
 * @example
 * ```ts
 * const input = single(new TextEncoder().encode("<i4"));
 * ```
 */
export function single(bytes: Uint8Array): FuzzInput {
  return new Map([[SINGLE, bytes]]);
}

/**
 * The buffer of a single-buffer input (empty when absent, e.g. after minimization removed it).
 *
 * @example
 * ```ts
 * const text = new TextDecoder().decode(singleBytes(input));
 * ```
 */
export function singleBytes(input: FuzzInput): Uint8Array {
  return input.get(SINGLE) ?? new Uint8Array(0);
}

/**
 * Total bytes over all files of an input.
 *
 * @example
 * ```ts
 * inputSize(single(new Uint8Array(5))); // 5
 * ```
 */
export function inputSize(input: FuzzInput): number {
  let n = 0;
  for (const bytes of input.values()) n += bytes.length;
  return n;
}

/**
 * An input as a structured-clone-friendly list of `[name, bytes]` pairs (for worker messages).
 *
 * @example
 * ```ts
 * worker.postMessage({ files: toEntries(input) });
 * ```
 */
export function toEntries(input: FuzzInput): [string, Uint8Array][] {
  return [...input.entries()];
}
