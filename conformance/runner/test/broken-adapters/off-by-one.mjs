#!/usr/bin/env node
// Broken on purpose: reads like the reference, then adds 1 to the first byte of every value file.
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { passThrough, reference } from "./lib.mjs";

const [operation, , out] = process.argv.slice(2);
const r = reference(process.argv.slice(2));
if (operation === "read" && r.status === 0) {
  for (const file of readdirSync(out).filter((f) => f.endsWith(".bin"))) {
    const bytes = readFileSync(join(out, file));
    if (bytes.length === 0) continue;
    bytes[0] = (bytes[0] + 1) & 0xff;
    writeFileSync(join(out, file), bytes);
  }
}
passThrough(r);
