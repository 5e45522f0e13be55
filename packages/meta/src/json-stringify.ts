/**
 * The writer of Python's JSON dialect: `json.dumps(value)` with default arguments, byte for byte.
 *
 * @example
 * ```ts
 * import { pyFloat, stringifyPythonJson } from "@fmt/meta";
 * stringifyPythonJson({ dflt: pyFloat(0), n: 3 }); // '{"dflt": 0.0, "n": 3}'
 * ```
 * @module
 */
import { UsageError } from "@fmt/errors";
import { PyFloat, jsonObjectKeys, type JsonObject, type JsonValue } from "./json-value.js";
import { pythonFloatRepr } from "./float-repr.js";
import { escapePointer } from "./json-pointer.js";

const SHORT_ESCAPES: Record<number, string> = {
  0x22: '\\"',
  0x5c: "\\\\",
  0x0a: "\\n",
  0x0d: "\\r",
  0x09: "\\t",
  0x08: "\\b",
  0x0c: "\\f",
};

/**
 * A JSON string literal the way Python's `json.dumps` (ensure_ascii) writes it: printable ASCII as
 * is, `"`, `\`, `\n`, `\r`, `\t`, `\b`, `\f` as short escapes, every other code unit (controls,
 * DEL, non-ASCII, each half of a surrogate pair) as a lowercase `\uXXXX`.
 *
 * @example
 * ```ts
 * pythonJsonString("naïve ☃"); // '"na\\u00efve \\u2603"'
 * ```
 */
export function pythonJsonString(s: string): string {
  let out = '"';
  let runStart = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0x20 && c <= 0x7e && c !== 0x22 && c !== 0x5c) continue;
    out += s.slice(runStart, i);
    out += SHORT_ESCAPES[c] ?? `\\u${c.toString(16).padStart(4, "0")}`;
    runStart = i + 1;
  }
  return `${out}${s.slice(runStart)}"`;
}

// Python's default recursion limit stops json.dumps near this depth too.
const MAX_STRINGIFY_DEPTH = 1000;

/**
 * Serializes like Python's `json.dumps(value)` with default arguments, byte for byte: separators
 * `", "` and `": "`, ASCII only (see {@link pythonJsonString}), `NaN`/`Infinity`/`-Infinity` tokens,
 * floats as Python's `repr` (see {@link pythonFloatRepr}), ints as plain digits. Which numbers are
 * ints: a safe-integer `number` (other than −0) and any `bigint`; floats: {@link PyFloat} and every
 * other `number`. Object keys come out in their recorded order (see {@link jsonObjectKeys}).
 * Throws `UsageError` `INVALID_ARGUMENT` for values JSON cannot hold (undefined, functions,
 * class instances, cycles, nesting deeper than 1000).
 *
 * @example
 * ```ts
 * stringifyPythonJson({ shape: [100000], scale: pyFloat(1), big: 2n ** 64n, bad: NaN });
 * // '{"shape": [100000], "scale": 1.0, "big": 18446744073709551616, "bad": NaN}'
 * ```
 */
export function stringifyPythonJson(value: JsonValue): string {
  const parts: string[] = [];
  const active = new Set<object>();
  write(value, 0, "");
  return parts.join("");

  function bad(pointer: string, reason: string, actual: unknown): never {
    throw new UsageError("INVALID_ARGUMENT", reason, { field: pointer, expected: "a JSON value", actual });
  }

  function write(v: unknown, depth: number, pointer: string): void {
    switch (typeof v) {
      case "string":
        parts.push(pythonJsonString(v));
        return;
      case "boolean":
        parts.push(v ? "true" : "false");
        return;
      case "bigint":
        parts.push(v.toString());
        return;
      case "number":
        parts.push(Number.isSafeInteger(v) && !Object.is(v, -0) ? String(v) : pythonFloatRepr(v));
        return;
      case "object":
        break;
      default:
        bad(pointer, `cannot serialize a ${typeof v}`, typeof v);
    }
    if (v === null) {
      parts.push("null");
      return;
    }
    if (v instanceof PyFloat) {
      parts.push(pythonFloatRepr(v.value));
      return;
    }
    if (depth >= MAX_STRINGIFY_DEPTH) bad(pointer, `nesting deeper than ${MAX_STRINGIFY_DEPTH} levels`, depth);
    if (active.has(v)) bad(pointer, "circular reference", "cycle");
    if (Array.isArray(v)) {
      active.add(v);
      parts.push("[");
      for (let i = 0; i < v.length; i++) {
        if (i > 0) parts.push(", ");
        if (!(i in v)) bad(`${pointer}/${i}`, "sparse array hole", "hole");
        write(v[i], depth + 1, `${pointer}/${i}`);
      }
      parts.push("]");
      active.delete(v);
      return;
    }
    const proto = Object.getPrototypeOf(v) as unknown;
    if (proto !== null && proto !== Object.prototype) {
      bad(pointer, "cannot serialize a class instance", v.constructor?.name ?? "object");
    }
    active.add(v);
    const obj = v as JsonObject;
    parts.push("{");
    let first = true;
    for (const key of jsonObjectKeys(obj)) {
      if (!first) parts.push(", ");
      first = false;
      parts.push(pythonJsonString(key), ": ");
      write(obj[key], depth + 1, `${pointer}/${escapePointer(key)}`);
    }
    parts.push("}");
    active.delete(v);
  }
}
