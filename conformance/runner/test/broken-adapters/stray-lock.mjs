#!/usr/bin/env node
// Broken on purpose: writes correctly but leaves the writer's lock and journal behind
// (v1.md §14 forbids both in a finished dataset).
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { passThrough, reference } from "./lib.mjs";

const [operation, , dataset] = process.argv.slice(2);
const r = reference(process.argv.slice(2));
if (operation === "write" && r.status === 0) {
  writeFileSync(join(dataset, ".lock"), `${process.pid}\n`);
  writeFileSync(join(dataset, ".journal"), "");
}
passThrough(r);
