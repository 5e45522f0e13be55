#!/usr/bin/env node
// Generates packages/meta/src/generated/schemas.ts from spec/schemas/*.schema.json, which are the
// single source of truth for the bcolz metadata documents: the TypeScript types of the raw
// (parsed, unvalidated-by-code) documents and the schemas themselves as `as const` objects that
// @fmt/meta's runtime validator uses.
//
//   node tools/gen-meta-types/generate.mjs           write the file
//   node tools/gen-meta-types/generate.mjs --check   exit 1 if the file is out of date
//
// Plain Node, no dependencies. Only the schema keywords that @fmt/meta's validator implements are
// accepted, so a schema can never silently use a keyword that nothing enforces.

import { readFileSync, readdirSync, writeFileSync, mkdirSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
export const REPO_ROOT = resolve(here, "../..");
export const SCHEMAS_DIR = join(REPO_ROOT, "spec/schemas");
export const OUTPUT_FILE = join(REPO_ROOT, "packages/meta/src/generated/schemas.ts");

const ANNOTATIONS = new Set(["$schema", "$id", "title", "description", "$comment"]);
const VALIDATION = new Set([
  "type", "properties", "required", "additionalProperties", "items", "prefixItems", "minItems", "maxItems",
  "enum", "const", "minimum", "maximum", "minLength", "maxLength", "pattern", "oneOf", "anyOf", "$ref",
]);
const TYPES = new Set(["null", "boolean", "integer", "number", "string", "array", "object"]);
const MAX_SAFE = 9007199254740991;

/** Sub-directories of `spec/schemas/` holding the schemas of later format versions. */
const VERSION_DIRS = ["v2"];

/**
 * Reads every `*.schema.json` of `dir` (format version 1), then of each version sub-directory
 * (`v2/…`, named with that prefix), each group sorted by file name.
 */
export function loadSchemas(dir = SCHEMAS_DIR) {
  const read = (sub) => {
    const here = sub === "" ? dir : join(dir, sub);
    let names;
    try {
      names = readdirSync(here);
    } catch {
      return [];
    }
    return names
      .filter((f) => f.endsWith(".schema.json"))
      .sort()
      .map((f) => ({ file: sub === "" ? f : `${sub}/${f}`, schema: JSON.parse(readFileSync(join(here, f), "utf8")) }));
  };
  return [read(""), ...VERSION_DIRS.map(read)].flat();
}

function checkKeywords(schema, where) {
  if (typeof schema === "boolean") return;
  if (schema === null || typeof schema !== "object" || Array.isArray(schema)) throw new Error(`${where}: a schema must be an object or boolean`);
  for (const key of Object.keys(schema)) {
    if (!ANNOTATIONS.has(key) && !VALIDATION.has(key)) throw new Error(`${where}: keyword "${key}" is not supported by @fmt/meta's validator`);
  }
  const types = schema.type === undefined ? [] : Array.isArray(schema.type) ? schema.type : [schema.type];
  for (const t of types) if (!TYPES.has(t)) throw new Error(`${where}: unknown type "${t}"`);
  for (const [k, sub] of Object.entries(schema.properties ?? {})) checkKeywords(sub, `${where}/properties/${k}`);
  if (schema.items !== undefined) checkKeywords(schema.items, `${where}/items`);
  if (typeof schema.additionalProperties === "object") checkKeywords(schema.additionalProperties, `${where}/additionalProperties`);
  for (const [i, sub] of (schema.prefixItems ?? []).entries()) checkKeywords(sub, `${where}/prefixItems/${i}`);
  for (const [i, sub] of (schema.anyOf ?? []).entries()) checkKeywords(sub, `${where}/anyOf/${i}`);
  for (const [i, sub] of (schema.oneOf ?? []).entries()) checkKeywords(sub, `${where}/oneOf/${i}`);
}

function literal(v) {
  return JSON.stringify(v);
}

function union(parts) {
  const unique = [...new Set(parts)];
  return unique.length === 0 ? "never" : unique.join(" | ");
}

function tsType(schema, ctx, indent) {
  if (schema === true || schema === undefined) return "JsonValue";
  if (schema === false) return "never";
  if (schema.$ref !== undefined) {
    const target = ctx.byId.get(schema.$ref);
    if (target === undefined) throw new Error(`unresolved $ref ${schema.$ref}`);
    return target.title;
  }
  if (schema.const !== undefined) return literal(schema.const);
  if (schema.enum !== undefined) return union(schema.enum.map(literal));
  const alts = schema.anyOf ?? schema.oneOf;
  if (alts !== undefined) return union(alts.map((s) => wrap(tsType(s, ctx, indent))));
  if (schema.type === undefined) return "JsonValue";
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  return union(types.map((t) => wrap(typeFor(t, schema, ctx, indent))));
}

function wrap(t) {
  return t.includes(" | ") && !t.startsWith("{") ? `(${t})` : t;
}

function typeFor(type, schema, ctx, indent) {
  switch (type) {
    case "null":
      return "null";
    case "boolean":
      return "boolean";
    case "string":
      return "string";
    case "integer": {
      const safe = typeof schema.minimum === "number" && schema.minimum >= -MAX_SAFE && typeof schema.maximum === "number" && schema.maximum <= MAX_SAFE;
      return safe ? "number" : "number | bigint";
    }
    case "number":
      ctx.usesPyFloat = true;
      return "number | bigint | PyFloat";
    case "array": {
      if (schema.prefixItems !== undefined) {
        const head = schema.prefixItems.map((s) => tsType(s, ctx, indent));
        const rest = schema.items === false ? [] : [`...${wrap(tsType(schema.items, ctx, indent))}[]`];
        return `[${[...head, ...rest].join(", ")}]`;
      }
      return `${wrap(tsType(schema.items, ctx, indent))}[]`;
    }
    case "object": {
      const pad = "  ".repeat(indent + 1);
      const lines = [];
      const required = new Set(schema.required ?? []);
      let optional = false;
      for (const [key, sub] of Object.entries(schema.properties ?? {})) {
        if (typeof sub === "object" && sub.description !== undefined) lines.push(`${pad}/** ${sub.description.replace(/\*\//g, "*\\/")} */`);
        const opt = required.has(key) ? "" : "?";
        if (opt) optional = true;
        lines.push(`${pad}${/^[A-Za-z_$][\w$]*$/.test(key) ? key : literal(key)}${opt}: ${tsType(sub, ctx, indent + 1)};`);
      }
      const extra = schema.additionalProperties;
      if (extra !== false) {
        const t = extra === undefined || extra === true ? "JsonValue" : tsType(extra, ctx, indent + 1);
        lines.push(`${pad}[key: string]: ${t}${optional ? " | undefined" : ""};`);
      }
      return `{\n${lines.join("\n")}\n${"  ".repeat(indent)}}`;
    }
    default:
      throw new Error(`unknown type ${type}`);
  }
}

function constName(file) {
  const base = file.replace(/\.schema\.json$/, "");
  return `${base.replace(/[-_./](\w)/g, (_, c) => c.toUpperCase())}Schema`;
}

function docComment(lines) {
  return ["/**", ...lines.map((l) => (l === "" ? " *" : ` * ${l.replace(/\*\//g, "*\\/")}`)), " */"].join("\n");
}

/** Returns the text of packages/meta/src/generated/schemas.ts for the given schema files. */
export function generateSchemasModule(entries = loadSchemas()) {
  const byId = new Map();
  for (const { file, schema } of entries) {
    checkKeywords(schema, file);
    if (typeof schema.$id !== "string") throw new Error(`${file}: missing $id`);
    if (typeof schema.title !== "string" || !/^[A-Z]\w*$/.test(schema.title)) throw new Error(`${file}: title must be a TypeScript type name`);
    if (byId.has(schema.$id)) throw new Error(`${file}: duplicate $id ${schema.$id}`);
    byId.set(schema.$id, schema);
  }
  const ctx = { byId, usesPyFloat: false };
  const blocks = [];
  const registry = [];
  for (const { file, schema } of entries) {
    const name = constName(file);
    const type = tsType(schema, ctx, 0);
    blocks.push(
      docComment([
        schema.description ?? schema.title,
        "",
        `Generated from \`spec/schemas/${file}\`.`,
        "",
        "@example",
        "```ts",
        `const doc = parsePythonJson(text) as ${schema.title};`,
        "```",
      ]),
      `export type ${schema.title} = ${type};`,
      "",
      docComment([
        `The JSON Schema (draft 2020-12) \`${schema.$id}\`, verbatim from \`spec/schemas/${file}\`.`,
        "",
        "@example",
        "```ts",
        `validateJsonSchema(${name}, parsePythonJson(text), { path });`,
        "```",
      ]),
      `export const ${name} = ${JSON.stringify(schema, null, 2)} as const;`,
      "",
    );
    registry.push(`  ${literal(schema.$id)}: ${name},`);
  }
  const header = [
    "// GENERATED FILE — do not edit. Source: spec/schemas/*.schema.json.",
    "// Regenerate with: node tools/gen-meta-types/generate.mjs",
    "",
    `import type { JsonValue${ctx.usesPyFloat ? ", PyFloat" : ""} } from "../json.js";`,
    "",
  ];
  const footer = [
    docComment([
      "Every schema above by its `$id`, for resolving `$ref`.",
      "",
      "@example",
      "```ts",
      'const cparams = schemaRegistry["urn:fmt:bcolz:v1:cparams"];',
      "```",
    ]),
    `export const schemaRegistry = {\n${registry.join("\n")}\n} as const;`,
    "",
  ];
  return [...header, ...blocks, ...footer].join("\n");
}

function main(argv) {
  const text = generateSchemasModule();
  if (argv.includes("--check")) {
    let current = "";
    try {
      current = readFileSync(OUTPUT_FILE, "utf8");
    } catch {
      // missing file counts as out of date
    }
    if (current !== text) {
      console.error(`${OUTPUT_FILE} is out of date; run: node tools/gen-meta-types/generate.mjs`);
      process.exit(1);
    }
    console.log("generated schemas are up to date");
    return;
  }
  mkdirSync(dirname(OUTPUT_FILE), { recursive: true });
  writeFileSync(OUTPUT_FILE, text);
  console.log(`wrote ${OUTPUT_FILE}`);
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main(process.argv.slice(2));
