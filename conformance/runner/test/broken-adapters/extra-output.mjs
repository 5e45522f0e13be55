#!/usr/bin/env node
// Broken on purpose: reads correctly but also leaves a debug file in OUT_DIR.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { passThrough, reference } from "./lib.mjs";

const [operation, , out] = process.argv.slice(2);
const r = reference(process.argv.slice(2));
if (operation === "read" && r.status === 0) writeFileSync(join(out, "trace.log"), "debug\n");
passThrough(r);
