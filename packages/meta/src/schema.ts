import { FormatError } from "@fmt/errors";
import { PyFloat, jsonObjectKeys, jsonPointer, stringifyPythonJson, type JsonObject, type JsonValue } from "./json.js";
import { schemaRegistry } from "./generated/schemas.js";

/**
 * A JSON Schema (draft 2020-12) in the subset {@link validateJsonSchema} implements: `type`
 * (including `integer`), `properties`, `required`, `additionalProperties`, `items`, `prefixItems`,
 * `minItems`, `maxItems`, `enum`, `const`, `minimum`, `maximum`, `minLength`, `maxLength`,
 * `pattern`, `oneOf`, `anyOf` and `$ref` (by `$id`); annotations are ignored.
 *
 * @example
 * ```ts
 * const s: JsonSchema = { type: "integer", minimum: 0 };
 * ```
 */
export type JsonSchema = boolean | { readonly [keyword: string]: unknown };

/**
 * Options of {@link validateJsonSchema}.
 *
 * @example
 * ```ts
 * validateJsonSchema(sizesSchema, doc, { path: "meta/sizes" });
 * ```
 */
export interface ValidateOptions {
  /** File the document came from, copied into the error. */
  path?: string;
  /** Schemas by `$id` for `$ref`; defaults to the generated {@link schemaRegistry}. */
  registry?: Readonly<Record<string, JsonSchema>>;
}

interface Failure {
  pointer: string;
  reason: string;
  expected: string;
  actual: JsonValue | undefined;
}

const KNOWN = new Set([
  "$schema", "$id", "title", "description", "$comment",
  "type", "properties", "required", "additionalProperties", "items", "prefixItems", "minItems", "maxItems",
  "enum", "const", "minimum", "maximum", "minLength", "maxLength", "pattern", "oneOf", "anyOf", "$ref",
]);

const patternCache = new Map<string, RegExp>();

function regex(pattern: string): RegExp {
  let re = patternCache.get(pattern);
  if (re === undefined) {
    re = new RegExp(pattern, "u");
    patternCache.set(pattern, re);
  }
  return re;
}

function isObject(v: JsonValue | undefined): v is JsonObject {
  return typeof v === "object" && v !== null && !Array.isArray(v) && !(v instanceof PyFloat);
}

function hasType(v: JsonValue | undefined, type: string): boolean {
  switch (type) {
    case "null":
      return v === null;
    case "boolean":
      return typeof v === "boolean";
    case "string":
      return typeof v === "string";
    // A Python int only: a float such as 5.0 is not accepted where bcolz expects an int.
    case "integer":
      return (typeof v === "number" && Number.isInteger(v)) || typeof v === "bigint";
    case "number":
      return typeof v === "number" || typeof v === "bigint" || v instanceof PyFloat;
    case "array":
      return Array.isArray(v);
    case "object":
      return isObject(v);
    default:
      throw new TypeError(`schema uses unknown type ${type}`);
  }
}

/** -1, 0, 1 or NaN (unordered) comparing a JSON number with a schema bound. */
function compare(v: number | bigint | PyFloat, bound: number): number {
  if (typeof v === "bigint") {
    if (Number.isInteger(bound)) {
      const b = BigInt(bound);
      return v < b ? -1 : v > b ? 1 : 0;
    }
    v = Number(v);
  }
  const x = v instanceof PyFloat ? v.value : v;
  if (Number.isNaN(x)) return Number.NaN;
  return x < bound ? -1 : x > bound ? 1 : 0;
}

function jsonEqual(a: JsonValue | undefined, b: unknown): boolean {
  if ((typeof a === "number" || typeof a === "bigint") && (typeof b === "number" || typeof b === "bigint")) {
    // Python compares 1 == 1 across its one int type; mirror that across number and bigint.
    if (typeof a === "number" && !Number.isInteger(a)) return a === b;
    if (typeof b === "number" && !Number.isInteger(b)) return a === b;
    return BigInt(a) === BigInt(b);
  }
  if (a instanceof PyFloat || b instanceof PyFloat) {
    return a instanceof PyFloat && b instanceof PyFloat && Object.is(a.value, b.value);
  }
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((x, i) => jsonEqual(x, b[i]));
  if (isObject(a)) {
    if (typeof b !== "object" || b === null || Array.isArray(b)) return false;
    const ka = Object.keys(a);
    const kb = Object.keys(b);
    return ka.length === kb.length && ka.every((k) => Object.prototype.hasOwnProperty.call(b, k) && jsonEqual(a[k], (b as Record<string, unknown>)[k]));
  }
  return a === b;
}

