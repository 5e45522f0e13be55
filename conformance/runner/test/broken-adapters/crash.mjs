#!/usr/bin/env node
// Broken on purpose: answers info, then dies with an uncaught exception (exit 1, a stack trace).
import { passThrough, reference } from "./lib.mjs";

if (process.argv[2] === "info") passThrough(reference(["info"]));
throw new TypeError("cannot read properties of undefined (reading 'chunklen')");
