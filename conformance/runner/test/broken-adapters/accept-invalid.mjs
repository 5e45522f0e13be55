#!/usr/bin/env node
// Broken on purpose: never reports an invalid dataset; exits 0 with an empty result instead.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { passThrough, reference } from "./lib.mjs";

const [operation, , out] = process.argv.slice(2);
const r = reference(process.argv.slice(2));
if (operation === "read" && r.status === 3) {
  mkdirSync(out, { recursive: true });
  writeFileSync(join(out, "result.json"), "{}");
  process.exit(0);
}
passThrough(r);
