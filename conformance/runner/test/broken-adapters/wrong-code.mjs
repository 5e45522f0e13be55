#!/usr/bin/env node
// Broken on purpose: rejects invalid datasets, but always with a different error code.
import { passThrough, reference } from "./lib.mjs";

const r = reference(process.argv.slice(2));
if (r.status === 3) {
  const reported = JSON.parse(r.stdout.trim().split("\n").pop());
  const code = reported.code === "BAD_HEADER" ? "BAD_MAGIC" : "BAD_HEADER";
  console.log(JSON.stringify({ code, message: "wrong on purpose" }));
  process.exit(3);
}
passThrough(r);