function show(v: unknown): string {
  return typeof v === "string" ? JSON.stringify(v) : typeof v === "bigint" ? v.toString() : String(v);
}

/** A short description of what a schema accepts, for `expected` in errors. */
function describeSchema(schema: JsonSchema, registry: Readonly<Record<string, JsonSchema>>, depth = 0): string {
  if (schema === true) return "any value";
  if (schema === false) return "nothing";
  if (depth > 4) return "a valid value";
  if (typeof schema.$ref === "string") {
    const target = registry[schema.$ref];
    return target === undefined ? schema.$ref : describeSchema(target, registry, depth + 1);
  }
  if (schema.const !== undefined) return show(schema.const);
  if (Array.isArray(schema.enum)) return `one of ${schema.enum.map(show).join(", ")}`;
  const alts = (schema.anyOf ?? schema.oneOf) as JsonSchema[] | undefined;
  if (Array.isArray(alts)) return alts.map((s) => describeSchema(s, registry, depth + 1)).join(" or ");
  const types = schema.type === undefined ? [] : Array.isArray(schema.type) ? (schema.type as string[]) : [schema.type as string];
  const words = types.map((t) => (t === "integer" ? "an integer" : t === "array" ? "an array" : t === "object" ? "an object" : `a ${t}`));
  let text = words.length > 0 ? words.join(" or ") : "a value";
  const min = schema.minimum;
  const max = schema.maximum;
  if (typeof min === "number" && typeof max === "number") text += ` in [${min}, ${max}]`;
  else if (typeof min === "number") text += ` >= ${min}`;
  else if (typeof max === "number") text += ` <= ${max}`;
  if (typeof schema.minLength === "number") text += ` of length >= ${schema.minLength}`;
  if (typeof schema.pattern === "string") text += ` matching /${schema.pattern}/`;
  return text;
}

class Validator {
  constructor(private readonly registry: Readonly<Record<string, JsonSchema>>) {}

