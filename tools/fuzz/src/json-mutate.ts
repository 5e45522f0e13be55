/**
 * Structure-aware edits of a JSON text: parse, change one value, key or array of the tree,
 * print again. Byte edits mostly produce text that is not JSON; these reach the schema checks
 * and cross-field rules behind the parser.
 *
 * @example
 * ```ts
 * const edited = mutateJson(new Rng(1), new TextEncoder().encode('{"shape": [3], "nrows": 3}'));
 * ```
 * @packageDocumentation
 */
import type { Rng } from "./rng.js";

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

// Replacement values: numeric edges (negative, fractional, beyond 2^53 and 2^63, huge), other
// types, names that are paths or not identifiers, and containers of the wrong shape.
const REPLACEMENTS: readonly Json[] = [
  0, -1, 1, 2, 0.5, -0, 255, 256, 65536, 2147483647, 2147483648, 4294967296, 2 ** 53 + 1, 1e15, 1e300, 2 ** 64,
  "", "..", "../x", "a/b", "a b", "1abc", "a\u0001b", "\u00e9", ".lock", "<i4", "|S0", "<U0", "int32", "zstd", "lz4hc", "nope",
  null, true, false, [], [0], [3000, 0], [-1], [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33],
  {}, { clevel: 5, shuffle: 1, cname: "lz4" },
];

// A fresh copy each time: edits change the tree in place, and must never reach the shared list.
function replacement(rng: Rng): Json {
  return structuredClone(rng.pick(REPLACEMENTS));
}

function paths(value: Json, at: (string | number)[], out: (string | number)[][]): void {
  out.push(at);
  if (Array.isArray(value)) value.forEach((v, i) => paths(v, [...at, i], out));
  else if (value !== null && typeof value === "object") for (const k of Object.keys(value)) paths(value[k]!, [...at, k], out);
}

function edit(rng: Rng, root: Json): Json {
  const all: (string | number)[][] = [];
  paths(root, [], all);
  const path = rng.pick(all);
  if (path.length === 0) return rng.chance(0.5) ? replacement(rng) : [root];
  let parent: Json = root;
  for (const step of path.slice(0, -1)) parent = (parent as { [k: string]: Json })[step as string]!;
  const last = path[path.length - 1]!;
  const container = parent as { [k: string]: Json } & Json[];
  const action = rng.below(6);
  if (action === 0) {
    if (Array.isArray(container)) container.splice(last as number, 1);
    else delete container[last as string];
  } else if (action === 1 && !Array.isArray(container)) {
    // Rename a key: the schema sees an unknown key and misses a required one.
    const value = container[last as string];
    delete container[last as string];
    container[rng.pick(["", "x", `${String(last)}_`, "__proto__", "constructor", String(last).toUpperCase()])] = value;
  } else if (action === 2 && Array.isArray(container)) {
    container.splice(last as number, 0, structuredClone(container[last as number]!));
  } else if (action === 3) {
    const value = container[last as string];
    container[last as string] = typeof value === "number" ? value + rng.pick([-1, 1, 0.5, 1e6, -1e6]) : typeof value === "string" ? value + rng.pick(["x", "\u0000", "/", "'"]) : replacement(rng);
  } else {
    container[last as string] = replacement(rng);
  }
  return root;
}

/**
 * One to three structural edits of `bytes` as JSON; returns `undefined` when the text is not
 * standard JSON (the caller then falls back to byte edits).
 *
 * @example
 * ```ts
 * const out = mutateJson(rng, bytes) ?? mutateBytes(rng, bytes, options);
 * ```
 */
export function mutateJson(rng: Rng, bytes: Uint8Array): Uint8Array | undefined {
  let root: Json;
  try {
    root = JSON.parse(new TextDecoder().decode(bytes)) as Json;
  } catch {
    return undefined;
  }
  const edits = 1 + rng.below(3);
  for (let i = 0; i < edits; i++) root = edit(rng, root);
  return new TextEncoder().encode(JSON.stringify(root, null, rng.chance(0.5) ? 1 : undefined));
}
