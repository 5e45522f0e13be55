#!/usr/bin/env node
// Broken on purpose: leaves a lock file in the dataset directory it was asked to read.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { passThrough, reference } from "./lib.mjs";

const [operation, dataset] = process.argv.slice(2);
const r = reference(process.argv.slice(2));
if (operation === "read") writeFileSync(join(dataset, ".lock"), `${process.pid}\n`);
passThrough(r);
