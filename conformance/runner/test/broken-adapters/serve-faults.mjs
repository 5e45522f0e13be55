#!/usr/bin/env node
// Broken on purpose in `serve` (spec/conformance.md §1.5) only: answers every request through the
// reference adapter, except the request whose argv mentions blpk_bad_magic, where it does what
// SERVE_FAULT says: "hang" (never answers), "exit" (the process ends mid-request), "garbage" (a
// line that is not an answer), "wrong-id" (an answer for another request). Without a fault it
// is a correct serve adapter; `info` lists "serve" so the runner uses it.
import { createInterface } from "node:readline";
import { reference } from "./lib.mjs";

const args = process.argv.slice(2);
if (args[0] === "info") {
  const r = reference(args);
  const info = JSON.parse(r.stdout);
  process.stdout.write(`${JSON.stringify({ ...info, operations: [...info.operations, "serve"] })}\n`);
  process.exit(0);
}
if (args[0] !== "serve") {
  const r = reference(args);
  process.stdout.write(r.stdout);
  process.exit(r.status);
}
const fault = process.env.SERVE_FAULT ?? "";
for await (const line of createInterface({ input: process.stdin, crlfDelay: Infinity })) {
  const request = JSON.parse(line);
  if (request.argv.some((a) => a.includes("blpk_bad_magic"))) {
    if (fault === "hang") await new Promise(() => setInterval(() => undefined, 1000));
    if (fault === "exit") process.exit(0);
    if (fault === "garbage") process.stdout.write("reading blpk_bad_magic...\n");
    if (fault === "wrong-id") process.stdout.write(`${JSON.stringify({ id: request.id + 1000, status: 0, stdout: "" })}\n`);
    if (fault !== "") continue;
  }
  const r = reference(request.argv);
  process.stdout.write(`${JSON.stringify({ id: request.id, status: r.status, stdout: r.stdout })}\n`);
}
