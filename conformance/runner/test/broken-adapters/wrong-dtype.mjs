#!/usr/bin/env node
// Broken on purpose: reports dtypes without their byte-order character ("f8" for "<f8").
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { passThrough, reference } from "./lib.mjs";

const [operation, , out] = process.argv.slice(2);
const r = reference(process.argv.slice(2));
if (operation === "read" && r.status === 0) {
  const path = join(out, "result.json");
  const result = JSON.parse(readFileSync(path, "utf8"));
  const strip = (dtype) => dtype.replace(/^[<>|=]/, "");
  result.dtype = typeof result.dtype === "string" ? strip(result.dtype) : result.dtype.map(([name, dtype]) => [name, strip(dtype)]);
  for (const column of result.columns) column.dtype = strip(column.dtype);
  writeFileSync(path, JSON.stringify(result));
}
passThrough(r);
