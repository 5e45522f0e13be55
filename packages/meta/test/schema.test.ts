import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { FormatError } from "@fmt/errors";
import { generateSchemasModule, loadSchemas } from "../../../tools/gen-meta-types/generate.mjs";
import {
  PyFloat,
  parsePythonJson,
  schemaRegistry,
  sizesSchema,
  storageSchema,
  validateJsonSchema,
  type JsonSchema,
  type JsonValue,
} from "../src/index.js";

const GENERATED = fileURLToPath(new URL("../src/generated/schemas.ts", import.meta.url));

function fieldOf(schema: JsonSchema, value: JsonValue): string | undefined {
  try {
    validateJsonSchema(schema, value, { path: "doc" });
    return undefined;
  } catch (e) {
    expect(e).toBeInstanceOf(FormatError);
    expect((e as FormatError).code).toBe("BAD_METADATA");
    expect((e as FormatError).path).toBe("doc");
    return (e as FormatError).field;
  }
}

describe("generated/schemas.ts", () => {
  it("is up to date with spec/schemas (regenerate: node tools/gen-meta-types/generate.mjs)", () => {
    const expected = generateSchemasModule();
    expect(readFileSync(GENERATED, "utf8")).toBe(expected);
  });

  it("embeds every schema file verbatim", () => {
    const entries = loadSchemas();
    expect(entries.map((e) => e.file)).toEqual([
      "attrs.schema.json", "cparams.schema.json", "rootdirs.schema.json", "sizes.schema.json", "storage.schema.json",
      "v2/append.schema.json", "v2/carray-storage.schema.json", "v2/ctable-storage.schema.json", "v2/journal.schema.json",
      "v2/shape.schema.json", "v2/superchunk-meta.schema.json", "v2/vlarray-storage.schema.json",
    ]);
    for (const { schema } of entries) {
      expect(JSON.parse(JSON.stringify(schemaRegistry[schema.$id as keyof typeof schemaRegistry]))).toEqual(schema);
    }
  });

  it("the generator refuses keywords the validator does not implement", () => {
    const bad = [{ file: "x.schema.json", schema: { $id: "urn:x", title: "X", type: "object", patternProperties: {} } }];
    expect(() => generateSchemasModule(bad)).toThrow(/patternProperties/);
  });
});

describe("validateJsonSchema", () => {
  it("treats bigint as integer, PyFloat as number but never integer, NaN as out of every range", () => {
    const int = { type: "integer", minimum: 0, maximum: 2 ** 64 } as const;
    expect(fieldOf(int, 2n ** 63n)).toBeUndefined();
    expect(fieldOf(int, 2n ** 65n)).toBe("");
    expect(fieldOf(int, -1n)).toBe("");
    expect(fieldOf(int, new PyFloat(1))).toBe("");
    expect(fieldOf({ type: "number" }, new PyFloat(Number.NaN))).toBeUndefined();
    expect(fieldOf({ type: "number", minimum: 0 }, new PyFloat(Number.NaN))).toBe("");
    expect(fieldOf({ type: "number", maximum: 1 }, new PyFloat(Number.POSITIVE_INFINITY))).toBe("");
    expect(fieldOf({ type: "number", maximum: 1 }, 1n)).toBeUndefined();
  });

  it("implements prefixItems, items, min/maxItems, enum, const, pattern, min/maxLength, anyOf, oneOf, $ref", () => {
    const tuple = { type: "array", prefixItems: [{ type: "string" }, { type: "integer" }], items: { type: "boolean" }, minItems: 2, maxItems: 3 };
    expect(fieldOf(tuple, ["a", 1])).toBeUndefined();
    expect(fieldOf(tuple, ["a", 1, true])).toBeUndefined();
    expect(fieldOf(tuple, ["a", "b"])).toBe("/1");
    expect(fieldOf(tuple, ["a", 1, 3])).toBe("/2");
    expect(fieldOf(tuple, ["a"])).toBe("");
    expect(fieldOf(tuple, ["a", 1, true, false])).toBe("");
    expect(fieldOf({ enum: [0, 1, true] }, 1n)).toBeUndefined();
    expect(fieldOf({ enum: [0, 1, true] }, new PyFloat(1))).toBe("");
    expect(fieldOf({ enum: [0, 1, true] }, false)).toBe("");
    expect(fieldOf({ const: "x" }, "y")).toBe("");
    expect(fieldOf({ type: "string", pattern: "^[a-z]+$", minLength: 2, maxLength: 3 }, "ab")).toBeUndefined();
    expect(fieldOf({ type: "string", pattern: "^[a-z]+$" }, "aB")).toBe("");
    expect(fieldOf({ type: "string", minLength: 2 }, "\u{1F600}")).toBe(""); // one code point
    expect(fieldOf({ type: "string", maxLength: 3 }, "abcd")).toBe("");
    const alt = { anyOf: [{ type: "string" }, { type: "integer", minimum: 5 }] };
    expect(fieldOf(alt, 7)).toBeUndefined();
    expect(fieldOf(alt, 3)).toBe("");
    const one = { oneOf: [{ type: "integer" }, { type: "number" }] };
    expect(fieldOf(one, new PyFloat(0.5))).toBeUndefined();
    expect(fieldOf(one, 3)).toBe(""); // both match
    expect(fieldOf({ type: "object", properties: { c: { $ref: "urn:fmt:bcolz:v1:cparams" } } }, parsePythonJson('{"c": {"clevel": 1, "shuffle": 9}}'))).toBe("/c/shuffle");
    expect(fieldOf({ type: ["string", "null"] }, null)).toBeUndefined();
    expect(fieldOf({ type: "object", additionalProperties: { type: "integer" } }, parsePythonJson('{"a/b": 1, "c~": "x"}'))).toBe("/c~0");
  });

  it("escapes pointer segments and names the expected value", () => {
    try {
      validateJsonSchema(storageSchema, parsePythonJson('{"dtype": "int8", "cparams": {"clevel": 11, "shuffle": 1}, "chunklen": 1, "expectedlen": 0, "dflt": 0}'), { path: "m" });
      throw new Error("accepted");
    } catch (e) {
      expect(e).toMatchObject({ code: "BAD_METADATA", field: "/cparams/clevel", expected: "an integer in [0, 9]", actual: "11" });
    }
  });

  it("never throws anything but BAD_METADATA on arbitrary documents", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (v) => {
        for (const schema of [sizesSchema, storageSchema]) {
          try {
            validateJsonSchema(schema, v as JsonValue);
          } catch (e) {
            expect(e).toBeInstanceOf(FormatError);
            expect((e as FormatError).code).toBe("BAD_METADATA");
          }
        }
      }),
      { numRuns: 1000 },
    );
  });
});
