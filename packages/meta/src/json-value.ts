/**
 * The values of Python's JSON dialect: {@link PyFloat}, the {@link JsonValue} and
 * {@link JsonObject} types, and JSON objects that keep their key order like a Python dict.
 *
 * @example
 * ```ts
 * import { createJsonObject, jsonObjectKeys, pyFloat } from "@fmt/meta";
 * jsonObjectKeys(createJsonObject([["b", pyFloat(1)], ["10", 2]])); // ["b", "10"]
 * ```
 * @module
 */
import { pythonFloatRepr } from "./float-repr.js";

/**
 * A Python `float` that came from (or is meant for) a JSON document.
 *
 * Python writes `0.0` and `0` differently and bcolz relies on it (`"dflt": 0.0` for float arrays,
 * `"dflt": 0` for integer arrays), but a JavaScript `number` cannot tell them apart. So the parser
 * returns every number literal that has a fraction or an exponent (`1.0`, `0.5`, `1e-05`, `NaN`,
 * `Infinity`) as a `PyFloat`, and every plain integer literal as a `number` (or a `bigint` beyond
 * ±(2^53−1)). `stringifyPythonJson` writes a `PyFloat` with Python's float `repr`, which makes
 * parse → stringify reproduce Python's output byte for byte. `valueOf()` makes `Number(x)`, `+x`
 * and arithmetic work.
 *
 * @example
 * ```ts
 * const v = parsePythonJson('{"dflt": 0.0}') as { dflt: PyFloat };
 * v.dflt instanceof PyFloat;            // true
 * Number(v.dflt);                       // 0
 * stringifyPythonJson(new PyFloat(1));  // "1.0"
 * ```
 */
export class PyFloat {
  /** The IEEE-754 double value (may be NaN, ±Infinity or −0). */
  readonly value: number;

  constructor(value: number) {
    this.value = value;
    Object.freeze(this);
  }

  /** The number itself, so `Number(x)` and `x + 1` work. */
  valueOf(): number {
    return this.value;
  }

  /** Python's `repr(float)`: `"1.0"`, `"1e-05"`, `"NaN"`. */
  toString(): string {
    return pythonFloatRepr(this.value);
  }

  /** For `JSON.stringify` (non-finite values become `null` there, as usual). */
  toJSON(): number {
    return this.value;
  }
}

/**
 * Shorthand for `new PyFloat(value)`: marks a number to be written as a Python float.
 *
 * @example
 * ```ts
 * stringifyPythonJson({ dflt: pyFloat(0) }); // '{"dflt": 0.0}'
 * ```
 */
export function pyFloat(value: number): PyFloat {
  return new PyFloat(value);
}

/**
 * A JSON object as parsed by {@link parsePythonJson}: a null-prototype object (so a `"__proto__"`
 * key is an ordinary own property) that remembers the order of its keys.
 *
 * @example
 * ```ts
 * const o: JsonObject = parsePythonJson('{"b": 1, "a": 2}') as JsonObject;
 * Object.keys(o); // ["b", "a"]
 * ```
 */
export interface JsonObject {
  [key: string]: JsonValue;
}

/**
 * A value of Python's JSON dialect: `null`, booleans, strings, arrays, objects, Python ints
 * (`number` when within ±(2^53−1), else `bigint`) and Python floats ({@link PyFloat}). A plain
 * `number` that is not a safe integer (`0.5`, `1e300`, `NaN`) is also written as a float.
 *
 * @example
 * ```ts
 * const v: JsonValue = { shape: [10, 3], nbytes: 240n, scale: pyFloat(0.5), ok: true, none: null };
 * ```
 */
export type JsonValue = null | boolean | number | bigint | string | PyFloat | JsonValue[] | JsonObject;

/**
 * Hidden per-object key order. JavaScript enumerates integer-like keys ("10") before the others
 * whatever the insertion order, while Python keeps insertion order; recording the parsed order lets
 * {@link stringifyPythonJson} write keys back exactly as they came.
 */
export const KEY_ORDER: unique symbol = Symbol("fmt.meta.keyOrder");

/** A {@link JsonObject} that may carry its recorded key order under {@link KEY_ORDER} (internal). */
export type OrderedObject = JsonObject & { [KEY_ORDER]?: string[] };

/** Sets `key` as an enumerable, writable own data property, even for `"__proto__"` (internal). */
export function defineKey(target: JsonObject, key: string, value: JsonValue): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/**
 * Builds a {@link JsonObject} with the given key order (a null-prototype object whose order
 * {@link stringifyPythonJson} honours even for integer-like keys). A repeated key keeps its first
 * position and its last value, like a Python dict.
 *
 * @example
 * ```ts
 * const o = createJsonObject([["b", 1], ["10", 2]]);
 * stringifyPythonJson(o); // '{"b": 1, "10": 2}'
 * ```
 */
export function createJsonObject(entries: Iterable<readonly [string, JsonValue]>): JsonObject {
  const out = Object.create(null) as OrderedObject;
  const order: string[] = [];
  for (const [key, value] of entries) {
    if (!Object.prototype.hasOwnProperty.call(out, key)) order.push(key);
    defineKey(out, key, value);
  }
  Object.defineProperty(out, KEY_ORDER, { value: order, enumerable: false, writable: true, configurable: true });
  return out;
}

/**
 * The keys of a JSON object in the order {@link stringifyPythonJson} writes them: the recorded
 * (parsed or {@link createJsonObject}) order for keys still present, then any keys added later.
 *
 * @example
 * ```ts
 * jsonObjectKeys(parsePythonJson('{"z": 1, "1": 2}') as JsonObject); // ["z", "1"]
 * ```
 */
export function jsonObjectKeys(obj: JsonObject): string[] {
  const own = Object.keys(obj);
  const order = (obj as OrderedObject)[KEY_ORDER];
  if (order === undefined) return own;
  const present = new Set(own);
  const out: string[] = [];
  const seen = new Set<string>();
  for (const key of order) {
    if (present.has(key) && !seen.has(key)) {
      out.push(key);
      seen.add(key);
    }
  }
  for (const key of own) if (!seen.has(key)) out.push(key);
  return out;
}
