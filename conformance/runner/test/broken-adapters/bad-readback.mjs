#!/usr/bin/env node
// Broken on purpose: writes, then cuts the body of the last chunk file of every array in half,
// so the dataset it wrote does not read back (headers and metadata stay correct).
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { passThrough, reference } from "./lib.mjs";

function cutLastChunk(arrayDir) {
  const dataDir = join(arrayDir, "data");
  const chunks = existsSync(dataDir) ? readdirSync(dataDir).filter((f) => f.endsWith(".blp")).sort() : [];
  const last = chunks.at(-1);
  if (last === undefined) return;
  const bytes = readFileSync(join(dataDir, last));
  writeFileSync(join(dataDir, last), bytes.subarray(0, 16 + Math.floor((bytes.length - 16) / 2)));
}

const [operation, , dataset] = process.argv.slice(2);
const r = reference(process.argv.slice(2));
if (operation === "write" && r.status === 0) {
  if (existsSync(join(dataset, "__rootdirs__"))) {
    const { names } = JSON.parse(readFileSync(join(dataset, "__rootdirs__"), "utf8"));
    for (const name of names) cutLastChunk(join(dataset, name));
  } else {
    cutLastChunk(dataset);
  }
}
passThrough(r);
