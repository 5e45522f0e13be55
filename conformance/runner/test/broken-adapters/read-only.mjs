#!/usr/bin/env node
// A correct reader that does not write: its info lists only "read", so the runner must skip
// (never pass) the write cases.
import { passThrough, reference } from "./lib.mjs";

const r = reference(process.argv.slice(2));
if (process.argv[2] === "info") {
  const info = JSON.parse(r.stdout);
  console.log(JSON.stringify({ ...info, operations: ["read"] }));
  process.exit(0);
}
passThrough(r);
