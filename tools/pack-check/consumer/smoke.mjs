// Run by pack-check.mjs inside the fresh project, after the tarballs are installed: imports every
// JavaScript entry point of every package from Node ESM, then reads a corpus dataset shipped in
// @fmt/conformance with @fmt/store and compares it with the corpus's expected values.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const entryPoints = JSON.parse(process.argv[2] ?? "[]");
if (entryPoints.length === 0) throw new Error("no entry points given");
for (const specifier of entryPoints) {
  const mod = await import(specifier);
  if (Object.keys(mod).length === 0) throw new Error(`${specifier}: the module exports nothing`);
}
console.log(`imported ${entryPoints.length} entry points`);

const { FileSystemStore } = await import("@fmt/fs-adapters/node");
const { open } = await import("@fmt/store");
const caseDir = fileURLToPath(new URL("./node_modules/@fmt/conformance/corpus/v1/bcolz-real/carray_i4_n5000_cl1024/", import.meta.url));
const dataset = await open(new FileSystemStore(`${caseDir}data.bcolz`));
if (dataset.kind !== "carray") throw new Error(`expected a carray, got ${dataset.kind}`);
const bytes = await dataset.readBytes();
const expected = readFileSync(`${caseDir}expected/values.bin`);
if (dataset.length !== 5000 || !Buffer.from(bytes).equals(expected)) throw new Error("carray_i4_n5000_cl1024 did not read back as its expected/values.bin");
console.log(`read ${dataset.length} rows of ${dataset.dtype.str} from the installed corpus: equal to expected/values.bin`);

const schemaPath = fileURLToPath(import.meta.resolve("@fmt/spec/schemas/storage.schema.json"));
const schema = JSON.parse(readFileSync(schemaPath, "utf8"));
if (typeof schema !== "object" || schema === null || !("properties" in schema)) throw new Error("@fmt/spec: storage.schema.json is not a schema");
console.log("@fmt/spec: schemas resolve through the exports map");