  check(schema: JsonSchema, v: JsonValue | undefined, pointer: string[]): Failure | undefined {
    if (schema === true) return undefined;
    const here = (): string => jsonPointer(pointer);
    if (schema === false) return { pointer: here(), reason: "no value is allowed here", expected: "nothing", actual: v };
    for (const key of Object.keys(schema)) {
      if (!KNOWN.has(key)) throw new TypeError(`schema keyword ${key} is not supported`);
    }
    const fail = (reason: string, expected: string = describeSchema(schema, this.registry)): Failure => ({ pointer: here(), reason, expected, actual: v });

    if (typeof schema.$ref === "string") {
      const target = this.registry[schema.$ref];
      if (target === undefined) throw new TypeError(`unresolved $ref ${schema.$ref}`);
      const f = this.check(target, v, pointer);
      if (f !== undefined) return f;
    }
    if (schema.type !== undefined) {
      const types = Array.isArray(schema.type) ? (schema.type as string[]) : [schema.type as string];
      if (!types.some((t) => hasType(v, t))) return fail("wrong type");
    }
    if (schema.const !== undefined && !jsonEqual(v, schema.const)) return fail("wrong value");
    if (Array.isArray(schema.enum) && !schema.enum.some((e) => jsonEqual(v, e))) return fail("value not allowed");
    if (typeof v === "number" || typeof v === "bigint" || v instanceof PyFloat) {
      if (typeof schema.minimum === "number" && !(compare(v, schema.minimum) >= 0)) return fail("number too small");
      if (typeof schema.maximum === "number" && !(compare(v, schema.maximum) <= 0)) return fail("number too large");
    }
    if (typeof v === "string") {
      // Lengths count code points, as JSON Schema specifies.
      const needsLength = typeof schema.minLength === "number" || typeof schema.maxLength === "number";
      const length = needsLength ? [...v].length : 0;
      if (typeof schema.minLength === "number" && length < schema.minLength) return fail("string too short");
      if (typeof schema.maxLength === "number" && length > schema.maxLength) return fail("string too long");
      if (typeof schema.pattern === "string" && !regex(schema.pattern).test(v)) return fail("string does not match the pattern");
    }
    if (Array.isArray(v)) {
      if (typeof schema.minItems === "number" && v.length < schema.minItems) return fail("too few items", `at least ${schema.minItems} items`);
      if (typeof schema.maxItems === "number" && v.length > schema.maxItems) return fail("too many items", `at most ${schema.maxItems} items`);
      const prefix = Array.isArray(schema.prefixItems) ? (schema.prefixItems as JsonSchema[]) : [];
      for (let i = 0; i < v.length; i++) {
        const sub = i < prefix.length ? prefix[i] : (schema.items as JsonSchema | undefined);
        if (sub === undefined) continue;
        const f = this.check(sub, v[i], [...pointer, String(i)]);
        if (f !== undefined) return f;
      }
    }
    if (isObject(v)) {
      const props = (schema.properties ?? {}) as Record<string, JsonSchema>;
      if (Array.isArray(schema.required)) {
        for (const key of schema.required as string[]) {
          if (!Object.prototype.hasOwnProperty.call(v, key)) {
            return { pointer: jsonPointer([...pointer, key]), reason: "missing required property", expected: describeSchema(props[key] ?? true, this.registry), actual: undefined };
          }
        }
      }
      for (const key of jsonObjectKeys(v)) {
        const own = Object.prototype.hasOwnProperty.call(props, key) ? props[key] : undefined;
        const sub = own ?? (schema.additionalProperties as JsonSchema | undefined);
        if (sub === undefined) continue;
        if (sub === false && own === undefined) {
          return { pointer: jsonPointer([...pointer, key]), reason: "unknown property", expected: `only ${Object.keys(props).join(", ")}`, actual: v[key] };
        }
        const f = this.check(sub, v[key], [...pointer, key]);
        if (f !== undefined) return f;
      }
    }
    if (Array.isArray(schema.anyOf)) {
      const alts = schema.anyOf as JsonSchema[];
      if (!alts.some((s) => this.check(s, v, pointer) === undefined)) return fail("matches none of the alternatives");
    }
    if (Array.isArray(schema.oneOf)) {
      const alts = schema.oneOf as JsonSchema[];
      const passing = alts.filter((s) => this.check(s, v, pointer) === undefined).length;
      if (passing !== 1) return fail(passing === 0 ? "matches none of the alternatives" : "matches more than one alternative");
    }
    return undefined;
  }
}

function display(v: JsonValue | undefined): string {
  if (v === undefined) return "nothing";
  const text = stringifyPythonJson(v);
  return text.length > 80 ? `${text.slice(0, 80)}…` : text;
}

/**
 * Validates a parsed document against a {@link JsonSchema}, understanding this dialect's values:
 * `bigint` and safe-integer `number` are JSON Schema integers, a {@link PyFloat} is a number but
 * never an integer (where bcolz expects a Python int, `5.0` is wrong), NaN satisfies no
 * `minimum`/`maximum`. Throws `FormatError` `BAD_METADATA` for the first violation, with `path`,
 * `field` = the JSON pointer of the offending value (`"/cparams/clevel"`) and `expected`.
 *
 * @example
 * ```ts
 * validateJsonSchema(storageSchema, parsePythonJson(text, "meta/storage"), { path: "meta/storage" });
 * // FormatError BAD_METADATA, field "/cparams/clevel", expected "an integer in [0, 9]"
 * ```
 */
export function validateJsonSchema(schema: JsonSchema, value: JsonValue, options: ValidateOptions = {}): void {
  const registry = options.registry ?? schemaRegistry;
  const failure = new Validator(registry).check(schema, value, []);
  if (failure !== undefined) {
    throw new FormatError("BAD_METADATA", failure.reason, {
      path: options.path,
      field: failure.pointer,
      expected: failure.expected,
      actual: display(failure.actual),
    });
  }
}
